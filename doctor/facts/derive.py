"""What the error texts in the facts say, classified once into typed values that checks read instead of regexes.

The values are computed from the facts themselves, so live facts, facts files of any age and pasted reports
get the same classification; nothing is stored in the facts file.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import List, Optional, Set, Tuple

from gpudoctor.facts import Facts

# torch: "The NVIDIA driver on your system is too old (found version 11040)": the CUDA version the driver supports.
_DRIVER_TOO_OLD = re.compile(r"driver on your system is too old \(found version (\d+)\)", re.IGNORECASE)
# The shared library or DLL an import error names, as the loader printed it, most specific first.
_FAILED_FILE = (
    re.compile(r"([\w.+-]+\.so(?:\.[\w]+)*): cannot open shared object file"),
    re.compile(r"Error loading \"([^\"]+)\""),
    re.compile(r"([^\s:'\"]+\.so[\w.]*): undefined symbol: (\S+)"),
    re.compile(r"Could not load library ([\w.+-]+)"),
)
_WINERROR = re.compile(r"\[WinError (126|127|1114)\]")  # Windows' codes for a DLL that cannot be loaded
_DLL = _FAILED_FILE[1]
# nvidia-smi / NVML on a driver upgraded without a reboot: "Failed to initialize NVML: Driver/library version
# mismatch\nNVML library version: 550.54"
NVML_LIBRARY_VERSION = re.compile(r"NVML library version:\s*([\d.]+)")
# The loader's and cuDNN's words for a library torch could not use.
_LIB_ERRORS = re.compile(r"cuDNN version incompatibility|undefined symbol|cannot open shared object file|Unable to load any of")
_CUDNN_INCOMPAT = re.compile(r"compiled\s+against \(([\d, ]+)\) but found runtime version \(([\d, ]+)\)")
_UNDEFINED = re.compile(r"(/[^\s:'\"]+?\.so[\w.]*): undefined symbol: ([^\s,]+)")
_CANNOT_OPEN = re.compile(r"([^\s:'\"{},]+\.so[\w.]*): cannot open shared object file")
_UNABLE = re.compile(r"Unable to load any of \{([^}]*)\}")
# torchvision's own refusal to pair with a torch of another CUDA.
_CUDA_PAIR = re.compile(
    r"PyTorch has CUDA Version\s*=\s*(\d+(?:\.\d+)*) and torchvision has CUDA Version\s*=\s*(\d+(?:\.\d+)*)")
# The unversioned libcuda.so, which WSL keeps in /usr/lib/wsl/lib, out of the loader's reach.
_LIBCUDA_UNOPENED = re.compile(r"libcuda\.so: cannot open shared object file")
# CUDA errors 803/804 and their words: the CUDA in use is newer than the driver (forward compatibility failed).
_FORWARD_COMPAT = re.compile(r"Error (80[34])|forward compatibility was attempted|unsupported display driver / cuda driver")
# torch's warning that a GPU's architecture is not in the build, and CUDA's error for a kernel with no image for it.
_CAPABILITY_REFUSED = re.compile(r"capability (sm_\d+) is not compatible")
_NO_KERNEL_IMAGE = "no kernel image is available"
_MAX_REFUSED_ARCHS = 64  # distinct architectures kept from hostile texts; a machine has a handful
# The shell's words for an nvidia-smi that is not installed (bash, cmd, PowerShell): no driver is installed here.
_SMI_MISSING = re.compile(r"nvidia-smi: (?:command )?not found|'nvidia-smi' is not recognized|"
                          r"The term 'nvidia-smi' is not recognized")
# CUDA's words for a GPU another process holds exclusively or that is set to Prohibited compute mode.
_BUSY = "busy or unavailable"


@dataclass(frozen=True)
class KernelRefusal:
    """One of torch's texts that refuses GPU architectures: the text, the sm_XY it names, or every GPU."""

    text: str  # stripped
    archs: Tuple[str, ...] = ()  # "sm_86" of "capability sm_86 is not compatible"
    every_gpu: bool = False  # "no kernel image is available": names no architecture, so it holds for any GPU

    def refuses(self, arch: str) -> bool:
        """Whether this text says the build has no kernels for ``arch`` ("sm_86")."""
        return self.every_gpu or arch in self.archs


def cuda_of_found_version(number: int) -> str:
    """CUDA's version number as torch prints it (11040) as a version string ("11.4")."""
    return f"{number // 1000}.{(number % 1000) // 10}"


def _dotted(text: str) -> str:
    return ".".join(part.strip() for part in text.split(","))


