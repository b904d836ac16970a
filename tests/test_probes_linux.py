"""The Linux probe on fake /proc, /dev, /sys and library trees, with fake ldconfig and systemd answers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

from gpudoctor.probes.command import CommandResult
from gpudoctor.probes.linux import LinuxResult, container_kind, kernel_module_version, probe_linux, wsl_version

LDCONFIG = """\
1466 libs found in cache `/etc/ld.so.cache'
	libnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1
	libcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8
	libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
	libcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1
	libcrypto.so.3 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcrypto.so.3
"""


def _write(root: Path, path: str, text: str = "") -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


class FakeTools:
    """Answers the commands the probe runs; records what it was asked."""

    def __init__(self, answers: Dict[str, CommandResult]) -> None:
        self.answers = answers
        self.asked: List[Sequence[str]] = []

    def find(self, name: str) -> Optional[str]:
        return f"/usr/bin/{name}" if name in self.answers else None

    def run(self, argv: Sequence[str], timeout: float) -> CommandResult:
        self.asked.append(tuple(argv))
        return self.answers[os.path.basename(argv[0])]


@pytest.fixture
def nvswitch_box(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    _write(
        root,
        "/proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:25:25 UTC 2024\nGCC version:  gcc version 12.3.0\n",
    )
    _write(
        root,
        "/proc/modules",
        "nvidia_uvm 4911104 0 - Live 0x0000000000000000 (PO)\n"
        "nvidia_drm 122880 2 - Live 0x0000000000000000 (PO)\n"
        "nvidia 8605696 35 nvidia_uvm,nvidia_drm, Live 0x0000000000000000 (PO)\n"
        "snd_hda_intel 61440 2 - Live 0x0000000000000000\n",
    )
    _write(root, "/proc/version", "Linux version 6.5.0-41-generic (buildd@lcy02-amd64-120) #41~22.04.2-Ubuntu SMP\n")
    for node in ("nvidia0", "nvidiactl", "nvidia-uvm", "nvidia-nvswitchctl", "null"):
        _write(root, f"/dev/{node}")
    for address, vendor, device, klass in (
        ("0000:01:00.0", "0x10de", "0x2330", "0x030200"),
        ("0000:01:00.1", "0x10de", "0x22ba", "0x040300"),
        ("0000:05:00.0", "0x8086", "0x1533", "0x020000"),
        ("0000:c1:00.0", "0x10de", "0x22a3", "0x068000"),
    ):
        for name, text in (("vendor", vendor), ("device", device), ("class", klass)):
            _write(root, f"/sys/bus/pci/devices/{address}/{name}", text + "\n")
    _write(root, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07")
    os.symlink("libnvidia-ml.so.550.90.07", root / "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
    for name in ("libcudnn.so.8", "libcudnn_cnn_train.so.8", "libcuda.so", "libfoo.so"):
        _write(root, f"/opt/cudnn8/lib/{name}")
    return root


def test_nvswitch_box_with_a_stray_cudnn(nvswitch_box: Path) -> None:
    tools = FakeTools(
        {
            "ldconfig": CommandResult(("ldconfig", "-p"), 0, LDCONFIG),
            "systemctl": CommandResult(("systemctl",), 0, "LoadState=loaded\nActiveState=failed\n"),
            "nv-fabricmanager": CommandResult(("nv-fabricmanager",), 0, "Fabric Manager version is : 550.54.15\n"),
        }
    )
    env = {"LD_LIBRARY_PATH": "/opt/cudnn8/lib::/does/not/exist"}
    result = probe_linux(nvswitch_box, env, tools.run, tools.find)
    assert result == LinuxResult(
        kernel_module_version="550.54.14",
        kernel_modules=("nvidia", "nvidia_drm", "nvidia_uvm"),
        dev_nvidia=("/dev/nvidia-nvswitchctl", "/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl"),
        fabric_manager="stopped",
        fabric_manager_version="550.54.15",
        wsl_lib_dir=False,
        ldconfig_cuda=(
            ("libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
            ("libcudnn.so.8", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"),
            ("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
        ),
        ld_library_path_cuda=(
            ("libcuda.so", "/opt/cudnn8/lib/libcuda.so"),
            ("libcudnn.so.8", "/opt/cudnn8/lib/libcudnn.so.8"),
            ("libcudnn_cnn_train.so.8", "/opt/cudnn8/lib/libcudnn_cnn_train.so.8"),
        ),
        libcuda_paths=("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/opt/cudnn8/lib/libcuda.so"),
        extra=(("nvml_library_version", "550.90.07"), ("nvidia_pci", "0000:01:00.0 10de:2330 0302; 0000:c1:00.0 10de:22a3 0680")),
    )
    assert [argv[1:] for argv in tools.asked] == [
        ("show", "--property=LoadState,ActiveState", "nvidia-fabricmanager.service"),
        ("--version",),
        ("-p",),
    ]


def test_wsl2_without_kernel_modules(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _write(root, "/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) #1 SMP\n")
    _write(root, "/proc/modules", "")
    _write(root, "/dev/dxg")
    _write(root, "/usr/lib/wsl/lib/libcuda.so.1")
    _write(root, "/usr/lib/wsl/lib/libnvidia-ml.so.1")
    tools = FakeTools({"systemctl": CommandResult(("systemctl",), 0, "")})
    result = probe_linux(root, {}, tools.run, tools.find)
    assert result == LinuxResult(
        dev_nvidia=("/dev/dxg",), wsl=2, wsl_lib_dir=True, libcuda_paths=("/usr/lib/wsl/lib/libcuda.so.1",)
    )
    assert tools.asked == []  # no nvidia module: the fabric manager is not asked about


def test_unreadable_proc_and_a_failing_ldconfig(tmp_path: Path) -> None:
    tools = FakeTools({"ldconfig": CommandResult(("ldconfig", "-p"), 1, "", "ldconfig: Can't open cache file\n")})
    result = probe_linux(tmp_path, {}, tools.run, tools.find)
    assert result == LinuxResult(
        dev_nvidia=(),
        wsl_lib_dir=False,
        errors=(
            ("driver", "/proc/modules is not readable, so the loaded kernel modules are unknown"),
            ("libraries", "ldconfig -p failed: ldconfig: Can't open cache file"),
        ),
    )


@pytest.mark.parametrize(
    ("files", "env", "expected"),
    [
        ({"/.dockerenv": ""}, {}, "docker"),
        ({"/run/.containerenv": ""}, {}, "podman"),
        ({"/.dockerenv": ""}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, "kubernetes"),
        ({"/proc/1/cgroup": "0::/kubepods/besteffort/pod1234\n"}, {}, "kubernetes"),
        ({"/proc/1/cgroup": "12:pids:/docker/0123456789ab\n"}, {}, "docker"),
        ({"/proc/1/cgroup": "0::/lxc.payload.c1\n"}, {}, "lxc"),
        ({}, {"APPTAINER_CONTAINER": "/images/pytorch.sif"}, "apptainer"),
        ({"/proc/1/cgroup": "0::/init.scope\n"}, {}, None),
    ],
)
def test_container_kinds(tmp_path: Path, files: Dict[str, str], env: Dict[str, str], expected: Optional[str]) -> None:
    for path, text in files.items():
        _write(tmp_path, path, text)
    assert container_kind(tmp_path, env) == expected


def test_small_parsers() -> None:
    assert kernel_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024") == "470.256.02"
    assert kernel_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.95.05  Release Build") == "580.95.05"
    assert kernel_module_version(None) is None
    assert wsl_version("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)") == 1
    assert wsl_version("Linux version 6.6.36.6-microsoft-standard-WSL2+") == 2
    assert wsl_version("Linux version 6.5.0-41-generic") is None
