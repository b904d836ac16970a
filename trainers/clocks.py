"""Clocks, temperature, power and clock-limit reasons of one GPU, sampled through NVML while the benchmarks run.

An idle GPU reports low clocks and "idle"; power and thermal limits only show under load. The worker needs no
Python NVML binding: the driver's library is called through ctypes, and a machine without it records why not.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any, Callable, Dict, List, Optional

from .protocol import THROTTLE_BITS

Sample = Dict[str, Any]  # sm_clock_mhz, temperature_c, power_w, power limits, reasons (bit mask)
Reader = Callable[[], Sample]


def reasons(mask: int) -> List[str]:
    return [name for bit, name in THROTTLE_BITS if mask & bit]


def nvml_reader(pci_bus_id: Optional[str]) -> Reader:
    """A reader of the GPU at ``pci_bus_id`` ("0000:65:00.0"); raises OSError/RuntimeError when NVML cannot."""
    lib = ctypes.CDLL("nvml.dll" if sys.platform.startswith("win") else "libnvidia-ml.so.1")

    def call(fn: str, *args: Any) -> None:
        code = getattr(lib, fn)(*args)
        if code != 0:
            raise RuntimeError(f"{fn} returned NVML error {code}")

    if not pci_bus_id:
        raise RuntimeError("torch did not report the GPU's PCI bus id")
    call("nvmlInit_v2")
    handle = ctypes.c_void_p()
    call("nvmlDeviceGetHandleByPciBusId_v2", pci_bus_id.encode(), ctypes.byref(handle))
    max_clock = ctypes.c_uint()
    call("nvmlDeviceGetMaxClockInfo", handle, 1, ctypes.byref(max_clock))  # 1: NVML_CLOCK_SM
    # the newer name; drivers before 535 export only the older one
    events = next(
        (n for n in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
         if hasattr(lib, n)),
        "nvmlDeviceGetCurrentClocksThrottleReasons",
    )

    limits: Sample = {}
    for key, fn in (("power_limit_w", "nvmlDeviceGetEnforcedPowerLimit"),
                    ("power_limit_default_w", "nvmlDeviceGetPowerManagementDefaultLimit")):
        milliwatts = ctypes.c_uint()
        if hasattr(lib, fn) and getattr(lib, fn)(handle, ctypes.byref(milliwatts)) == 0:
            limits[key] = milliwatts.value / 1000.0

    def read() -> Sample:
        clock, temp, power, mask = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
        call("nvmlDeviceGetClockInfo", handle, 1, ctypes.byref(clock))
        call(events, handle, ctypes.byref(mask))
        sample: Sample = {"sm_clock_mhz": clock.value, "reasons": mask.value, "max_sm_clock_mhz": max_clock.value,
                          **limits}
        if lib.nvmlDeviceGetTemperature(handle, 0, ctypes.byref(temp)) == 0:  # 0: NVML_TEMPERATURE_GPU
            sample["temperature_c"] = temp.value
        if lib.nvmlDeviceGetPowerUsage(handle, ctypes.byref(power)) == 0:
            sample["power_w"] = power.value / 1000.0
        return sample

    return read


class Sampler:
    """Reads the GPU every ``interval`` seconds on a thread between start() and stop(); summary() sums it up."""

    def __init__(self, read: Optional[Reader], interval: float = 0.1, error: Optional[str] = None) -> None:
        self._read, self._interval, self._error = read, interval, error
        self._samples: List[Sample] = []
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> None:
        if self._read is not None:
            self._thread = threading.Thread(target=self._run, name="gpudoctor-clocks", daemon=True)
            self._thread.start()

    def sample(self) -> None:
        """One reading now (also called between benchmarks, so a short run still has samples under load)."""
        if self._read is None or self._error:
            return
        try:
            self._samples.append(self._read())
        except Exception as exc:  # noqa: BLE001 - a reading that fails ends the sampling, the benchmarks go on
            self._error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def summary(self) -> Dict[str, Any]:
        found = list(self._samples)
        out: Dict[str, Any] = {"samples": len(found)}
        if self._error:
            out["error"] = self._error
        if not found:
            return out
        clocks = [s["sm_clock_mhz"] for s in found if "sm_clock_mhz" in s]
        mask = 0
        for s in found:
            mask |= int(s.get("reasons", 0))
        out.update(
            sm_clock_mhz_min=min(clocks) if clocks else None,
            sm_clock_mhz_max=max(clocks) if clocks else None,
            max_sm_clock_mhz=found[-1].get("max_sm_clock_mhz"),
            temperature_c_max=max((s["temperature_c"] for s in found if "temperature_c" in s), default=None),
            power_w_max=max((s["power_w"] for s in found if "power_w" in s), default=None),
            power_limit_w=found[-1].get("power_limit_w"),
            power_limit_default_w=found[-1].get("power_limit_default_w"),
            throttle_reasons=[r for r in reasons(mask) if r != "gpu_idle"],
        )
        return out


def sampler_for(pci_bus_id: Optional[str], read: Optional[Reader] = None) -> Sampler:
    """A sampler of that GPU, or one that only records why NVML could not be read."""
    if read is not None:
        return Sampler(read)
    try:
        return Sampler(nvml_reader(pci_bus_id))
    except Exception as exc:  # noqa: BLE001 - no NVML is not a benchmark failure
        return Sampler(None, error=f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300])