def _basename(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


def failed_file(error: str) -> Optional[str]:
    """The shared library or DLL named in an import error, as the loader printed it."""
    for pattern in _FAILED_FILE:
        match = pattern.search(error)
        if match:
            return match.group(1)
    return None


@dataclass(frozen=True)
class Derived:
    """Typed readings of the facts' error texts."""

    # The CUDA version number in torch's "driver on your system is too old (found version 11040)"; None if absent.
    driver_found_version: Optional[int] = None
    # The library or DLL that ``import torch`` failed to load, from its error, else from its traceback.
    import_failed_file: Optional[str] = None
    # Windows' error code for a DLL ``import torch`` could not load ("126", "127" or "1114"), and that DLL's path.
    import_winerror: Optional[str] = None
    import_dll: Optional[str] = None
    # The user-space NVML library version the driver's error texts name.
    nvml_library_version: Optional[str] = None
    # From every text torch left (import error and traceback, CUDA init error, cuDNN error, warnings):
    library_error: bool = False  # a library could not be opened, lacked a symbol, or cuDNN did not match
    cudnn_compiled: Optional[str] = None  # "9.1.0" of "compiled against (9, 1, 0) but found runtime version (8, 9, 2)"
    cudnn_runtime: Optional[str] = None  # "8.9.2" of the same
    undefined_symbol_libraries: Tuple[str, ...] = ()  # paths of libraries that lacked a symbol, in order
    failed_libraries: Tuple[str, ...] = ()  # file names of libraries that could not be opened, first seen first
    # (torch's CUDA, torchvision's CUDA) from torchvision's import error "PyTorch has CUDA Version=11.8 and
    # torchvision has CUDA Version=12.1".
    torchvision_cuda_pair: Optional[Tuple[str, str]] = None
    # From torch's import error, CUDA init error and warnings: the unversioned libcuda.so could not be opened, and
    # the words of a CUDA newer than the driver ("Error 804", "forward compatibility was attempted", ...).
    libcuda_so_unopened: bool = False
    forward_compat_error: Optional[str] = None
    # torch's warnings and CUDA init error that refuse architectures, in order; a text is kept only while it names
    # an architecture no earlier one did, and none is kept after one that refuses every GPU.
    kernel_refusals: Tuple[KernelRefusal, ...] = ()
    # CUDA said the GPU is "busy or unavailable" (init error or any verify error; case-insensitive).
    gpu_busy: bool = False
    # The driver's texts say nvidia-smi is not installed.
    smi_missing: bool = False

    @property
    def driver_found_cuda(self) -> Optional[str]:
        """``driver_found_version`` as a CUDA version string ("11.4")."""
        return None if self.driver_found_version is None else cuda_of_found_version(self.driver_found_version)

    def kernel_refusal(self, arch: str) -> Optional[str]:
        """The first of torch's texts that refuses ``arch`` ("sm_86"), stripped; None if none does."""
        return next((r.text for r in self.kernel_refusals if r.refuses(arch)), None)


def _kernel_refusals(texts: Tuple[str, ...]) -> Tuple[KernelRefusal, ...]:
    kept: List[KernelRefusal] = []
    seen: Set[str] = set()
    for text in texts:
        every = _NO_KERNEL_IMAGE in text
        archs: List[str] = []
        for match in _CAPABILITY_REFUSED.finditer(text):
            if len(seen) >= _MAX_REFUSED_ARCHS:
                break
            if match.group(1) not in seen:
                seen.add(match.group(1))
                archs.append(match.group(1))
        if every or archs:
            kept.append(KernelRefusal(text.strip(), tuple(archs), every))
        if every:
            break
    return tuple(kept)


def _busy(facts: Facts) -> bool:
    texts = [facts.torch.init_error]
    if facts.verify is not None:
        texts += [facts.verify.smoke_error, facts.verify.worker_error] + [r.error for r in facts.verify.runs]
    return any(_BUSY in t.lower() for t in texts if t)


def classify(facts: Facts) -> Derived:
    """Read the facts' error texts; ``derived`` caches this per facts object."""
    torch = facts.torch
    found = _DRIVER_TOO_OLD.search(torch.init_error or "")
    failed = failed_file((torch.import_error or "").strip()) or failed_file(torch.import_traceback or "")
    imported = "\n".join(x for x in (torch.import_error, torch.import_traceback) if x)
    winerror = _WINERROR.search(imported)
    dll = _DLL.search(imported)
    driver_texts = "\n".join(t for t in (facts.driver.nvml_error_text, facts.driver.smi_error_text) if t)
    nvml = NVML_LIBRARY_VERSION.search(driver_texts)
    texts = "\n".join(x for x in (torch.import_error, torch.import_traceback, torch.init_error, torch.cudnn_error,
                                  *torch.warnings) if x)
    incompat = _CUDNN_INCOMPAT.search(texts)
    pair = _CUDA_PAIR.search((facts.torchvision.import_error or "").strip())
    torch_texts = "\n".join(x for x in (torch.import_error, torch.init_error, *torch.warnings) if x)
    forward = _FORWARD_COMPAT.search(torch_texts)
    refusing = torch.warnings + ((torch.init_error,) if torch.init_error else ())
    unopened = [_basename(m.group(1)) for m in _CANNOT_OPEN.finditer(texts)]
    unopened += [m.group(1).split(",")[0].strip() for m in _UNABLE.finditer(texts)]
    return Derived(driver_found_version=int(found.group(1)) if found else None, import_failed_file=failed,
                   import_winerror=winerror.group(1) if winerror else None, import_dll=dll.group(1) if dll else None,
                   nvml_library_version=nvml.group(1) if nvml else None,
                   library_error=_LIB_ERRORS.search(texts) is not None,
                   cudnn_compiled=_dotted(incompat.group(1)) if incompat else None,
                   cudnn_runtime=_dotted(incompat.group(2)) if incompat else None,
                   undefined_symbol_libraries=tuple(m.group(1) for m in _UNDEFINED.finditer(texts)),
                   failed_libraries=tuple(dict.fromkeys(unopened)),
                   torchvision_cuda_pair=(pair.group(1), pair.group(2)) if pair else None,
                   libcuda_so_unopened=_LIBCUDA_UNOPENED.search(torch_texts) is not None,
                   forward_compat_error=forward.group(0) if forward else None,
                   kernel_refusals=_kernel_refusals(refusing), gpu_busy=_busy(facts),
                   smi_missing=_SMI_MISSING.search(driver_texts) is not None)


_LAST: Optional[Tuple["weakref.ref[Facts]", Derived]] = None


def derived(facts: Facts) -> Derived:
    """The typed readings of ``facts``, classified once per facts object (every check of a run shares them)."""
    global _LAST
    if _LAST is not None and _LAST[0]() is facts:
        return _LAST[1]
    result = classify(facts)
    _LAST = (weakref.ref(facts), result)
    return result
