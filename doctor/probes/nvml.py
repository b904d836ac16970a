"""NVML probe: the driver and every GPU as NVIDIA's management library reports them, read in-process."""

from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from gpudoctor.exhaustive import assert_never
from gpudoctor.facts import DriverFacts, DriverSource, Gpu, GpuProcess, NvmlError
from gpudoctor.trainers.protocol import THROTTLE_BITS

MIB = 1024 * 1024

# NVML return codes (nvml.h); the binding raises NVMLError subclasses that carry them as ``value``.
# Named as nvidia-ml-py names them (NVML_ERROR_<name>); tests check each against the binding's constant.
INVALID_ARGUMENT, NOT_SUPPORTED, NO_PERMISSION, NOT_FOUND, DRIVER_NOT_LOADED = 2, 3, 4, 6, 9
LIBRARY_NOT_FOUND, FUNCTION_NOT_FOUND, LIB_RM_VERSION_MISMATCH, NO_DATA = 12, 13, 18, 21
_INIT_CLASSES = {
    LIBRARY_NOT_FOUND: NvmlError.LIBRARY_NOT_FOUND,
    DRIVER_NOT_LOADED: NvmlError.DRIVER_NOT_LOADED,
    LIB_RM_VERSION_MISMATCH: NvmlError.VERSION_MISMATCH,
    NO_PERMISSION: NvmlError.NO_PERMISSION,
}
_CLASS_NAMES = {
    "NVMLError_LibraryNotFound": NvmlError.LIBRARY_NOT_FOUND,
    "NVMLError_DriverNotLoaded": NvmlError.DRIVER_NOT_LOADED,
    "NVMLError_LibRmVersionMismatch": NvmlError.VERSION_MISMATCH,
    "NVMLError_NoPermission": NvmlError.NO_PERMISSION,
}
# Codes that only mean "this GPU or driver does not report that": not worth a probe error.
_QUIET = {NOT_SUPPORTED, NOT_FOUND, FUNCTION_NOT_FOUND, NO_DATA, INVALID_ARGUMENT}
_COMPUTE_MODES = {0: "default", 1: "exclusive_thread", 2: "prohibited", 3: "exclusive_process"}
# THROTTLE_BITS: the probe decodes with the installed binding's own constants (``throttle_bits``); the shared
# table is the fallback for a binding without them, and tests keep it equal to what the binding defines.
_REASON_CONSTANT = re.compile(r"^nvmlClocks(?:Event|Throttle)Reason([A-Z]\w*)$")


@dataclass(frozen=True)
class NvmlResult:
    """What NVML told, or why it could not: ``errors`` are (section, reason) pairs for probe_errors."""

    ok: bool
    driver: DriverFacts
    gpus: Tuple[Gpu, ...] = ()
    errors: Tuple[Tuple[str, str], ...] = ()


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def throttle_bits(nvml: Any) -> Tuple[Tuple[int, str], ...]:
    """(bit, name) for every single-bit reason constant the binding defines; THROTTLE_BITS if it has none.

    A bit with several names (UserDefinedClocks is ApplicationsClocksSetting) keeps the one in THROTTLE_BITS.
    """
    known = dict(THROTTLE_BITS)
    names: Dict[int, List[str]] = {}
    for attr in dir(nvml):
        match = _REASON_CONSTANT.match(attr)
        value = getattr(nvml, attr, None)
        if match and isinstance(value, int) and value > 0 and value & (value - 1) == 0:
            names.setdefault(value, []).append(_snake(match.group(1)))
    if not names:
        return THROTTLE_BITS
    chosen = {bit: known[bit] if known.get(bit) in found else min(found) for bit, found in names.items()}
    return tuple(sorted(chosen.items()))


def throttle_names(mask: int, bits: Tuple[Tuple[int, str], ...] = THROTTLE_BITS) -> Tuple[str, ...]:
    """The active clock event (throttle) reasons of a bit mask, by name; unknown bits in hex."""
    names = [name for bit, name in bits if mask & bit]
    rest = mask & ~sum(bit for bit, _ in bits)
    return tuple(names) + ((f"0x{rest:x}",) if rest else ())


