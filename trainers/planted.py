"""The verify worker's test hooks: faults planted through ``FAULT_ENV`` for every device or one."""

from __future__ import annotations

import os
import signal
import time
from typing import Any, Callable, Dict, List, Optional

from .protocol import FAULT_ENV, Emitter


def fault(em: Emitter, torch: Any, label: str) -> Optional[Callable[[], None]]:
    """The test hook: ``kind`` or ``kind@device`` (comma-separated) fires once, at the worker's first training step."""
    kinds = [k for k in planted_kinds(label) if k not in ("wrong-kernel", "throttle")]
    if not kinds:
        return None
    kind = kinds[0]
    fired: List[str] = []

    def fire() -> None:
        if fired:
            return
        fired.append(kind)
        if kind == "crash":
            os.kill(os.getpid(), getattr(signal, "SIGSEGV", signal.SIGTERM))
            time.sleep(5)
        elif kind == "hang":
            time.sleep(3600)
        elif kind == "garbage":
            em.raw('Segmentation fault handler: <<<\x1b[31m not json\n{"event": "progress", \n')
            os._exit(0)
        elif kind == "fatal":
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        elif kind == "oom":
            error = getattr(torch, "OutOfMemoryError", RuntimeError)
            raise error(
                "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; "
                "2.81 GiB already allocated; 25.38 MiB free; 3.06 GiB reserved in total by PyTorch)"
            )

    return fire


def planted_kinds(label: str) -> List[str]:
    """The fault kinds the test hook plants for ``label``."""
    entries = (e.partition("@") for e in os.environ.get(FAULT_ENV, "").split(","))
    return [k for k, _, where in entries if k and where in ("", label)]


def planted_release(label: str) -> Optional[Callable[[], None]]:
    """Under the "fatal" test hook, the stand-in's empty_cache raises as CUDA's does after a fatal error."""
    if "fatal" not in planted_kinds(label):
        return None

    def release() -> None:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    return release


def planted_clocks(label: str) -> Optional[Callable[[], Dict[str, Any]]]:
    """Under the "throttle" test hook, the stand-in reports a GPU held back by its power cap and a slowdown."""
    if "throttle" not in planted_kinds(label):
        return None
    return lambda: {"sm_clock_mhz": 1110, "max_sm_clock_mhz": 1980, "reasons": 0x4 | 0x8, "temperature_c": 87}
