"""Exact findings of the foundation checks (driver, torch, gpu.arch, torchvision, devices) for each failure mode."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Tuple

import pytest

from gpudoctor.checks import devices, driver, gpu_arch, torch_install, torchvision
from gpudoctor.checks.support import install as _fix
from gpudoctor.facts import (
    CompanionFacts,
    Distribution,
    DriverFacts,
    EnvFacts,
    Facts,
    PlatformFacts,
    TorchDevice,
    TorchFacts,
)
from gpudoctor.model import CheckResult, Finding, Fix, Severity, Status
from gpudoctor.registry import Check
from gpudoctor.runner import run_check

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
PY = "/home/ana/venv/bin/python"


def scenario(name: str) -> Facts:
    return Facts.from_json((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))


def replace(obj: Any, **changes: Any) -> Any:
    return dataclasses.replace(obj, **changes)


def run(chk: Check, facts: Facts) -> CheckResult:
    return run_check(chk, facts)


def only(chk: Check, facts: Facts) -> Finding:
    result = run(chk, facts)
    assert result.status is not Status.CRASH, result.reason
    assert len(result.findings) == 1, result.findings
    return result.findings[0]


def with_env(facts: Facts, **variables: str) -> Facts:
    return replace(facts, env=EnvFacts(variables=tuple(sorted(variables.items()))))


# ---------------------------------------------------------------- devices

GPU0 = "GPU 0 (NVIDIA GeForce RTX 3090, 00000000:01:00.0)"
GPU1 = "GPU 1 (NVIDIA GeForce RTX 3090, 00000000:21:00.0)"
GPU_LIST = (
    f"{GPU0}, GPU-1f6b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d\n"
    f"{GPU1}, GPU-9e8d7c6b-5a4f-3e2d-1c0b-a9f8e7d6c5b4"
)
UNSET_OR_ALL = Fix(
    "Unset the variable to use every GPU, or list only GPUs that exist. Set it before Python starts: "
    "CUDA reads it once, when it initialises.",
    ("unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0,1"),
)


def two_gpus(value: str | None) -> Facts:
    facts = scenario("cvd-empty-2gpu")
    return with_env(facts) if value is None else with_env(facts, CUDA_VISIBLE_DEVICES=value)


def test_devices_empty_value_hides_every_gpu() -> None:
    assert only(devices.visible_devices, scenario("cvd-empty-2gpu")) == Finding(
        code="devices.visible",
        severity=Severity.ERROR,
        summary='CUDA_VISIBLE_DEVICES="" hides every GPU: NVML sees 2 GPUs, CUDA is left with none',
        detail="An empty value hides every GPU.\nGPUs on this machine:\n" + GPU_LIST,
        fix=UNSET_OR_ALL,
        evidence=("env.variables", "gpus"),
    )


@pytest.mark.parametrize(
    "value, why",
    [
        ("-1", "'-1' is not a GPU index, and CUDA stops at the first entry it cannot use"),
        ("NoDevFiles", "The batch scheduler sets NoDevFiles when the job was given no GPU; request GPUs for the job"),
        ("0,0", "GPU 0 is listed twice, and CUDA then discards the whole list"),
        ("5", "GPU 5 does not exist (NVML sees 2 GPUs, indices 0-1), and CUDA stops at the first entry it cannot use"),
        ("GPU-deadbeef", "GPU-deadbeef is not the UUID of any GPU on this machine, and CUDA stops at the first entry "
                         "it cannot use"),
    ],
)
def test_devices_values_that_leave_nothing(value: str, why: str) -> None:
    finding = only(devices.visible_devices, two_gpus(value))
    assert (finding.severity, finding.summary, finding.detail.splitlines()[0], finding.fix) == (
        Severity.ERROR,
        f'CUDA_VISIBLE_DEVICES="{value}" hides every GPU: NVML sees 2 GPUs, CUDA is left with none',
        why + ".",
        UNSET_OR_ALL,
    )


def test_devices_cuda_stops_at_the_first_invalid_entry() -> None:
    assert only(devices.visible_devices, two_gpus("0,7,1")) == Finding(
        code="devices.visible",
        severity=Severity.WARNING,
        summary='CUDA_VISIBLE_DEVICES="0,7,1": GPU 7 does not exist (NVML sees 2 GPUs, indices 0-1); CUDA stops at '
                "the first invalid entry, so only 1 GPU is visible",
        detail=f"What torch sees:\ncuda:0 = {GPU0}\nIgnored from '7' on.",
        fix=Fix(UNSET_OR_ALL.text, ("unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0,1")),
        evidence=("env.variables", "gpus"),
    )


def test_devices_mapping_by_uuid_prefix_and_strtoul_ordinals() -> None:
    facts = two_gpus("GPU-9e8d7c6b")
    facts = replace(facts, torch=replace(facts.torch, is_available=True, device_count=1))
    assert only(devices.visible_devices, facts) == Finding(
        code="devices.mapping",
        severity=Severity.INFO,
        summary='CUDA_VISIBLE_DEVICES="GPU-9e8d7c6b" selects 1 GPU of 2',
        detail=f"cuda:0 = {GPU1}",
        evidence=("env.variables", "gpus"),
    )
    visible = devices.parse_visible("1gpu, 0", facts.gpus, 2)
    assert visible == devices.Visible(devices=(("1gpu", GPU1), ("0", GPU0)))


def test_devices_torch_count_differs_from_nvml() -> None:
    facts = two_gpus(None)
    facts = replace(facts, torch=replace(facts.torch, is_available=True, device_count=1,
                                         devices=(TorchDevice(0, "NVIDIA GeForce RTX 3090", (8, 6)),)))
    assert only(devices.visible_devices, facts) == Finding(
        code="devices.visible",
        severity=Severity.WARNING,
        summary="torch sees 1 GPU, NVML sees 2 and CUDA_VISIBLE_DEVICES is not set",
        detail="NVML:\n" + GPU_LIST,
        fix=Fix("Check every GPU's state with nvidia-smi; a GPU in a bad state is counted by NVML but not by CUDA.",
                ("nvidia-smi -q -d PAGE_RETIREMENT,ECC,PERFORMANCE",)),
        evidence=("gpus", "torch.device_count", "env.variables"),
    )


def test_devices_passes_when_unset_and_counts_agree() -> None:
    facts = two_gpus(None)
    facts = replace(facts, torch=replace(facts.torch, is_available=True, device_count=2))
    result = run(devices.visible_devices, facts)
    assert (result.status, result.findings) == (Status.PASS, ())


def test_devices_skips_without_gpus() -> None:
    result = run(devices.visible_devices, scenario("no-gpu-cpu-laptop"))
    assert (result.status, result.reason) == (
        Status.SKIP, "no NVIDIA GPU is known, so no devices can be hidden (NVML library not found)")


def test_devices_windows_fix_uses_powershell() -> None:
    facts = replace(two_gpus(""), platform=PlatformFacts(system="Windows"))
    assert only(devices.visible_devices, facts).fix == Fix(
        UNSET_OR_ALL.text, ("Remove-Item Env:CUDA_VISIBLE_DEVICES", "$env:CUDA_VISIBLE_DEVICES = '0,1'"))


# ---------------------------------------------------------------- driver

MISMATCH_DETAIL = (
    "The driver's user-space libraries were replaced (often by an unattended upgrade) while the old kernel module "
    "is still loaded; NVML and CUDA refuse to work until the two match again.\n"
    "Driver/library version mismatch\n"
    "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.90"
)
RELOAD = "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"
HOLD_APT = "dpkg-query -W -f='${Package}\\n' '*nvidia*' | xargs sudo apt-mark hold"


def test_driver_nvml_mismatch() -> None:
    assert only(driver.driver, scenario("nvml-mismatch")) == Finding(
        code="driver.nvml-mismatch",
        severity=Severity.ERROR,
        summary="NVIDIA driver/library version mismatch: user-space 550.90, kernel module 550.54.14",
        detail=MISMATCH_DETAIL,
        fix=Fix(
            "Reboot, or stop every process that uses the GPU and reload the kernel modules. Then hold the driver "
            "packages so they change only when you upgrade on purpose.",
            ("sudo reboot", RELOAD, HOLD_APT),
        ),
        evidence=("driver.nvml_error", "driver.version", "driver.kernel_module_version"),
    )


def test_driver_versions_that_disagree_are_a_mismatch_even_without_an_nvml_error() -> None:
    facts = scenario("healthy-h100")
    facts = replace(facts, driver=replace(facts.driver, kernel_module_version="580.82.07"),
                    platform=replace(facts.platform, distro="Rocky Linux 9.4", container="docker"))
    finding = only(driver.driver, facts)
    assert (finding.code, finding.summary, finding.fix) == (
        "driver.nvml-mismatch",
        "NVIDIA driver/library version mismatch: user-space 580.95.05, kernel module 580.82.07; torch still sees the "
        "GPU, so only NVML (nvidia-smi) fails for now",
        Fix("On the host, not in this container: reboot, or stop every process that uses the GPU and reload the "
            "kernel modules. Then hold the driver packages so they change only when you upgrade on purpose.",
            ("sudo reboot", RELOAD, "sudo dnf versionlock add 'nvidia-*' 'kmod-nvidia*' 'akmod-nvidia*'")),
    )


def test_driver_installed_but_not_loaded() -> None:
    facts = scenario("healthy-h100")
    facts = replace(facts, gpus=(), driver=DriverFacts(nvml_error="driver_not_loaded", nvml_error_text="Driver Not Loaded",
                                                        kernel_modules=()))
    assert only(driver.driver, facts) == Finding(
        code="driver.not-loaded",
        severity=Severity.ERROR,
        summary="the NVIDIA driver is installed but its kernel module is not loaded",
        detail="Driver Not Loaded",
        fix=Fix(
            "Load the NVIDIA kernel module; if it refuses, the kernel log says why (often Secure Boot rejecting an "
            "unsigned module, or a new kernel without the module rebuilt).",
            ("sudo modprobe nvidia", "sudo dmesg | grep -i -E 'nvidia|nouveau' | tail -n 20", "sudo ubuntu-drivers install"),
        ),
        evidence=("driver.nvml_error", "driver.kernel_modules"),
    )


def test_driver_not_loaded_under_wsl_points_at_windows() -> None:
    facts = scenario("healthy-h100")
    facts = replace(facts, platform=replace(facts.platform, wsl=2),
                    driver=DriverFacts(smi_error_text="NVIDIA-SMI has failed because it couldn't communicate with the "
                                                      "NVIDIA driver. Make sure that the latest NVIDIA driver is "
                                                      "installed and running."))
    finding = only(driver.driver, facts)
    assert (finding.code, finding.fix) == ("driver.not-loaded", Fix(
        "Under WSL the driver comes from Windows: install or update the NVIDIA driver on Windows (never a Linux driver "
        "inside WSL) from https://www.nvidia.com/Download/index.aspx, then restart WSL from Windows.",
        ("wsl.exe --shutdown",)))


def test_driver_missing_with_a_cuda_torch_and_no_sign_of_a_gpu_is_a_warning() -> None:
    facts = scenario("no-gpu-cpu-laptop")
    facts = replace(facts, torch=replace(facts.torch, version="2.14.1+cu130", cuda="13.0", cuda_compiled=True))
    assert only(driver.driver, facts) == Finding(
        code="driver.not-loaded",
        severity=Severity.WARNING,
        summary="no NVIDIA driver found (NVML library not found); torch 2.14.1+cu130 is a CUDA 13.0 build that needs one",
        detail="NVML Shared Library Not Found\nnvidia-smi not found",
        fix=Fix("See whether the machine has an NVIDIA GPU; if it does, install the NVIDIA driver, then reboot.",
                ("lspci | grep -i nvidia", "sudo ubuntu-drivers install", "sudo reboot")),
        evidence=("driver.nvml_error", "torch.cuda", "torch.init_error"),
    )


def test_driver_missing_when_only_torch_says_so() -> None:
    said = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
            "from http://www.nvidia.com/Download/index.aspx")
    base = scenario("driver470-cu121")
    facts = replace(base, gpus=(), driver=DriverFacts(), platform=replace(base.platform, dev_nvidia=None),
                    torch=replace(base.torch, init_error=said))
    finding = only(driver.driver, facts)
    assert (finding.code, finding.severity, finding.summary, finding.detail) == (
        "driver.not-loaded",
        Severity.WARNING,
        'no NVIDIA driver found (torch: "Found no NVIDIA driver on your system"); torch 2.1.2+cu121 is a CUDA 12.1 '
        "build that needs one",
        said,
    )


def test_driver_skips_honestly_on_a_machine_without_nvidia() -> None:
    result = run(driver.driver, scenario("no-gpu-cpu-laptop"))
    assert (result.status, result.reason) == (
        Status.SKIP,
        "no NVIDIA driver or GPU on this machine (NVML library not found) and torch 2.14.1+cpu is not a CUDA build",
    )
    mac = replace(Facts(), platform=PlatformFacts(system="Darwin"))
    assert (run(driver.driver, mac).status, run(driver.driver, mac).reason) == (Status.SKIP, "macOS has no NVIDIA CUDA driver")


TOO_OLD_INIT = (
    "The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading "
    "and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
    "https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver."
)
CU118_PAIR = ("/home/ana/venv/bin/python -m pip install torch==2.7.1+cu118 torchvision==0.22.1+cu118 "
              "--index-url https://download.pytorch.org/whl/cu118")
TOO_OLD_FIX = Fix(
    "Upgrade the NVIDIA driver to >= 525.60.13, or install the torch build this driver runs: torch 2.7.1+cu118 and "
    "torchvision 0.22.1+cu118.",
    ("sudo ubuntu-drivers install", CU118_PAIR),
)


def test_driver_too_old_for_the_wheels_cuda() -> None:
    assert only(driver.driver, scenario("driver470-cu121")) == Finding(
        code="driver.too-old-for-torch",
        severity=Severity.ERROR,
        summary="driver 470.82.01 supports CUDA 11.4; torch 2.1.2+cu121 needs CUDA 12.x, i.e. driver >= 525.60.13",
        detail=TOO_OLD_INIT,
        fix=TOO_OLD_FIX,
        evidence=("driver.version", "torch.cuda", "torch.init_error"),
    )


def test_driver_too_old_recognised_from_torchs_message_alone() -> None:
    facts = replace(scenario("driver470-cu121"), driver=DriverFacts())
    finding = only(driver.driver, facts)
    assert (finding.code, finding.summary, finding.fix) == (
        "driver.too-old-for-torch",
        'the driver supports CUDA 11.4 (torch: "found version 11040"); torch 2.1.2+cu121 needs CUDA 12.x, '
        "i.e. driver >= 525.60.13",
        TOO_OLD_FIX,
    )


def test_driver_passes_with_a_note_when_it_runs_torch() -> None:
    result = run(driver.driver, scenario("healthy-h100"))
    assert (result.status, result.findings) == (Status.PASS, (Finding(
        code="driver.ok",
        severity=Severity.INFO,
        summary="NVIDIA driver 580.95.05 (CUDA 13.0); new enough for torch 2.14.1+cu130 (CUDA 13.0, needs >= 580.65.06)",
        evidence=("driver.version", "driver.cuda_version"),
        short="580.95.05, CUDA 13.0",
    ),))


def _old_driver(torch: str, cuda: str, version: str):  # type: ignore[no-untyped-def]
    facts = scenario("healthy-h100")
    return dataclasses.replace(
        facts,
        torch=dataclasses.replace(facts.torch, version=torch, cuda=cuda),
        driver=dataclasses.replace(facts.driver, version=version, cuda_version=None, kernel_module_version=version),
    )


def test_driver_is_not_vouched_for_when_no_table_covers_torchs_cuda() -> None:
    # NVIDIA's Table 3 is kept back to CUDA 8.0, so a CUDA 7.5 build on an R346 driver is beyond every table
    result = run(driver.driver, _old_driver("0.3.1", "7.5", "346.46"))
    assert [f.code for f in result.findings] == ["driver.ok"]
    assert "new enough" not in result.findings[0].summary.replace("whether it is new enough", "")
    assert "not known" in result.findings[0].summary


def test_cuda_9_builds_are_judged_against_table_3() -> None:
    # torch 1.0.0 built with CUDA 9.0 needs >= 384.81; this case used to be "not known" before CUDA 9.x was tabled
    result = run(driver.driver, _old_driver("1.0.0", "9.0", "375.26"))
    assert [f.code for f in result.findings] == ["driver.too-old-for-torch"]
    assert "384.81" in result.findings[0].summary
    assert [f.code for f in run(driver.driver, _old_driver("1.0.0", "9.0", "384.130")).findings] == ["driver.ok"]


def test_driver_missing_in_a_container_on_a_gpu_host() -> None:
    facts = replace(scenario("torchvision-nms"), extra=(("nvidia_pci", "0000:3b:00.0 10de:2330 0302"),),
                    platform=replace(scenario("torchvision-nms").platform, container="docker"))
    assert only(driver.driver, facts) == Finding(
        code="driver.not-loaded",
        severity=Severity.ERROR,
        summary="this container has no access to the NVIDIA driver (NVML library not found), but the machine has an "
                "NVIDIA GPU",
        detail="NVML Shared Library Not Found\nnvidia-smi not found",
        fix=Fix("Start the container with GPU access; the host needs the NVIDIA driver and the NVIDIA Container Toolkit.",
                ("docker run --rm --gpus all ubuntu nvidia-smi -L",)),
        evidence=("driver.nvml_error", "platform.dev_nvidia", "driver.kernel_modules"),
    )


def test_driver_skips_when_the_pci_bus_has_no_nvidia_device_even_with_a_cuda_torch() -> None:
    facts = scenario("no-gpu-cpu-laptop")
    facts = replace(facts, extra=(("nvidia_pci", ""),),
                    torch=replace(facts.torch, version="2.14.1+cu130", cuda="13.0", cuda_compiled=True))
    result = run(driver.driver, facts)
    assert (result.status, result.reason) == (
        Status.SKIP, "no NVIDIA GPU on the PCI bus and no NVIDIA driver (NVML library not found)")


# ---------------------------------------------------------------- torch

def test_torch_not_installed_names_the_interpreter_and_the_install_command() -> None:
    facts = scenario("torch-missing")
    recommended = _fix.recommended_install(facts)
    assert recommended is not None
    assert only(torch_install.torch_install, facts) == Finding(
        code="torch.not-installed",
        severity=Severity.ERROR,
        summary="torch is not installed in /home/ana/proj/.venv/bin/python",
        detail=recommended.why,
        fix=Fix("Install torch 2.14.1+cu126 and torchvision 0.29.1+cu126. Or upgrade to NVIDIA driver >= 580.65.06 "
                "and install torch 2.15.0+cu130 (SECONDARY).", (
                    "/home/ana/proj/.venv/bin/python -m pip install torch==2.14.1+cu126 torchvision==0.29.1+cu126 "
                    "--index-url https://download.pytorch.org/whl/cu126",
                    "/home/ana/proj/.venv/bin/python -m pip install torch==2.15.0+cu130 torchvision==0.29.2+cu130 "
                    "--index-url https://download.pytorch.org/whl/cu130")),
        evidence=("torch.installed",),
    )


def test_torch_not_installed_on_a_machine_without_nvidia_recommends_the_cpu_wheel() -> None:
    facts = replace(scenario("no-gpu-cpu-laptop"), torch=TorchFacts(installed=False),
                    torchvision=CompanionFacts(installed=False), packages=())
    assert only(torch_install.torch_install, facts).fix == Fix(
        "Install torch 2.15.0+cpu and torchvision 0.29.2+cpu (CPU-only: no NVIDIA GPU was found).",
        (f"{PY} -m pip install torch==2.15.0+cpu torchvision==0.29.2+cpu --index-url https://download.pytorch.org/whl/cpu",),
    )


def test_the_cpu_wheel_offered_is_the_newest_for_the_target_python() -> None:
    facts = replace(scenario("no-gpu-cpu-laptop"), torch=TorchFacts(installed=False),
                    torchvision=CompanionFacts(installed=False), packages=())
    old = replace(facts, platform=replace(facts.platform, python_version="3.9.18"))
    assert only(torch_install.torch_install, old).fix == Fix(
        "Install torch 2.8.0+cpu and torchvision 0.23.0+cpu (CPU-only: no NVIDIA GPU was found).",
        (f"{PY} -m pip install torch==2.8.0+cpu torchvision==0.23.0+cpu --index-url https://download.pytorch.org/whl/cpu",),
    )


WIN_PY = "C:\\Users\\ana\\projects\\mnist\\.venv\\Scripts\\python.exe"


def test_torch_cpu_build_on_a_gpu_machine() -> None:
    finding = only(torch_install.torch_install, scenario("cpu-wheel-rtx4080"))
    assert (finding.code, finding.severity, finding.summary, finding.fix) == (
        "torch.cpu-build-on-gpu",
        Severity.ERROR,
        "torch 2.13.0+cpu is a CPU-only build, but this machine has 1 NVIDIA GPU (NVIDIA GeForce RTX 4080)",
        Fix("Replace it with torch 2.14.1+cu126 and torchvision 0.29.1+cu126. Or upgrade to an NVIDIA driver of "
            "branch R580 or newer and install torch 2.15.0+cu132 (UNCONFIRMED). Or keep torch 2.13.0 and install its "
            "cu126 build (SECONDARY).", (
                f"{WIN_PY} -m pip install torch==2.14.1+cu126 torchvision==0.29.1+cu126 "
                "--index-url https://download.pytorch.org/whl/cu126",
                f"{WIN_PY} -m pip install torch==2.15.0+cu132 torchvision==0.29.2+cu132 "
                "--index-url https://download.pytorch.org/whl/cu132",
                f"{WIN_PY} -m pip install torch==2.13.0+cu126 torchvision==0.28.0+cu126 "
                "--index-url https://download.pytorch.org/whl/cu126")),
    )
    assert finding.detail.splitlines()[0] == (
        'torch.cuda.is_available() is False with this build ("Torch not compiled with CUDA enabled").')


def test_an_unreported_cpu_architecture_is_assumed_and_said_so() -> None:
    facts = scenario("cpu-wheel-rtx4080")
    facts = dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, machine=None))
    finding = only(torch_install.torch_install, facts)
    assert finding.fix is not None
    assert finding.fix.commands[0] == (
        f"{WIN_PY} -m pip install torch==2.14.1+cu126 torchvision==0.29.1+cu126 "
        "--index-url https://download.pytorch.org/whl/cu126"
    )
    assert "The CPU architecture was not reported; AMD64 is assumed." in finding.detail


H100_PY = "/opt/conda/envs/train/bin/python"
CUDNN_TB = (
    "Traceback (most recent call last):\n"
    '  File "/opt/conda/envs/train/lib/python3.12/site-packages/torch/__init__.py", line 409, in <module>\n'
    "    from torch._C import *  # noqa: F403\n"
    "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"
)


def broken_torch(error: str, traceback: str | None = None, **facts_changes: Any) -> Facts:
    facts = scenario("healthy-h100")
    return replace(facts, torch=replace(facts.torch, import_error=error, import_traceback=traceback, version=None),
                   **facts_changes)


def test_torch_import_failed_names_the_missing_library() -> None:
    error = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"
    assert only(torch_install.torch_install, broken_torch(error, CUDNN_TB)) == Finding(
        code="torch.import-failed",
        severity=Severity.ERROR,
        summary=f"import torch fails in {H100_PY}: {error}",
        detail=f"The file that failed to load: libcudnn.so.9\n\n{CUDNN_TB}",
        fix=Fix("libcudnn.so.9 comes from torch's nvidia-* pip dependencies, which are missing or partly uninstalled; "
                "reinstall torch with its dependencies.",
                (f"{H100_PY} -m pip install --force-reinstall torch==2.14.1 torchvision==0.29.1",)),
        evidence=("torch.import_error", "torch.import_traceback"),
    )


def test_torch_import_failed_on_a_shadowing_library_unsets_ld_library_path() -> None:
    error = ("OSError: /usr/local/cuda-12.3/lib64/libcudnn_cnn_train.so.8: undefined symbol: "
             "_ZN5cudnn3cnn5infer22queryClusterPropertiesERPhS3_, version libcudnn_cnn_infer.so.8")
    facts = broken_torch(error, env=EnvFacts(variables=(("LD_LIBRARY_PATH", "/usr/local/cuda-12.3/lib64"),)))
    finding = only(torch_install.torch_install, facts)
    assert (finding.detail.splitlines()[0], finding.fix) == (
        "The file that failed to load: /usr/local/cuda-12.3/lib64/libcudnn_cnn_train.so.8",
        Fix("libcudnn_cnn_train.so.8 on LD_LIBRARY_PATH shadows the copy torch ships with; start Python without it.",
            ("unset LD_LIBRARY_PATH",)),
    )


def test_torch_import_failed_on_windows_fbgemm_in_240() -> None:
    error = ('OSError: [WinError 126] The specified module could not be found. Error loading '
             '"C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.')
    facts = replace(scenario("cpu-wheel-rtx4080"), torch=TorchFacts(installed=True, import_error=error),
                    torchvision=CompanionFacts(installed=False),
                    packages=(Distribution("torch", "2.4.0+cu121"),))
    finding = only(torch_install.torch_install, facts)
    assert (finding.summary, finding.detail.splitlines()[0], finding.fix) == (
        f"import torch fails in {WIN_PY}: {error}",
        "The file that failed to load: C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll",
        Fix("torch 2.4.0's Windows wheels miss libomp140.x86_64.dll, which fbgemm.dll needs; 2.4.1 fixed it.",
            (f"{WIN_PY} -m pip install torch==2.4.1+cu121 "
             "--index-url https://download.pytorch.org/whl/cu121",)),
    )


def test_torch_import_hung_and_crashed() -> None:
    facts = scenario("healthy-h100")
    hung = only(torch_install.torch_install, replace(facts, torch=TorchFacts(installed=True, timed_out=True)))
    assert hung == Finding(
        code="torch.import-hung",
        severity=Severity.ERROR,
        summary=f"import torch and CUDA initialisation did not finish in time in {H100_PY}",
        fix=Fix("Run the import by hand; after 60 s it prints where it hangs (often a stuck GPU, driver or network "
                "file system).", (
                    f'{H100_PY} -c "import faulthandler; faulthandler.dump_traceback_later(60, exit=True); '
                    'import torch; print(torch.cuda.is_available())"', "nvidia-smi")),
        evidence=("torch.timed_out",),
    )
    crashed = only(torch_install.torch_install,
                   replace(facts, torch=TorchFacts(installed=True, crashed="killed by signal 11 (SIGSEGV)")))
    assert (crashed.code, crashed.summary, crashed.fix) == (
        "torch.import-crashed",
        f"import torch and CUDA initialisation crashed in {H100_PY}: killed by signal 11 (SIGSEGV)",
        Fix("Run the import by hand with faulthandler on to see which library crashes.",
            (f'{H100_PY} -X faulthandler -c "import torch; print(torch.cuda.is_available())"',)),
    )


def test_torch_passes_on_a_healthy_install() -> None:
    result = run(torch_install.torch_install, scenario("healthy-h100"))
    assert (result.status, result.findings) == (Status.PASS, (Finding(
        code="torch.ok",
        severity=Severity.INFO,
        summary="torch 2.14.1+cu130 (CUDA 13.0, cuDNN 9.24.0) in /opt/conda/envs/train/lib/python3.12/site-packages/torch",
        detail="gpudoctor's compatibility data runs to torch 2.15.0 (data of 2026-11-24).",
        evidence=("torch.version", "torch.cuda", "torch.location"),
        short="2.14.1+cu130, CUDA 13.0, cuDNN 9.24.0",
    ),))
    newer = replace(scenario("healthy-h100"), torch=replace(scenario("healthy-h100").torch, version="2.16.0+cu132"))
    assert run(torch_install.torch_install, newer).findings[0].detail == (
        "gpudoctor's data ends at torch 2.15.0 (data of 2026-11-24); torch 2.16.0+cu132 is newer: this rests on its "
        "own metadata.")


def test_torch_skips_when_the_probe_did_not_say() -> None:
    facts = replace(Facts(), probe_errors=(("torch", "the torch probe printed no JSON"),))
    result = run(torch_install.torch_install, facts)
    assert (result.status, result.reason) == (
        Status.SKIP, "whether torch is installed is not known (the torch probe printed no JSON)")


# ---------------------------------------------------------------- gpu.arch

def test_gpu_arch_too_new_for_the_wheel() -> None:
    facts = scenario("rtx5090-cu126")
    finding = only(gpu_arch.gpu_arch, facts)
    recommended = _fix.recommended_install(facts)
    assert recommended is not None
    assert finding == Finding(
        code="gpu.arch-too-new",
        severity=Severity.ERROR,
        summary="torch 2.6.0+cu126 has kernels for sm_50..sm_90; GPU 0 (NVIDIA GeForce RTX 5090) is sm_120",
        detail="The build has no sm_12x kernel and no PTX the driver could compile for it; CUDA fails with \"no kernel "
               "image is available for execution on the device\".\n" + recommended.why,
        fix=Fix("Install torch 2.13.0+cu129 and torchvision 0.28.0+cu129. Or upgrade to NVIDIA driver >= 580.65.06 "
                "and install torch 2.15.0+cu130 (SECONDARY).", (
                    f"{PY} -m pip install torch==2.13.0+cu129 torchvision==0.28.0+cu129 "
                    "--index-url https://download.pytorch.org/whl/cu129",
                    f"{PY} -m pip install torch==2.15.0+cu130 torchvision==0.29.2+cu130 "
                    "--index-url https://download.pytorch.org/whl/cu130")),
        evidence=("torch.arch_flags", "gpus"),
    )


def test_gpu_arch_too_old_for_every_wheel() -> None:
    finding = only(gpu_arch.gpu_arch, scenario("gt645m-min35"))
    assert (finding.code, finding.summary, finding.detail) == (
        "gpu.arch-too-old",
        "torch 1.12.1+cu102 has kernels for sm_37..sm_70; GPU 0 (NVIDIA GeForce GT 645M) is sm_30",
        "The lowest architecture in this build is sm_37.",
    )
    assert finding.fix is not None and finding.fix.text.startswith(
        "No official PyTorch wheel can use this GPU: NVIDIA GeForce GT 645M (3.0) is older than every official wheel")
    assert finding.fix.commands[-1] == ("/usr/bin/python3 -m pip install torch==2.4.1+cpu torchvision==0.19.1+cpu "
                                        "--index-url https://download.pytorch.org/whl/cpu")


def test_gpu_arch_ptx_jit_with_a_driver_too_old_to_compile_it() -> None:
    facts = scenario("driver470-cu121")
    facts = replace(facts, gpus=(replace(facts.gpus[0], name="NVIDIA H100 PCIe", compute_capability=(9, 0)),),
                    torch=replace(facts.torch, arch_flags=("sm_80", "compute_80")))
    finding = only(gpu_arch.gpu_arch, facts)
    assert (finding.code, finding.severity, finding.summary) == (
        "gpu.arch-ptx-jit",
        Severity.WARNING,
        "torch 2.1.2+cu121 has kernels for sm_80 + PTX compute_80; GPU 0 (NVIDIA H100 PCIe) is sm_90: it runs through "
        "the compute_80 PTX, compiled at first use; driver CUDA 11.4 is older than the CUDA 12.1 that made it",
    )


def test_gpu_arch_believes_torch_when_it_refuses_a_gpu_its_ptx_should_cover() -> None:
    facts = scenario("driver470-cu121")
    refusal = ("NVIDIA GeForce RTX 3080 with CUDA capability sm_86 is not compatible with the current PyTorch "
               "installation. The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_61 sm_70 "
               "sm_75 compute_37.")
    facts = replace(facts, torch=replace(facts.torch, version="1.9.0", cuda="10.2", init_error=None, warnings=(refusal,),
                                         arch_flags=("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "compute_37")))
    finding = only(gpu_arch.gpu_arch, facts)
    assert (finding.code, finding.summary, finding.detail.splitlines()[:2]) == (
        "gpu.arch-too-new",
        "torch 1.9.0 has kernels for sm_37..sm_75 + PTX compute_37; GPU 0 (NVIDIA GeForce RTX 3080) is sm_86",
        [f"torch reports: {refusal}", "The build's compute_37 PTX does not rescue this GPU in practice."],
    )


def test_gpu_arch_marks_inferred_facts() -> None:
    facts = scenario("healthy-h100")
    facts = replace(facts, gpus=(replace(facts.gpus[0], compute_capability=None),), inferred=("torch.arch_flags",))
    assert only(gpu_arch.gpu_arch, facts) == Finding(
        code="gpu.arch-ok",
        severity=Severity.INFO,
        summary="GPU 0 (NVIDIA H100 80GB HBM3) is sm_90 and runs the sm_90 kernels of torch 2.14.1+cu130",
        detail="the wheel's architecture list was looked up, not read from the install\n"
               "the GPU's compute capability was looked up from its name",
        evidence=("torch.arch_flags", "gpus"),
        inferred=True,
        short="GPU 0: sm_90",
    )


def test_gpu_arch_groups_identical_gpus_in_one_note() -> None:
    result = run(gpu_arch.gpu_arch, scenario("cvd-empty-2gpu"))
    assert (result.status, result.findings) == (Status.PASS, (Finding(
        code="gpu.arch-ok",
        severity=Severity.INFO,
        summary="GPUs 0, 1 (NVIDIA GeForce RTX 3090) are sm_86 and run the sm_86 kernels of torch 2.5.1+cu124",
        evidence=("torch.arch_flags", "gpus"),
        short="GPUs 0, 1: sm_86",
    ),))


@pytest.mark.parametrize(
    "name, change, reason",
    [
        ("cpu-wheel-rtx4080", {}, "torch 2.13.0+cpu is a CPU build: it has no GPU kernels"),
        ("healthy-h100", {"arch_flags": None}, "torch did not report the GPU architectures it was built for"),
        ("healthy-h100", {"import_error": "ImportError: boom"}, "torch does not import, so its GPU architectures are unknown"),
        ("torch-missing", {}, "torch is not installed"),
    ],
)
def test_gpu_arch_skips_with_the_reason(name: str, change: dict, reason: str) -> None:
    facts = scenario(name)
    result = run(gpu_arch.gpu_arch, replace(facts, torch=replace(facts.torch, **change)))
    assert (result.status, result.reason) == (Status.SKIP, reason)


def test_gpu_arch_kernels_text() -> None:
    assert gpu_arch.kernels_text(("sm_75", "sm_80", "sm_120", "compute_120")) == "sm_75..sm_120 + PTX compute_120"
    assert gpu_arch.kernels_text(("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_37", "sm_90")) == "sm_37..sm_90"


# ---------------------------------------------------------------- torchvision

TORCH_INDEX = "--index-url https://download.pytorch.org/whl/cu126"
PAIR_TEXT = "Install torch and torchvision together, from one index, at the versions released together."
PAIR_126 = Fix(PAIR_TEXT, (f"{PY} -m pip install torch==2.6.0+cu126 torchvision==0.21.0+cu126 "
                           f"{TORCH_INDEX}",))


def with_vision(facts: Facts, version: str, cuda: str | None, requires: Tuple[str, ...], **changes: Any) -> Facts:
    packages = tuple(replace(d, version=version, requires=requires) if d.name == "torchvision" else d
                     for d in facts.packages)
    return replace(facts, torchvision=replace(facts.torchvision, version=version, cuda=cuda, **changes),
                   packages=packages)


def test_torchvision_nms_error_names_the_build_mismatch_and_the_exact_pair() -> None:
    finding = only(torchvision.torchvision_pairing, scenario("torchvision-nms"))
    assert (finding.code, finding.severity, finding.summary, finding.fix) == (
        "torchvision.import-failed",
        Severity.ERROR,
        "import torchvision fails (RuntimeError: operator torchvision::nms does not exist): torchvision 0.28.0+cu130 is "
        "the CUDA 13.0 build, torch 2.13.0+cpu the CPU build",
        Fix(PAIR_TEXT, ("/home/ana/cpu-env/bin/python -m pip install torch==2.13.0+cpu "
                        "torchvision==0.28.0+cpu --index-url https://download.pytorch.org/whl/cpu",)),
    )
    explained, loader, traceback = finding.detail.split("\n\n")
    assert (explained, loader, traceback.splitlines()[-1]) == (
        torchvision._OPS_EXPLAINED,
        "Loading the operators directly fails with: Failed to load '_C' extension: OSError: Could not load this "
        "library: /home/ana/cpu-env/lib/python3.11/site-packages/torchvision/_C.so",
        "RuntimeError: operator torchvision::nms does not exist",
    )


def test_torchvision_pypi_build_without_a_tag_and_operators_that_fail_silently() -> None:
    facts = scenario("torchvision-nms")
    facts = replace(facts, torchvision=replace(facts.torchvision, version="0.28.0", import_error=None,
                                               import_traceback=None))
    finding = only(torchvision.torchvision_pairing, facts)
    assert (finding.summary, finding.detail) == (
        "torchvision's C++ operators do not load (Failed to load '_C' extension: OSError: Could not load this library: "
        "/home/ana/cpu-env/lib/python3.11/site-packages/torchvision/_C.so): torchvision 0.28.0 is the PyPI build "
        "(CUDA 13.0), torch 2.13.0+cpu the CPU build",
        torchvision._OPS_EXPLAINED + "\n\nFailed to load '_C' extension: OSError: Could not load this library: "
        "/home/ana/cpu-env/lib/python3.11/site-packages/torchvision/_C.so",
    )


def test_torchvision_from_another_release() -> None:
    facts = with_vision(scenario("rtx5090-cu126"), "0.20.1+cu124", "12.4", ("torch==2.5.1",))
    assert only(torchvision.torchvision_pairing, facts) == Finding(
        code="torchvision.version-mismatch",
        severity=Severity.ERROR,
        summary="torchvision 0.20.1+cu124 belongs to torch 2.5.1; torch 2.6.0+cu126 is installed",
        detail="torch 2.6.0+cu126 was released with torchvision 0.21.0. torchvision's metadata requires torch==2.5.1.",
        fix=PAIR_126,
        evidence=("torchvision.version", "torch.version"),
    )


def test_torchvision_pin_disagrees_within_a_release() -> None:
    facts = scenario("driver470-cu121")
    facts = replace(facts, torch=replace(facts.torch, version="2.1.1+cu121"),
                    packages=tuple(replace(d, version="2.1.1+cu121") if d.name == "torch" else d for d in facts.packages))
    assert only(torchvision.torchvision_pairing, facts) == Finding(
        code="torchvision.version-mismatch",
        severity=Severity.WARNING,
        summary="torchvision 0.16.2+cu121 requires torch==2.1.2; torch 2.1.1+cu121 is installed",
        detail="pip check reports this too; the C++ operators may fail to load at the first call.",
        fix=Fix(PAIR_TEXT, ("/home/ana/venv/bin/python -m pip install torch==2.1.1+cu121 "
                            "torchvision==0.16.1+cu121 --index-url https://download.pytorch.org/whl/cu121",)),
        evidence=("packages", "torch.version"),
    )


def test_torchvision_cuda_major_mismatch_from_the_import_error_and_from_versions() -> None:
    error = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. "
             "PyTorch has CUDA Version=12.6 and torchvision has CUDA Version=11.8. Please reinstall the torchvision "
             "that matches your PyTorch install.")
    failed = with_vision(scenario("rtx5090-cu126"), "0.21.0+cu118", None, ("torch==2.6.0",), import_error=error)
    assert only(torchvision.torchvision_pairing, failed) == Finding(
        code="torchvision.cuda-mismatch",
        severity=Severity.ERROR,
        summary="torchvision 0.21.0+cu118 was built with CUDA 11.8, torch 2.6.0+cu126 with CUDA 12.6",
        detail=error,
        fix=PAIR_126,
        evidence=("torch.cuda", "torchvision.cuda"),
    )
    loaded = with_vision(scenario("rtx5090-cu126"), "0.21.0+cu118", "11.8", ("torch==2.6.0",))
    assert only(torchvision.torchvision_pairing, loaded).detail == (
        "torchvision refuses to load with a different CUDA major version than torch.")


def test_torchvision_other_cuda_minor_is_only_a_note() -> None:
    facts = with_vision(scenario("healthy-h100"), "0.29.2+cu132", "13020", ("torch (>=2.14.0)",))
    result = run(torchvision.torchvision_pairing, facts)
    assert (result.status, result.findings) == (Status.PASS, (Finding(
        code="torchvision.cuda-mismatch",
        severity=Severity.INFO,
        summary="torchvision 0.29.2+cu132 was built with CUDA 13.2, torch 2.14.1+cu130 with CUDA 13.0",
        detail="Same CUDA major version: torchvision 0.16 and later accept a different minor.",
        evidence=("torch.cuda", "torchvision.cuda"),
    ),))


def test_torchvision_passes_when_paired_and_skips_when_absent() -> None:
    assert run(torchvision.torchvision_pairing, scenario("healthy-h100")).findings == (Finding(
        code="torchvision.ok",
        severity=Severity.INFO,
        summary="torchvision 0.29.1+cu130 matches torch 2.14.1+cu130",
        evidence=("torchvision.version", "torch.version"),
        short="0.29.1+cu130",
    ),)
    result = run(torchvision.torchvision_pairing, scenario("torch-missing"))
    assert (result.status, result.findings, result.reason) == (
        Status.SKIP, (), "torchvision is not installed (it is optional)")


def test_torchvision_pin_parsing() -> None:
    assert [torchvision.pin_allows(pin, version) for pin, version in (
        ("==2.6.0", "2.6.0+cu126"), ("==2.6.0", "2.6.1"), (">=2.14.0", "2.14.1"), (">=2.14.0,<2.14.1", "2.14.1"),
        ("==2.6.*", "2.6.3"), ("~=2.6.0", "2.7.0"), ("junk", "2.6.0"))] == [True, False, True, False, True, False, None]


# ---------------------------------------------------------------- _fix

@pytest.mark.parametrize(
    "system, exe, expected",
    [
        ("Linux", "/home/ana/my venv/bin/python", "'/home/ana/my venv/bin/python' -m pip install torch==2.6.0"),
        ("Linux", "~/venv/bin/python", "~/venv/bin/python -m pip install torch==2.6.0"),
        ("Linux", "~/my venv/bin/python", "~/'my venv/bin/python' -m pip install torch==2.6.0"),
        ("Windows", "C:\\Program Files\\Python312\\python.exe",
         "& 'C:\\Program Files\\Python312\\python.exe' -m pip install torch==2.6.0"),
        ("Linux", None, "python -m pip install torch==2.6.0"),
    ],
)
def test_fix_commands_use_the_target_interpreter(system: str, exe: str | None, expected: str) -> None:
    facts = Facts(platform=PlatformFacts(system=system, python_executable=exe))
    assert _fix.pip_install(facts, ["torch==2.6.0"]) == expected


def test_fix_cuda_versions_in_every_spelling() -> None:
    assert [_fix.cuda_major_minor(v) for v in ("12.6", "12.6.3", "12060", "13020", "cu126", "cu92", "", None, "x")] == [
        (12, 6), (12, 6), (12, 6), (13, 2), (12, 6), (9, 2), None, None, None]