def text(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    value = str(value).strip("\x00").strip()
    return value or None


def load_binding() -> Any:
    """Import the nvidia-ml-py binding (``pynvml``), quietly: the old ``pynvml`` package warns on import."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pynvml  # noqa: PLC0415 - only here, so the rest of gpudoctor never needs it

    return pynvml


def _code(exc: BaseException) -> Optional[int]:
    value = getattr(exc, "value", None)
    return value if isinstance(value, int) else None


def classify(exc: BaseException) -> NvmlError:
    """An nvmlInit failure's class, by the binding's exception class or else its return code."""
    for klass in type(exc).__mro__:
        if klass.__name__ in _CLASS_NAMES:
            return _CLASS_NAMES[klass.__name__]
    return _INIT_CLASSES.get(_code(exc) or -1, NvmlError.OTHER)


def _library_name() -> str:
    return "nvml.dll" if sys.platform.startswith("win") else "libnvidia-ml.so.1"


def init_reason(kind: NvmlError, message: str) -> str:
    """The one-line probe error for an NVML initialisation failure."""
    if kind is NvmlError.LIBRARY_NOT_FOUND:
        return f"NVML library not found ({_library_name()})"
    if kind is NvmlError.DRIVER_NOT_LOADED:
        return "NVML could not initialise: the NVIDIA kernel driver is not loaded"
    if kind is NvmlError.VERSION_MISMATCH:
        return "NVML could not initialise: Driver/library version mismatch"
    if kind is NvmlError.NO_PERMISSION:
        return "NVML could not initialise: insufficient permissions"
    if kind is NvmlError.OTHER:
        return f"NVML could not initialise: {message}"
    assert_never(kind)


class _Reader:
    """Calls binding functions one at a time; a failure gives None and, when unusual, a noted error."""

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml
        self.notes: List[str] = []
        self.throttle_bits = throttle_bits(nvml)

    def get(self, name: str, *args: Any) -> Any:
        fn: Optional[Callable[..., Any]] = getattr(self.nvml, name, None)
        if fn is None:
            return None
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - any field may be unsupported or broken
            if _code(exc) not in _QUIET:
                self.notes.append(f"{name}: {text(str(exc)) or type(exc).__name__}")
            return None

    def first(self, names: Tuple[str, ...], *args: Any) -> Any:
        """The first answer among versions of a call (newest first) that this binding and driver have."""
        for name in names:
            value = self.get(name, *args)
            if value is not None:
                return value
        return None


def _flag(value: Any) -> Optional[bool]:
    return None if value is None else bool(value)


def _pair_first(value: Any) -> Any:
    return value[0] if isinstance(value, (list, tuple)) and value else None


def _mib(value: Any) -> Optional[int]:
    return value // MIB if isinstance(value, int) and value >= 0 else None


def _processes(r: _Reader, handle: Any) -> Tuple[GpuProcess, ...]:
    seen: Dict[int, Optional[int]] = {}
    for kind in ("Compute", "Graphics"):
        name = f"nvmlDeviceGet{kind}RunningProcesses"
        for proc in r.first((f"{name}_v3", name), handle) or ():
            pid = getattr(proc, "pid", None)
            if not isinstance(pid, int):
                continue
            used = _mib(getattr(proc, "usedGpuMemory", None))
            previous = seen.get(pid)
            seen[pid] = used if previous is None else max(previous, used or 0)
    return tuple(GpuProcess(pid, text(r.get("nvmlSystemGetProcessName", pid)), used) for pid, used in seen.items())


def _mig_devices(r: _Reader, handle: Any) -> Tuple[str, ...]:
    count = r.get("nvmlDeviceGetMaxMigDeviceCount", handle)
    uuids: List[str] = []
    for i in range(count if isinstance(count, int) else 0):
        mig = r.get("nvmlDeviceGetMigDeviceHandleByIndex", handle, i)
        uuid = text(r.get("nvmlDeviceGetUUID", mig)) if mig is not None else None
        if uuid:
            uuids.append(uuid)
    return tuple(uuids)


def read_gpu(r: _Reader, index: int) -> Gpu:
    """Every field of GPU ``index``, each read on its own."""
    handle = r.get("nvmlDeviceGetHandleByIndex", index)
    if handle is None:
        return Gpu(index=index)
    memory = r.get("nvmlDeviceGetMemoryInfo", handle)
    pci = r.get("nvmlDeviceGetPciInfo", handle)
    cc = r.get("nvmlDeviceGetCudaComputeCapability", handle)
    mig = _flag(_pair_first(r.get("nvmlDeviceGetMigMode", handle)))
    remapped = r.get("nvmlDeviceGetRemappedRows", handle)
    rows_known = isinstance(remapped, (list, tuple)) and len(remapped) >= 4
    throttle = r.first(("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"), handle)
    utilization = r.get("nvmlDeviceGetUtilizationRates", handle)
    ecc = r.get("nvmlDeviceGetTotalEccErrors", handle, 1, 0), r.get("nvmlDeviceGetTotalEccErrors", handle, 1, 1)
    return Gpu(
        index=index,
        name=text(r.get("nvmlDeviceGetName", handle)),
        uuid=text(r.get("nvmlDeviceGetUUID", handle)),
        serial=text(r.get("nvmlDeviceGetSerial", handle)),
        pci_bus_id=text(getattr(pci, "busId", None)),
        compute_capability=(int(cc[0]), int(cc[1])) if isinstance(cc, (list, tuple)) and len(cc) == 2 else None,
        memory_total_mib=_mib(getattr(memory, "total", None)),
        memory_used_mib=_mib(getattr(memory, "used", None)),
        compute_mode=_COMPUTE_MODES.get(r.get("nvmlDeviceGetComputeMode", handle)),
        persistence_mode=_flag(r.get("nvmlDeviceGetPersistenceMode", handle)),
        mig_mode=mig,
        mig_devices=_mig_devices(r, handle) if mig else (),
        pcie_gen_current=r.get("nvmlDeviceGetCurrPcieLinkGeneration", handle),
        pcie_gen_max=r.get("nvmlDeviceGetMaxPcieLinkGeneration", handle),
        pcie_width_current=r.get("nvmlDeviceGetCurrPcieLinkWidth", handle),
        pcie_width_max=r.get("nvmlDeviceGetMaxPcieLinkWidth", handle),
        utilization_percent=getattr(utilization, "gpu", None),
        temperature_c=r.get("nvmlDeviceGetTemperature", handle, 0),
        ecc_mode=_flag(_pair_first(r.get("nvmlDeviceGetEccMode", handle))),
        ecc_uncorrected_volatile=ecc[0],
        ecc_uncorrected_aggregate=ecc[1],
        retired_pages_pending=_flag(r.get("nvmlDeviceGetRetiredPagesPendingStatus", handle)),
        remapped_rows_pending=_flag(remapped[2]) if rows_known else None,
        remapped_rows_failure=_flag(remapped[3]) if rows_known else None,
        throttle_reasons=throttle_names(throttle, r.throttle_bits) if isinstance(throttle, int) else (),
        processes=_processes(r, handle),
    )


def cuda_version(value: Any) -> Optional[str]:
    """12040 -> "12.4"."""
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def probe_nvml(nvml: Any = None) -> NvmlResult:
    """Initialise NVML and read the driver and all GPUs; ``nvml`` is the binding module (for tests, a fake)."""
    if nvml is None:
        try:
            nvml = load_binding()
        except Exception as exc:  # noqa: BLE001 - a broken binding is a recorded reason, not a crash
            reason = f"the NVML binding (nvidia-ml-py) cannot be imported: {type(exc).__name__}: {exc}"
            return NvmlResult(False, DriverFacts(), (), (("driver", reason),))
    try:
        nvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001
        kind = classify(exc)
        message = text(str(exc)) or type(exc).__name__
        reason = init_reason(kind, message)
        return NvmlResult(False, DriverFacts(nvml_error=kind.value, nvml_error_text=message), (), (("driver", reason),))
    try:
        r = _Reader(nvml)
        count = r.get("nvmlDeviceGetCount")
        gpus: List[Gpu] = []
        notes: List[str] = []
        for index in range(count if isinstance(count, int) else 0):
            gpus.append(read_gpu(r, index))
            notes.extend(f"GPU {index} {note}" for note in dict.fromkeys(r.notes))
            r.notes.clear()
        driver = DriverFacts(
            source=DriverSource.NVML.value,
            version=text(r.get("nvmlSystemGetDriverVersion")),
            cuda_version=cuda_version(
                r.first(("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"))
            ),
            gpu_count=count if isinstance(count, int) else None,
        )
        notes.extend(r.notes)
        errors = (("gpus", "; ".join(notes)),) if notes else ()
        return NvmlResult(True, driver, tuple(gpus), errors)
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:  # noqa: BLE001, S110 - nothing to do about a failed shutdown
            pass
