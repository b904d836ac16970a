"""Turning one report's fields, signals and packages into the observed facts (nothing inferred here)."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from gpudoctor.facts import (
    CompanionFacts, DriverFacts, DriverSource, Gpu, NvmlError, PlatformFacts, ToolkitFacts, TorchDevice, TorchFacts,
)
from gpudoctor.parsers.collect_env.packages import Packages, conda_build_cuda, local_cuda
from gpudoctor.parsers.collect_env.text import RawReport, join_wrapped, known, yes_no
from gpudoctor.parsers.collect_env.warnings import Signals

_TORCH_DIR = re.compile(r"((?:[A-Za-z]:)?[\\/][^\"'\n]*?[\\/](?:site|dist)-packages[\\/]torch)[\\/]")
_ARCH = r"(x86_64|aarch64|arm64|AMD64|amd64|ppc64le|s390x|armv7l|i686|i386)"


def _cuda_mm(value: Optional[str]) -> Optional[str]:
    """'12.1' -> '12.1', '9.0.176' -> '9.0'; None for anything that is not a CUDA version."""
    value = known(value)
    if value is None:
        return None
    m = re.match(r"^V?(\d+)\.(\d+)", value)
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def platform_facts(raw: RawReport) -> PlatformFacts:
    os_text = known(join_wrapped(raw.fields.get("os") or raw.fields.get("tpl_os") or []))
    plat = known(join_wrapped(raw.fields.get("python_platform") or [], sep=""))
    system = machine = release = distro = None
    if os_text:
        m = re.match(r"^(.*?)\s*\(" + _ARCH + r"\)\s*$", os_text)
        distro, machine = (m.group(1), m.group(2)) if m else (os_text, None)
        low = os_text.lower()
        if "windows" in low:
            system = "Windows"
        elif low.startswith(("macos", "mac os", "darwin", "os x")):
            system = "Darwin"
        elif distro:
            system = "Linux"
    if plat:
        m = re.match(r"^Linux-(.+?)-" + _ARCH + r"(?:-with-.*)?$", plat)
        if m:
            system, release, machine = "Linux", m.group(1), machine or m.group(2)
        elif plat.startswith("Windows-"):
            system = "Windows"
            m = re.match(r"^Windows-[^-]+-([\d.]+)", plat)
            release = m.group(1) if m else None
        elif plat.startswith(("macOS-", "Darwin-")):
            system = "Darwin"
            m = re.match(r"^(?:macOS|Darwin)-([\d.]+)-" + _ARCH, plat)
            if m:
                release, machine = m.group(1), machine or m.group(2)
    if machine is None and raw.cpu:
        for line in raw.cpu:
            m = re.match(r"^Architecture\s*:\s*" + _ARCH + r"\s*$", line)
            if m:
                machine = m.group(1)
    wsl = None
    if release and system == "Linux":
        if re.search(r"microsoft-standard|WSL2", release, re.I):
            wsl = 2
        elif re.search(r"-Microsoft$", release):
            wsl = 1
    libc = known(raw.value("libc"))
    if libc:
        m = re.match(r"^(glibc|musl)[- ]?([\d.]+)$", libc)
        libc = f"{m.group(1)} {m.group(2)}" if m else (None if libc.strip("- ") == "" else libc)
    py = known(join_wrapped(raw.fields.get("python_version") or []))
    python_version = None
    if py:
        m = re.match(r"^(\d+\.\d+(?:\.\d+)?)", py)
        python_version = m.group(1) if m else None
        # Windows builds of CPython name their CPU in sys.version: "[MSC v.1938 64 bit (AMD64)]".
        msc = re.search(r"\[MSC v\.\d+ (?:64|32) bit \((AMD64|ARM64)\)\]", py)
        if machine is None and msc:
            machine = msc.group(1)
    return PlatformFacts(
        system=system, release=release, machine=machine, distro=distro, libc=libc,
        python_version=python_version, wsl=wsl,
    )


def gpu_entries(raw: RawReport) -> Tuple[Tuple[Gpu, ...], Tuple[TorchDevice, ...], List[Tuple[str, str]]]:
    """NVIDIA GPUs from the nvidia-smi -L lines, or torch devices when collect_env asked torch (ROCm)."""
    lines = [line for line in raw.fields.get("gpus") or [] if known(line)]
    gpus: List[Gpu] = []
    notes: List[Tuple[str, str]] = []
    mig: List[List[str]] = []
    for line in lines:
        m = re.match(r"^GPU\s*(\d+)\s*:\s*(.+?)\s*(?:\(UUID:\s*([^)]*)\))?\s*$", line)
        if m:
            gpus.append(Gpu(index=int(m.group(1)), name=m.group(2).strip(), uuid=(m.group(3) or None)))
            mig.append([])
            continue
        m = re.match(r"^MIG\s+(\S+)\s+Device\s+(\d+)\s*:?\s*(?:\(UUID:\s*([^)]*)\))?", line)
        if m and gpus:
            mig[-1].append(m.group(3) or f"MIG {m.group(1)} Device {m.group(2)}")
            continue
        if gpus and not re.match(r"^(MIG|GPU)\b", line):
            last = gpus[-1]
            gpus[-1] = Gpu(index=last.index, name=f"{last.name} {line.strip()}", uuid=last.uuid)
    devices: List[TorchDevice] = []
    if not gpus and lines:
        name = join_wrapped(lines)
        if known(raw.value("rocm_build")) or re.search(r"\(gfx\w+", name) or re.search(r"\b(AMD|Radeon|Instinct)\b", name):
            m = re.match(r"^(.*?)\s*\((gfx[^)]*)\)\s*$", name)
            devices.append(TorchDevice(index=0, name=m.group(1) if m else name))
            if m:
                notes.append(("torch.devices.0.gcn_arch", m.group(2)))
        else:
            gpus.append(Gpu(index=0, name=name))
            mig.append([])
    out = []
    for gpu, migs in zip(gpus, mig):
        if migs:
            gpu = Gpu(index=gpu.index, name=gpu.name, uuid=gpu.uuid, mig_mode=True, mig_devices=tuple(migs))
        out.append(gpu)
    return tuple(out), tuple(devices), notes


def driver_facts(raw: RawReport, sig: Signals, gpu_count: Optional[int]) -> DriverFacts:
    version = known(raw.value("driver"))
    if version:
        m = re.match(r"^(\d+(?:\.\d+)+)", version)
        version = m.group(1) if m else None
    version = version or sig.smi_driver
    nvml_error = None
    if sig.nvml_error_text:
        mismatch = "mismatch" in sig.nvml_error_text.lower()
        nvml_error = (NvmlError.VERSION_MISMATCH if mismatch else NvmlError.OTHER).value
    return DriverFacts(
        source=DriverSource.NVIDIA_SMI.value if version else None,
        version=version,
        cuda_version=sig.driver_cuda,
        nvml_error=nvml_error,
        nvml_error_text=sig.nvml_error_text,
        smi_error_text=sig.smi_error,
        gpu_count=gpu_count,
    )


def torch_facts(raw: RawReport, sig: Signals, pkgs: Packages, conda_torch: bool) -> TorchFacts:
    field_version = raw.value("torch_version")
    version = known(field_version) or known(raw.value("tpl_torch_version"))
    pip_version = pkgs.pip_version("torch")
    conda = pkgs.conda_package("torch")
    if version is None:
        version = pip_version or (conda.version if conda else None)
    version = version.split()[0] if version else None
    installed: Optional[bool] = True if version or sig.arch_flags or sig.device_ccs else None
    if version is None and pkgs.pip_collected and (pkgs.conda_collected or not pkgs.conda):
        installed = False
    cuda_field = raw.value("cuda_build")
    cuda = _cuda_mm(cuda_field)
    hip = known(raw.value("rocm_build"))
    hip = hip if hip and re.match(r"^\d", hip) else None
    tag = local_cuda(version)
    if conda_torch and conda and not tag:
        tag = conda_build_cuda(conda.build)
    compiled: Optional[bool] = None
    if cuda or hip:
        compiled = True
    elif sig.arch_flags:  # torch printed the GPU architectures it was built for: a CUDA build
        compiled = True
    elif tag == "cpu" or (version and "+xpu" in version):
        compiled = False
    elif cuda_field is not None and known(field_version) and cuda_field.strip().lower() in ("none", "could not collect"):
        compiled = False
    available = yes_no(raw.value("cuda_available"))
    devices: Tuple[TorchDevice, ...] = ()
    if sig.device_ccs:
        devices = tuple(
            TorchDevice(index=i, name=name, compute_capability=cc) for i, (name, cc) in sorted(sig.device_ccs.items())
        )
    if sig.import_error and not known(field_version) and _TORCH_DIR.search(sig.import_error):
        installed = True  # the error names a file inside torch's own folder: torch is there but does not load
    return TorchFacts(
        installed=installed,
        version=version,
        import_error=sig.import_error if (installed is not True or not known(field_version)) else None,
        cuda=cuda,
        hip=hip,
        cuda_compiled=compiled,
        arch_flags=sig.arch_flags,
        is_available=available,
        init_error=sig.init_error,
        warnings=tuple(sig.warnings),
        devices=devices,
    )


def companion_facts(name: str, pkgs: Packages, libraries_read: bool, sig: Signals) -> CompanionFacts:
    version = pkgs.pip_version(name)
    conda = pkgs.conda_package(name)
    if version is None and conda is not None:
        version = conda.version
    installed: Optional[bool] = True if version else (False if libraries_read and pkgs.pip_collected else None)
    if name == "torchvision":
        error, ops, cuda = sig.torchvision_error, sig.torchvision_ops_error, sig.torchvision_cuda
    else:
        error, ops, cuda = sig.torchaudio_error, None, None
    if error and installed is None:
        installed = True
    return CompanionFacts(installed=installed, version=version, cuda=cuda, import_error=error, ops_error=ops)


def toolkit_facts(raw: RawReport) -> ToolkitFacts:
    nvcc = _cuda_mm(raw.value("cuda_runtime"))
    return ToolkitFacts(nvcc_version=nvcc, source="PATH" if nvcc else None)
