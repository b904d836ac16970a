"""Linux probe: kernel module, /dev nodes, fabric manager, WSL, containers and where the loader finds CUDA libraries."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from gpudoctor.facts import FabricManager
from gpudoctor.probes.command import Runner, find_tool, run_command

TOOL_TIMEOUT = 10.0
SBIN = ("/sbin", "/usr/sbin", "/usr/bin", "/bin")
CUDA_LIBRARY_PREFIXES = (
    "libcuda.so", "libcudart", "libcudnn", "libcublas", "libnccl", "libnvrtc", "libcufft", "libcurand",
    "libcusolver", "libcusparse", "libnvjitlink", "libcupti", "libnvtoolsext", "libnvtx3interop", "libcufile",
    "libnvshmem", "libnvidia-ml",
)
_MODULE_VERSION = re.compile(r"Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)*)")
_LDCONFIG = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S.*?)\s*$")
_FM_VERSION = re.compile(r"version is\s*:?\s*(\d+\.\d+(?:\.\d+)*)", re.IGNORECASE)
_NVML_FILE = re.compile(r"libnvidia-ml\.so\.(\d+\.\d+(?:\.\d+)*)$")

Finder = Callable[[str], Optional[str]]


@dataclass(frozen=True)
class LinuxResult:
    """Everything this probe read; ``extra`` holds (key, value) notes, ``errors`` (section, reason) pairs."""

    kernel_module_version: Optional[str] = None
    kernel_modules: Tuple[str, ...] = ()
    dev_nvidia: Optional[Tuple[str, ...]] = None
    fabric_manager: Optional[str] = None
    fabric_manager_version: Optional[str] = None
    wsl: Optional[int] = None
    wsl_lib_dir: Optional[bool] = None
    container: Optional[str] = None
    ldconfig_cuda: Tuple[Tuple[str, str], ...] = ()
    ld_library_path_cuda: Tuple[Tuple[str, str], ...] = ()
    libcuda_paths: Tuple[str, ...] = ()
    extra: Tuple[Tuple[str, str], ...] = ()
    errors: Tuple[Tuple[str, str], ...] = ()


def is_cuda_library(name: str) -> bool:
    lower = name.lower()
    return lower.startswith(CUDA_LIBRARY_PREFIXES) and ".so" in lower


def _read(root: Path, path: str) -> Optional[str]:
    try:
        return (root / path.lstrip("/")).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _listdir(folder: Path) -> List[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def kernel_module_version(text: Optional[str]) -> Optional[str]:
    """"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  ..." -> "550.54.14"."""
    match = _MODULE_VERSION.search(text or "")
    return match.group(1) if match else None


def gpu_modules(text: str) -> Tuple[str, ...]:
    names = {line.split()[0] for line in text.splitlines() if line.strip()}
    return tuple(sorted(n for n in names if n.startswith("nvidia") or n == "nouveau"))


def wsl_version(proc_version: Optional[str]) -> Optional[int]:
    lower = (proc_version or "").lower()
    if "microsoft" not in lower:
        return None
    return 2 if ("wsl2" in lower or "microsoft-standard" in lower) else 1


def container_kind(root: Path, environ: Mapping[str, str]) -> Optional[str]:
    """docker | podman | kubernetes | lxc | apptainer, or None outside a container."""
    if environ.get("APPTAINER_CONTAINER") or environ.get("SINGULARITY_CONTAINER") or (root / ".singularity.d").exists():
        return "apptainer"
    if environ.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if (root / "run/.containerenv").exists():
        return "podman"
    if (root / ".dockerenv").exists():
        return "docker"
    cgroup = (_read(root, "/proc/1/cgroup") or "") + (_read(root, "/proc/self/cgroup") or "")
    if "kubepods" in cgroup:
        return "kubernetes"
    if "docker" in cgroup or "containerd" in cgroup:
        return "docker"
    if "lxc" in cgroup:
        return "lxc"
    declared = environ.get("container", "")
    return declared if declared in ("docker", "podman", "lxc") else None


def dev_nodes(root: Path) -> Tuple[str, ...]:
    """/dev/nvidia* nodes, and /dev/dxg (the GPU of WSL2), as absolute paths."""
    return tuple(f"/dev/{n}" for n in _listdir(root / "dev") if n.startswith("nvidia") or n == "dxg")


def parse_ldconfig(stdout: str) -> Tuple[Tuple[str, str], ...]:
    """(soname, path) of the CUDA libraries in ``ldconfig -p`` output, this machine's word size only."""
    entries = [m.groups() for m in map(_LDCONFIG.match, stdout.splitlines()) if m and is_cuda_library(m.group(1))]
    if any("64" in flags for _, flags, _ in entries):
        entries = [e for e in entries if "64" in e[1]]
    return tuple(dict.fromkeys((name, path) for name, _, path in entries))


