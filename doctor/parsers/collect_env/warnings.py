"""Recognising the warnings and errors torch, torchvision and nvidia-smi print around a pasted report."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from gpudoctor.facts.derive import NVML_LIBRARY_VERSION, cuda_of_found_version

CC = Tuple[int, int]

_INIT_PATTERNS = (
    r"The NVIDIA driver on your system is too old \(found version \d+\)",
    r"Found no NVIDIA driver on your system",
    r"CUDA driver version is insufficient for CUDA runtime version",
    r"Unexpected error from cudaGetDeviceCount\(\)",
    r"CUDA unknown error - this may be due to",
    r"No CUDA GPUs are available",
    r"Torch not compiled with CUDA enabled",
    r"forward compatibility was attempted on non supported HW",
    r"system has unsupported display driver / cuda driver combination",
    r"(?:cudaErrorNoDevice|no CUDA-capable device is detected)",
)
_RUNTIME_PATTERNS = (
    r"no kernel image is available for execution on the device",
    r"CUDA-capable device\(s\) is/are busy or unavailable",
    r"all CUDA-capable devices are busy or unavailable",
    r"invalid device function",
)
_CUBINS = re.compile(
    r" with CUDA capability sm_(\d+)\s+is not compatible with the current PyTorch installation\.?"
    r"\s*The current PyTorch install supports CUDA capabilities\s+((?:(?:sm|compute)_\d+[a-z]?[\s.]*)+)",
    re.I,
)
_FOUND_OLD = re.compile(
    r"Found GPU\s?(\d+) ([^\n]+?) which is of cuda capability (\d+)\.(\d+)\.?"
    r"(?:\s*PyTorch no longer supports this GPU because it is too old\.?"
    r"\s*The minimum cuda capability (?:that we support|supported by this library) is (\d+)\.(\d+))?"
    r"(?:\s*Minimum and Maximum cuda capability supported by this version of PyTorch is"
    r"\s*\((\d+)\.(\d+)\)\s*-\s*\((\d+)\.(\d+)\))?",
    re.I,
)
_FOUND_CC = re.compile(
    r"Found GPU\s?(\d+) ([^\n]+?) which is of compute capability \(CC\) (\d+)\.(\d+)\.?"
    r"((?:\s*The following list shows[^\n]*)?(?:\s*-\s*\d+\.\d+ which supports hardware CC[^\n]*)*)",
    re.I,
)
_CODE_LINE = re.compile(r"-\s*(\d+)\.(\d+) which supports hardware CC")
_TV_CUDA = re.compile(
    r"Detected that PyTorch and torchvision were compiled with different CUDA (?:major )?versions\. "
    r"PyTorch has CUDA Version=(\d+\.\d+) and torchvision has CUDA Version=(\d+\.\d+)",
    re.I,
)
_TV_NMS = re.compile(r"((?:RuntimeError: )?(?:operator torchvision::nms does not exist|No such operator torchvision::\w+))")
_TV_OPS = re.compile(r"(Couldn't load custom C\+\+ ops\.[^\n]*)")
_EXT_LOAD = re.compile(
    r"^((?:ImportError|OSError|RuntimeError)\s*:[^\n]*?(torchvision|torchaudio|_torch_sox)[^\n]*?"
    r"(?:undefined symbol|Symbol not found|cannot open shared object|image not found|specified (?:module|procedure))"
    r"[^\n]*)$",
    re.M | re.I,
)
_SMI = re.compile(r"NVIDIA-SMI\s+([\d.]+)\s+Driver Version:\s*([\d.]+)\s+CUDA Version:\s*([\d.]+)")
_SMI_FAIL = re.compile(r"(NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver[^\n]*)")
_NVML = re.compile(r"Failed to initialize NVML: ([^\n]+)")
_IMPORT = re.compile(
    r"^((?:ImportError|OSError|ModuleNotFoundError)\s*:\s*[^\n]*?"
    r"(?:\.so[.\d]*|\.dll|torch|c10|cudnn|cublas|cudart|nvrtc|WinError)[^\n]*)$",
    re.M,
)
_TRIGGERED = re.compile(r"\s*\(Triggered internally at[^)]*\)\.?")


@dataclass
class Signals:
    """What the text around (and inside) a report says beyond its fields."""

    init_error: Optional[str] = None
    warnings: List[str] = field(default_factory=list)
    arch_flags: Optional[Tuple[str, ...]] = None  # exactly as torch printed them
    arch_from_code_list: bool = False  # rebuilt from the 2.11+ "CCs this version was built for" list
    device_ccs: Dict[int, Tuple[str, CC]] = field(default_factory=dict)  # torch index -> (name, cc)
    name_ccs: Dict[str, CC] = field(default_factory=dict)  # GPU name -> cc, from any warning
    min_cc: Optional[CC] = None
    max_cc: Optional[CC] = None
    driver_cuda: Optional[str] = None  # "11.4" from "found version 11040" or an nvidia-smi header
    smi_driver: Optional[str] = None
    smi_error: Optional[str] = None
    nvml_error_text: Optional[str] = None
    torchvision_error: Optional[str] = None
    torchvision_cuda: Optional[str] = None
    torchvision_ops_error: Optional[str] = None
    torchaudio_error: Optional[str] = None
    import_error: Optional[str] = None


def _literal(pattern: str) -> str:
    """The plain text a pattern starts with, to skip a regex scan of a long paste that cannot match."""
    m = re.match(r"([A-Za-z0-9 ,'-]+)", pattern)
    return m.group(1) if m else ""


def _flat(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text).strip()


def _message_at(text: str, start: int, limit: int = 700) -> str:
    """The message starting at ``start``: up to a blank line, a warning's source line, or a new field."""
    chunk = text[start : start + limit]
    stop = re.search(
        r"\n\s*\n|\n\s*(?:return |warnings\.warn|Collecting environment|PyTorch version|Traceback)|\n\S+\.py:\d+:",
        chunk,
    )
    if stop:
        chunk = chunk[: stop.start()]
    return _flat(_TRIGGERED.sub("", chunk.replace("\n", " ")))


