"""The software side of the facts: torch and its companions, distributions, CUDA libraries, toolkit and environment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


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
