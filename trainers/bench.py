"""Micro-benchmarks of one device: matrix-product TFLOP/s (fp32, TF32, bf16) and host<->device copy GB/s."""

from __future__ import annotations

import functools
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from .peaks import lookup
from .sanity import error_text


def _timed(device: torch.device, fn: Callable[[], object], seconds: float) -> float:
    """Seconds per call of ``fn``: one warm-up call, then as many calls as fit in about ``seconds``."""
    fn()
    _sync(device)
    start = time.perf_counter()
    fn()
    _sync(device)
    once = max(time.perf_counter() - start, 1e-7)
    reps = int(min(200, max(3, seconds / once)))
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    _sync(device)
    return (time.perf_counter() - start) / reps


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def matmul(device: torch.device, kind: str, n: int, seconds: float) -> Dict[str, Any]:
    """TFLOP/s of an n x n x n product: kind fp32 (TF32 off), tf32 (fp32 inputs, TF32 on) or bf16."""
    record: Dict[str, Any] = {"dtype": kind, "n": n}
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = kind == "tf32"
        dtype = torch.bfloat16 if kind == "bf16" else torch.float32
        gen = torch.Generator(device=device).manual_seed(0)
        a = torch.randn(n, n, device=device, dtype=dtype, generator=gen)
        b = torch.randn(n, n, device=device, dtype=dtype, generator=gen)
        out = torch.empty(n, n, device=device, dtype=dtype)
        per_call = _timed(device, lambda: torch.mm(a, b, out=out), seconds)
        record["tflops"] = 2.0 * n**3 / per_call / 1e12
    except Exception as exc:  # noqa: BLE001 - recorded, the other measurements go on
        record["error"] = error_text(exc)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    return record


def copies(device: torch.device, nbytes: int, seconds: float) -> List[Dict[str, Any]]:
    """GB/s host-to-device and device-to-host, from pageable and from pinned host memory."""
    results: List[Dict[str, Any]] = []
    try:
        dev = torch.empty(nbytes, dtype=torch.uint8, device=device)
        pageable = torch.zeros(nbytes, dtype=torch.uint8)  # zeros: the pages are touched before timing
        pinned: Optional[torch.Tensor] = torch.zeros(nbytes, dtype=torch.uint8).pin_memory()
    except Exception as exc:  # noqa: BLE001
        return [{"direction": "h2d", "memory": "pageable", "bytes": nbytes, "error": error_text(exc)}]
    for memory, host in (("pageable", pageable), ("pinned", pinned)):
        for direction in ("h2d", "d2h"):
            record: Dict[str, Any] = {"direction": direction, "memory": memory, "bytes": nbytes}
            try:
                assert host is not None
                src, dst = (host, dev) if direction == "h2d" else (dev, host)
                record["gb_per_s"] = nbytes / _timed(device, functools.partial(dst.copy_, src), seconds) / 1e9
            except Exception as exc:  # noqa: BLE001
                record["error"] = error_text(exc)
            results.append(record)
    return results


def run(
    device: torch.device,
    name: Optional[str],
    n: int,
    copy_bytes: int,
    seconds: float,
    kinds: Sequence[str] = ("fp32", "tf32", "bf16"),
) -> Dict[str, Any]:
    """The micro-benchmarks of ``device``, with the data-sheet peaks of ``name`` where they are known."""
    peaks = lookup(name)
    products = []
    for kind in kinds:
        record = matmul(device, kind, n, seconds)
        if peaks is not None:
            record["peak_tflops"] = peaks[kind]
            record["peak_source"] = peaks["source"]
        products.append(record)
    transfers = copies(device, copy_bytes, seconds) if device.type == "cuda" else []
    return {"matmul": products, "copies": transfers}