def scan(text: str) -> Signals:
    """Every signal in the text; ``text`` is the normalised paste joined with newlines."""
    sig = Signals()
    for pattern in _INIT_PATTERNS:
        if _literal(pattern) not in text:
            continue
        found = list(re.finditer(pattern, text))
        if found and sig.init_error is None:
            sig.init_error = _message_at(text, found[-1].start())
    m = re.search(r"found version (\d{4,6})\)", text) if "found version" in text else None
    if m:
        sig.driver_cuda = cuda_of_found_version(int(m.group(1)))
    low = text.lower()
    for pattern in _RUNTIME_PATTERNS:
        if _literal(pattern).lower() not in low:
            continue
        m = re.search(pattern, text, re.I)
        if m:
            line_start = text.rfind("\n", 0, m.start()) + 1
            sig.warnings.append(_message_at(text, line_start, 300))
    _scan_arch(text, sig)
    _scan_torchvision(text, sig)
    _scan_smi(text, sig)
    if sig.init_error is None and sig.smi_error is None and "Error" in text:
        imports = [line for line in _IMPORT.findall(text) if not re.search(r"torchvision|torchaudio|_torch_sox", line)]
        if imports:
            sig.import_error = _flat(imports[-1])
    sig.warnings = list(dict.fromkeys(sig.warnings))
    return sig


def _clean_name(name: str) -> str:
    name = re.sub(r"^.*?(?:UserWarning|Warning):\s*", "", name.strip())
    return name.strip(" :")