def folder_libraries(root: Path, folders: Sequence[str]) -> Tuple[Tuple[str, str], ...]:
    """(file name, path) of CUDA libraries inside ``folders`` (LD_LIBRARY_PATH entries)."""
    found: List[Tuple[str, str]] = []
    for folder in folders:
        for name in _listdir(root / folder.lstrip("/")):
            if is_cuda_library(name):
                found.append((name, os.path.join(folder, name)))
    return tuple(dict.fromkeys(found))


def nvidia_pci(root: Path) -> Optional[str]:
    """NVIDIA GPUs (class 03xx) and NVSwitches (0680) on the PCI bus: "0000:01:00.0 10de:2684 0300; ..."."""
    base = root / "sys/bus/pci/devices"
    if not base.is_dir():
        return None
    found = []
    for address in _listdir(base):
        fields = ("vendor", "device", "class")
        vendor, device, klass = ((_read(base, f"{address}/{f}") or "").strip().lower() for f in fields)
        if vendor == "0x10de" and (klass[2:4] == "03" or klass[2:6] == "0680"):
            found.append(f"{address} 10de:{device[2:]} {klass[2:6]}")
    return "; ".join(found)


def _fabric_manager(run: Runner, find: Finder) -> Tuple[Optional[str], Optional[str]]:
    state: Optional[str] = None
    systemctl = find("systemctl")
    if systemctl:
        argv = [systemctl, "show", "--property=LoadState,ActiveState", "nvidia-fabricmanager.service"]
        done = run(argv, TOOL_TIMEOUT)
        props: Dict[str, str] = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        if done.ok and props.get("LoadState"):
            if props["LoadState"] == "not-found":
                state = FabricManager.MISSING.value
            elif props.get("ActiveState") == "active":
                state = FabricManager.RUNNING.value
            else:
                state = FabricManager.STOPPED.value
    version: Optional[str] = None
    binary = find("nv-fabricmanager")
    if binary:
        match = _FM_VERSION.search(run([binary, "--version"], TOOL_TIMEOUT).output)
        version = match.group(1) if match else None
    return state, version


def _nvml_library_version(root: Path, ldconfig: Tuple[Tuple[str, str], ...]) -> Optional[str]:
    for name, path in ldconfig:
        if name == "libnvidia-ml.so.1":
            match = _NVML_FILE.search(os.path.realpath(root / path.lstrip("/")))
            if match:
                return match.group(1)
    return None


def probe_linux(
    root: Path = Path("/"),
    environ: Optional[Mapping[str, str]] = None,
    run: Runner = run_command,
    find: Optional[Finder] = None,
) -> LinuxResult:
    """Read /proc, /dev and /sys under ``root``, and ask ldconfig and systemd; never raises for a missing file."""
    env = os.environ if environ is None else environ
    finder: Finder = find if find is not None else (lambda name: find_tool(name, env, SBIN))
    errors: List[Tuple[str, str]] = []
    modules_text = _read(root, "/proc/modules")
    if modules_text is None:
        errors.append(("driver", "/proc/modules is not readable, so the loaded kernel modules are unknown"))
    modules = gpu_modules(modules_text or "")
    fabric, fabric_version = _fabric_manager(run, finder) if "nvidia" in modules else (None, None)
    ldconfig: Tuple[Tuple[str, str], ...] = ()
    tool = finder("ldconfig")
    if tool:
        done = run([tool, "-p"], TOOL_TIMEOUT)
        if done.ok:
            ldconfig = parse_ldconfig(done.stdout)
        else:
            said = (done.error or done.output or f"exit status {done.returncode}").splitlines()[0]
            errors.append(("libraries", f"ldconfig -p failed: {said}"))
    ld_path = [e for e in env.get("LD_LIBRARY_PATH", "").split(":") if e]
    in_ld_path = folder_libraries(root, ld_path)
    wsl_dir = root / "usr/lib/wsl/lib"
    libcuda = [p for n, p in ldconfig + in_ld_path if n.lower().startswith("libcuda.so")]
    libcuda += [f"/usr/lib/wsl/lib/{n}" for n in _listdir(wsl_dir) if n.startswith("libcuda.so")]
    extra: List[Tuple[str, str]] = []
    nvml_version = _nvml_library_version(root, ldconfig)
    if nvml_version:
        extra.append(("nvml_library_version", nvml_version))
    pci = nvidia_pci(root)
    if pci is not None:
        extra.append(("nvidia_pci", pci))
    return LinuxResult(
        kernel_module_version=kernel_module_version(_read(root, "/proc/driver/nvidia/version")),
        kernel_modules=modules,
        dev_nvidia=dev_nodes(root),
        fabric_manager=fabric,
        fabric_manager_version=fabric_version,
        wsl=wsl_version(_read(root, "/proc/version")),
        wsl_lib_dir=wsl_dir.is_dir(),
        container=container_kind(root, env),
        ldconfig_cuda=ldconfig,
        ld_library_path_cuda=in_ld_path,
        libcuda_paths=tuple(dict.fromkeys(libcuda)),
        extra=tuple(extra),
        errors=tuple(errors),
    )
