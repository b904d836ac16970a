"""The JSON-lines protocol between the verify worker and gpudoctor: event names, test hooks and the writer."""

from __future__ import annotations

import json
import math
from typing import IO, Any, Tuple

# Events, in the order a worker usually sends them. Each line is one JSON object with "event" set to one of these.
HELLO = "hello"  # interpreter, torch build, CUDA availability (and why not), the devices torch sees
STAGE = "stage"  # the worker starts a step: data, smoke, parity, train, bench (for progress and hang messages)
SMOKE = "smoke"  # kernel smoke test on one device
PARITY = "parity"  # CPU versus GPU forward/backward of one model
PROGRESS = "progress"  # training steps done so far, throttled
EPOCH = "epoch"  # one epoch's mean training loss and test accuracy
RUN = "run"  # one model trained on one device: the ModelRun fields
BENCH = "bench"  # micro-benchmarks of one device
FATAL = "fatal"  # the worker cannot go on: kind (import | device | data | internal) and error text
DONE = "done"  # the last line of a worker that ran to its end

# NVML's clock event (throttle) reason bits, named after nvidia-ml-py's nvmlClocks{Event,Throttle}Reason<Name>
# constants in snake case: the worker's clock sampler and gpudoctor's NVML probe both read them from here.
THROTTLE_BITS: Tuple[Tuple[int, str], ...] = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
    (0x200, "board_limit"),
    (0x400, "reliability"),
)

# Hidden test hooks the worker honours (never set by gpudoctor itself).
FAULT_ENV = (
    "GPUDOCTOR_VERIFY_TEST_FAULT"  # crash | hang | garbage | oom | fatal [@device], comma-separated: at the first
    # training step; wrong-kernel [@device]: the parity test's device model computes wrongly; throttle [@device]:
    # the stand-in's clock readings during the benchmarks show a power cap and a slowdown
)
# "cpu", "cpu:N" or "cpu:N:mig": the CPU stands in for N GPUs (MIG instances) under test
ACCELERATOR_ENV = "GPUDOCTOR_VERIFY_TEST_ACCELERATOR"


def _clean(value: Any) -> Any:
    """JSON-safe copy: non-finite floats become None (the run's error text says the loss became NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class Emitter:
    """Writes one flushed JSON line per event to the protocol stream."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def emit(self, event: str, **fields: Any) -> None:
        record = {"event": event}
        record.update(_clean(fields))
        self._stream.write(json.dumps(record, allow_nan=False) + "\n")
        self._stream.flush()

    def raw(self, text: str) -> None:
        """Write text as is (the garbage test hook)."""
        self._stream.write(text)
        self._stream.flush()
