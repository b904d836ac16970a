"""The facts model: everything the probes learned about a machine, as frozen dataclasses and versioned JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.facts.codec import FactsError as FactsError
from gpudoctor.facts.codec import Vocabulary, from_plain, to_plain
from gpudoctor.textsafe import json_text
from gpudoctor.facts.verify import VerifyFacts

SCHEMA_VERSION = 1


class Source(Vocabulary):
    """What the facts were read from: the value of ``Meta.source``."""

    LIVE = "live"  # probed on this machine
    FACTS = "facts"  # a facts file
    REPORT = "report"  # a JSON report (its facts)
    MARKDOWN = "markdown"  # a markdown report (its embedded facts)
    COLLECT_ENV = "collect_env"  # PyTorch's collect_env output
    PASTE = "paste"  # an issue body with no collect_env report in it


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
class Meta:
    """Where these facts came from."""

    schema: int = SCHEMA_VERSION
    gpudoctor_version: str = ""
    created: str = ""  # ISO 8601, UTC
    source: str = Source.LIVE.value  # a Source value
    redacted: bool = False


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


@dataclass(frozen=True)
class TorchDevice:
    """A device as torch numbers it (after CUDA_VISIBLE_DEVICES)."""

    index: int = 0
    name: Optional[str] = None
    compute_capability: Optional[Tuple[int, int]] = None
    total_memory_mib: Optional[int] = None
    multi_processor_count: Optional[int] = None
    uuid: Optional[str] = None
    pci_bus_id: Optional[str] = None


@dataclass(frozen=True)
class TorchFacts:
    """The torch install of the target interpreter, as its own import reports it."""

    installed: Optional[bool] = None
    version: Optional[str] = None  # "2.6.0+cu126"
    location: Optional[str] = None  # the torch package directory that was imported
    import_error: Optional[str] = None  # last line of the exception, e.g. "OSError: libcudnn.so.9: ..."
    import_traceback: Optional[str] = None
    cuda: Optional[str] = None  # torch.version.cuda
    hip: Optional[str] = None  # torch.version.hip
    cuda_compiled: Optional[bool] = None  # the binary has CUDA support
    arch_flags: Optional[Tuple[str, ...]] = None  # torch._C._cuda_getArchFlags().split()
    cudnn_version: Optional[int] = None
    cudnn_error: Optional[str] = None
    is_available: Optional[bool] = None
    init_error: Optional[str] = None  # warning or exception text from CUDA initialisation
    warnings: Tuple[str, ...] = ()  # other warnings printed at import/initialisation
    device_count: Optional[int] = None
    devices: Tuple[TorchDevice, ...] = ()
    loaded_libraries: Tuple[str, ...] = ()  # shared libraries mapped into the process
    mps_available: Optional[bool] = None
    other_locations: Tuple[str, ...] = ()  # other torch packages on sys.path (user site, conda, ...)
    timed_out: bool = False
    crashed: Optional[str] = None  # "killed by signal 11 (SIGSEGV)" and the like


@dataclass(frozen=True)
class CompanionFacts:
    """torchvision or torchaudio: version, the CUDA it was built with, and whether it imports."""

    installed: Optional[bool] = None
    version: Optional[str] = None
    location: Optional[str] = None
    cuda: Optional[str] = None  # e.g. torchvision.version.cuda
    import_error: Optional[str] = None
    import_traceback: Optional[str] = None
    ops_error: Optional[str] = None  # the C++ extension failed to load


@dataclass(frozen=True)
class Distribution:
    """An installed distribution in the target environment."""

    name: str = ""
    version: str = ""
    location: Optional[str] = None
    requires: Tuple[str, ...] = ()  # Requires-Dist lines, for torch and torchvision


@dataclass(frozen=True)
class LibraryFacts:
    """Where the dynamic loader would find CUDA libraries, besides the ones torch actually loaded."""

    ld_library_path: Tuple[str, ...] = ()
    ldconfig_cuda: Tuple[Tuple[str, str], ...] = ()  # (soname, path) from `ldconfig -p` for CUDA/cuDNN/NCCL libraries
    ld_library_path_cuda: Tuple[Tuple[str, str], ...] = ()  # (soname, path) of CUDA/cuDNN/NCCL libraries in LD_LIBRARY_PATH folders
    libcuda_paths: Tuple[str, ...] = ()  # every libcuda.so* the loader can see
    wsl_lib_dir: Optional[bool] = None  # /usr/lib/wsl/lib exists (WSL2 driver libraries)
    dll_search_dirs: Tuple[str, ...] = ()  # Windows: PATH entries and CUDA_PATH* holding CUDA DLLs
    vc_runtime_version: Optional[str] = None  # Windows: msvcp140.dll version


@dataclass(frozen=True)
class ToolkitFacts:
    """A CUDA toolkit (nvcc) on the machine, which torch wheels do not use but extension builds do."""

    nvcc_path: Optional[str] = None
    nvcc_version: Optional[str] = None  # "12.4"
    cuda_home: Optional[str] = None
    source: Optional[str] = None  # CUDA_HOME | CUDA_PATH | PATH | /usr/local/cuda


@dataclass(frozen=True)
class EnvFacts:
    """The environment variables that matter to CUDA and torch."""

    variables: Tuple[Tuple[str, str], ...] = ()  # (name, value) in name order; secrets are "set"
    path_cuda_entries: Tuple[str, ...] = ()  # PATH entries that mention CUDA or NVIDIA

    def get(self, name: str) -> Optional[str]:
        for key, value in self.variables:
            if key == name:
                return value
        return None

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.variables)


@dataclass(frozen=True)
class Facts:
    """Everything known about one machine and one Python environment."""

    meta: Meta = field(default_factory=Meta)
    platform: PlatformFacts = field(default_factory=PlatformFacts)
    driver: DriverFacts = field(default_factory=DriverFacts)
    gpus: Tuple[Gpu, ...] = ()
    torch: TorchFacts = field(default_factory=TorchFacts)
    torchvision: CompanionFacts = field(default_factory=CompanionFacts)
    torchaudio: CompanionFacts = field(default_factory=CompanionFacts)
    packages: Tuple[Distribution, ...] = ()
    libraries: LibraryFacts = field(default_factory=LibraryFacts)
    toolkit: ToolkitFacts = field(default_factory=ToolkitFacts)
    env: EnvFacts = field(default_factory=EnvFacts)
    verify: Optional[VerifyFacts] = None
    extra: Tuple[Tuple[str, str], ...] = ()  # free-form (key, value) notes from parsers and probes
    probe_errors: Tuple[Tuple[str, str], ...] = ()  # (section, reason) for what could not be collected
    inferred: Tuple[str, ...] = ()  # fact paths whose values were inferred, not observed

    def probe_error(self, section: str) -> Optional[str]:
        for key, reason in self.probe_errors:
            if key == section:
                return reason
        return None

    def is_inferred(self, path: str) -> bool:
        return any(path == item or path.startswith(item + ".") for item in self.inferred)

    def package(self, name: str) -> Optional[Distribution]:
        wanted = canonicalize_name(name)
        for dist in self.packages:
            if canonicalize_name(dist.name) == wanted:
                return dist
        return None

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = to_plain(self)
        return plain

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json_text(json.dumps(self.to_dict(), indent=indent, sort_keys=False, ensure_ascii=False))

    @classmethod
    def from_dict(cls, data: Any) -> Facts:
        if not isinstance(data, dict):
            raise FactsError("facts must be a JSON object")
        meta = data.get("meta")
        schema = meta.get("schema", 1) if isinstance(meta, dict) else 1
        if not isinstance(schema, int) or isinstance(schema, bool):
            raise FactsError(f"facts schema must be an integer, got {schema!r}")
        if schema > SCHEMA_VERSION:
            raise FactsError(
                f"facts schema {schema} is newer than this gpudoctor understands ({SCHEMA_VERSION}); "
                "upgrade gpudoctor to read it"
            )
        try:
            facts: Facts = from_plain(cls, data, "facts")
            return facts
        except FactsError:
            raise
        except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
            raise FactsError(f"facts do not match the schema: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> Facts:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FactsError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
        return cls.from_dict(data)
