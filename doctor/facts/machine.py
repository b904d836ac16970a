"""The machine side of the facts: operating system, GPUs and the NVIDIA driver, with their closed vocabularies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.facts.codec import Vocabulary


class NvmlError(Vocabulary):
    """Why NVML could not initialise: the value of ``DriverFacts.nvml_error``."""

    LIBRARY_NOT_FOUND = "library_not_found"
    DRIVER_NOT_LOADED = "driver_not_loaded"
    VERSION_MISMATCH = "version_mismatch"
    NO_PERMISSION = "no_permission"
    OTHER = "other"


class DriverSource(Vocabulary):
    """What the driver facts were read from: the value of ``DriverFacts.source``."""

    NVML = "nvml"
    NVIDIA_SMI = "nvidia-smi"
    PROC = "proc"  # /proc/driver/nvidia/version only


class FabricManager(Vocabulary):
    """The NVSwitch fabric manager service's state: the value of ``DriverFacts.fabric_manager``."""

    RUNNING = "running"
    STOPPED = "stopped"
    MISSING = "missing"  # not installed


@dataclass(frozen=True)
class PlatformFacts:
    """The operating system, CPU architecture and target Python."""

    system: Optional[str] = None  # Linux | Windows | Darwin
    release: Optional[str] = None  # kernel release
    machine: Optional[str] = None  # x86_64 | aarch64 | AMD64 | arm64
    distro: Optional[str] = None  # "Ubuntu 22.04.4 LTS"
    libc: Optional[str] = None  # "glibc 2.35"
    python_version: Optional[str] = None  # of the target interpreter
    python_executable: Optional[str] = None
    python_implementation: Optional[str] = None
    wsl: Optional[int] = None  # 1 or 2 under WSL, else None
    container: Optional[str] = None  # docker | podman | kubernetes | lxc | apptainer | None
    conda_env: Optional[str] = None
    virtualenv: Optional[bool] = None
    dev_nvidia: Optional[Tuple[str, ...]] = None  # /dev/nvidia* nodes present (Linux); None when not looked
    microsoft_store_python: Optional[bool] = None  # Windows: a Python from the Microsoft Store
    installer: Optional[str] = None  # what manages the target environment: an Installer value (installers.py)
    installer_evidence: Optional[str] = None  # what showed it ("conda-meta/ in the prefix", "uv.lock beside pyproject.toml")
    torch_from_conda: Optional[bool] = None  # a conda prefix whose conda-meta/ records pytorch; None: not conda


@dataclass(frozen=True)
class GpuProcess:
    """A process that holds memory on a GPU."""

    pid: int = 0
    name: Optional[str] = None
    used_mib: Optional[int] = None


@dataclass(frozen=True)
class Gpu:
    """One physical GPU as NVML (or nvidia-smi) sees it, in NVML order."""

    index: int = 0
    name: Optional[str] = None
    uuid: Optional[str] = None
    serial: Optional[str] = None
    pci_bus_id: Optional[str] = None
    compute_capability: Optional[Tuple[int, int]] = None
    memory_total_mib: Optional[int] = None
    memory_used_mib: Optional[int] = None
    compute_mode: Optional[str] = None  # default | exclusive_thread | prohibited | exclusive_process
    persistence_mode: Optional[bool] = None
    mig_mode: Optional[bool] = None  # current MIG mode
    mig_devices: Tuple[str, ...] = ()  # MIG device UUIDs when MIG is on
    pcie_gen_current: Optional[int] = None
    pcie_gen_max: Optional[int] = None
    pcie_width_current: Optional[int] = None
    pcie_width_max: Optional[int] = None
    utilization_percent: Optional[int] = None
    temperature_c: Optional[int] = None
    ecc_mode: Optional[bool] = None
    ecc_uncorrected_volatile: Optional[int] = None
    ecc_uncorrected_aggregate: Optional[int] = None
    retired_pages_pending: Optional[bool] = None
    remapped_rows_pending: Optional[bool] = None
    remapped_rows_failure: Optional[bool] = None
    throttle_reasons: Tuple[str, ...] = ()  # e.g. ("hw_thermal_slowdown", "sw_power_cap")
    processes: Tuple[GpuProcess, ...] = ()


@dataclass(frozen=True)
class DriverFacts:
    """The NVIDIA driver: user-space library, kernel module and how they were read."""

    source: Optional[str] = None  # a DriverSource value
    version: Optional[str] = None  # "550.54.14"
    cuda_version: Optional[str] = None  # the highest CUDA the driver supports, "12.4"
    kernel_module_version: Optional[str] = None  # from /proc/driver/nvidia/version
    nvml_error: Optional[str] = None  # an NvmlError value
    nvml_error_text: Optional[str] = None
    smi_error_text: Optional[str] = None
    kernel_modules: Tuple[str, ...] = ()  # loaded GPU-related kernel modules (nvidia, nvidia_uvm, nouveau, ...)
    fabric_manager: Optional[str] = None  # a FabricManager value; None: unknown or not applicable
    fabric_manager_version: Optional[str] = None  # "550.54.14" from `nv-fabricmanager --version`, when installed
    gpu_count: Optional[int] = None

    @property
    def nvml_failure(self) -> Optional[NvmlError]:
        """``nvml_error`` as an NvmlError; None when NVML initialised or the name is from another version."""
        return NvmlError.parse(self.nvml_error)
