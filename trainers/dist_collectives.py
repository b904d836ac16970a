"""Collectives of one rank: all-reduce, all-gather, reduce-scatter and broadcast, timed and checked for exact values.

Sizes follow nccl-tests: the payload is the whole buffer (all-gather's output, reduce-scatter's input), algorithm
bandwidth is payload / time and bus bandwidth scales it by what each link must carry (see BUS_FACTOR).
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any, Callable, Dict, List, Optional

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
MIN_BYTES = 1024
MAX_BYTES = 256 * 1024 * 1024
STEP = 4  # sizes grow 4x: 1 KiB, 4 KiB ... 256 MiB
ELEMENT = 4  # float32
# Words that mean the backend has no such collective (gloo on CPU in some versions): reported, not failed.
UNSUPPORTED = ("not supported", "does not support", "unsupported", "not implemented")


def bus_factor(op: str, world: int) -> float:
    """nccl-tests' busbw / algbw: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast."""
    if world < 2:
        return 1.0 if op == "broadcast" else 0.0
    if op == "all_reduce":
        return 2.0 * (world - 1) / world
    if op in ("all_gather", "reduce_scatter"):
        return (world - 1) / world
    return 1.0


def sizes(max_bytes: int) -> List[int]:
    """Payload sizes from 1 KiB up to ``max_bytes``, 4x apart."""
    found, size = [], MIN_BYTES
    while size <= max(max_bytes, MIN_BYTES):
        found.append(size)
        size *= STEP
    return found


def iterations(size: int) -> int:
    return 10 if size <= 64 * 1024 else 5 if size <= 4 * 1024 * 1024 else 3


class Collectives:
    """Runs each collective on this rank's device under a time limit; ``stage`` announces each step first."""

    def __init__(self, torch: Any, dist: Any, device: Any, timeout: float, stage: Callable[[str], None]) -> None:
        self.torch, self.dist, self.device = torch, dist, device
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.timeout = timedelta(seconds=timeout)
        self.stage = stage

    def _wait(self, work: Any) -> None:
        if work is not None:
            work.wait(timeout=self.timeout)

    def sync(self) -> None:
        """Wait until every rank gets here (a one-element all-reduce under the step's limit)."""
        self._wait(self.dist.all_reduce(self.torch.zeros(1, device=self.device), async_op=True))

    def _sync(self) -> None:
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def _buffers(self, op: str, elements: int) -> Dict[str, Any]:
        torch, r, n = self.torch, self.rank, self.world
        part = elements // n
        if op == "all_reduce":
            return {"x": torch.full((elements,), float(r + 1), device=self.device)}
        if op == "all_gather":
            return {"x": torch.full((part,), float(r + 1), device=self.device),
                    "out": torch.zeros(part * n, device=self.device)}
        if op == "reduce_scatter":
            return {"x": torch.full((part * n,), float(r + 1), device=self.device),
                    "out": torch.zeros(part, device=self.device)}
        return {"x": torch.full((elements,), 7.0 if r == 0 else 0.0, device=self.device)}

    def _launch(self, op: str, buf: Dict[str, Any]) -> Any:
        dist = self.dist
        if op == "all_reduce":
            return dist.all_reduce(buf["x"], async_op=True)
        if op == "all_gather":
            fn = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
            return fn(buf["out"], buf["x"], async_op=True)
        if op == "reduce_scatter":
            fn = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
            return fn(buf["out"], buf["x"], async_op=True)
        return dist.broadcast(buf["x"], src=0, async_op=True)

    def _expected(self, op: str, buf: Dict[str, Any]) -> Optional[str]:
        """None when every element holds the exact expected value, else what was wrong."""
        torch, n = self.torch, self.world
        total = float(n * (n + 1) // 2)
        if op == "all_gather":
            want = torch.arange(1, n + 1, device=self.device, dtype=torch.float32).repeat_interleave(
                buf["out"].numel() // n)
            got = buf["out"]
        else:
            got = buf["out"] if op == "reduce_scatter" else buf["x"]
            want = torch.full_like(got, 7.0 if op == "broadcast" else total)
        wrong = int((got != want).sum())
        if not wrong:
            return None
        index = int((got != want).nonzero()[0][0])
        return (f"{wrong} of {got.numel()} values wrong; element {index} is {float(got[index]):g}, "
                f"expected {float(want[index]):g}")

    def run(self, op: str, size: int) -> Dict[str, Any]:
        """Time ``op`` over ``size`` bytes (whole buffer) and check its result; the row for this rank."""
        elements = max(size // ELEMENT // self.world, 1) * self.world
        row: Dict[str, Any] = {"op": op, "bytes": elements * ELEMENT, "supported": True}
        self.stage(f"{op} {size}")
        try:
            buf = self._buffers(op, elements)
            self._wait(self._launch(op, buf))  # warm-up, and the first test of support
            count = iterations(size)
            self._sync()
            start = time.perf_counter()
            for _ in range(count):
                self._wait(self._launch(op, buf))
            self._sync()
            row["seconds"] = (time.perf_counter() - start) / count
            buf = self._buffers(op, elements)
            self._wait(self._launch(op, buf))
            self._sync()
            wrong = self._expected(op, buf)
            row["correct"] = wrong is None
            if wrong:
                row["error"] = f"wrong result: {wrong}"
        except Exception as exc:  # noqa: BLE001 - the error is the result
            text = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
            if isinstance(exc, (NotImplementedError, ValueError)) or any(w in text.lower() for w in UNSUPPORTED):
                if "timed out" not in text.lower() and "timeout" not in text.lower():
                    row.update(supported=False, error=text)
                    return row
            row["error"] = text
            raise CollectiveFailed(row) from exc
        return row


class CollectiveFailed(Exception):
    """A collective raised (timeout, lost peer): the rank's group is broken, so the table stops here."""

    def __init__(self, row: Dict[str, Any]) -> None:
        super().__init__(row.get("error"))
        self.row = row