def _scan_arch(text: str, sig: Signals) -> None:
    for m in _CUBINS.finditer(text) if "with CUDA capability" in text else ():
        name = _clean_name(text[text.rfind("\n", 0, m.start()) + 1 : m.start()])
        sm = int(m.group(1))
        tokens = tuple(re.findall(r"(?:sm|compute)_\d+[a-z]?", m.group(2)))
        if tokens and sig.arch_flags is None:
            sig.arch_flags = tokens
        cc = (sm // 10, sm % 10)
        if name:
            sig.name_ccs.setdefault(name, cc)
        sig.warnings.append(
            _flat(
                f"{name} with CUDA capability sm_{sm} is not compatible with the current PyTorch installation. "
                f"The current PyTorch install supports CUDA capabilities {' '.join(tokens)}."
            )
        )
    found_gpu = "Found GPU" in text
    for m in _FOUND_OLD.finditer(text) if found_gpu else ():
        index, name, cc = int(m.group(1)), _clean_name(m.group(2)), (int(m.group(3)), int(m.group(4)))
        sig.device_ccs.setdefault(index, (name, cc))
        sig.name_ccs.setdefault(name, cc)
        if m.group(5):
            sig.min_cc = (int(m.group(5)), int(m.group(6)))
        if m.group(7):
            sig.min_cc = (int(m.group(7)), int(m.group(8)))
            sig.max_cc = (int(m.group(9)), int(m.group(10)))
        sig.warnings.append(_flat(m.group(0).replace("\n", " ")))
    for m in _FOUND_CC.finditer(text) if found_gpu else ():
        index, name, cc = int(m.group(1)), _clean_name(m.group(2)), (int(m.group(3)), int(m.group(4)))
        sig.device_ccs.setdefault(index, (name, cc))
        sig.name_ccs.setdefault(name, cc)
        codes = [(int(a), int(b)) for a, b in _CODE_LINE.findall(m.group(5) or "")]
        if codes and sig.arch_flags is None:
            seen: Dict[CC, int] = {}
            flags: List[str] = []
            for code in codes:
                kind = "sm" if code not in seen else "compute"
                seen[code] = seen.get(code, 0) + 1
                flags.append(f"{kind}_{code[0]}{code[1]}")
            sig.arch_flags = tuple(flags)
            sig.arch_from_code_list = True
        sig.warnings.append(_flat(m.group(0).replace("\n", " ")))


def _scan_torchvision(text: str, sig: Signals) -> None:
    if "torchvision" not in text and "torchaudio" not in text and "_torch_sox" not in text:
        return
    m = _TV_CUDA.search(text)
    if m:
        sig.torchvision_error = "RuntimeError: " + _flat(m.group(0))
        sig.torchvision_cuda = m.group(2)
    m = _TV_NMS.search(text)
    if m and sig.torchvision_error is None:
        found = m.group(1)
        sig.torchvision_error = found if found.startswith("RuntimeError") else "RuntimeError: " + found
    m = _TV_OPS.search(text)
    if m:
        sig.torchvision_ops_error = _flat(m.group(1))
    for m in _EXT_LOAD.finditer(text):
        which = m.group(2).lower()
        if which == "torchvision" and sig.torchvision_error is None:
            sig.torchvision_error = _flat(m.group(1))
        elif which != "torchvision" and sig.torchaudio_error is None:
            sig.torchaudio_error = _flat(m.group(1))


def _scan_smi(text: str, sig: Signals) -> None:
    if "NVIDIA-SMI" not in text and "NVML" not in text:
        return
    m = _SMI.search(text)
    if m:
        sig.smi_driver = m.group(2)
        sig.driver_cuda = m.group(3)
    m = _SMI_FAIL.search(text)
    if m:
        sig.smi_error = _flat(m.group(1))
    m = _NVML.search(text)
    if m:
        sig.nvml_error_text = "Failed to initialize NVML: " + _flat(m.group(1))
    m = NVML_LIBRARY_VERSION.search(text)
    if m and sig.smi_driver is None:
        sig.smi_driver = m.group(1)
