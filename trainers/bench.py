"""Micro-benchmarks of one device: matrix-product TFLOP/s (fp32, TF32, bf16) and host<->device copy GB/s."""

from __future__ import annotations

import functools
import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from .clocks import Sampler
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


_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
TF32_OVERRIDE = "NVIDIA_TF32_OVERRIDE"  # "0" turns TF32 off in the CUDA libraries, whatever torch asks for


def matmul(device: torch.device, kind: str, n: int, seconds: float) -> Dict[str, Any]:
    """TFLOP/s of an n x n x n product: kind fp32 (TF32 off), tf32 (fp32 inputs, TF32 on), bf16 or fp16."""
    record: Dict[str, Any] = {"dtype": kind, "n": n}
    if kind == "tf32" and os.environ.get(TF32_OVERRIDE) is not None:
        record["tf32_override"] = os.environ[TF32_OVERRIDE][:20]
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = kind == "tf32"
        dtype = _DTYPES.get(kind, torch.float32)
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


def copies(
    device: torch.device,
    nbytes: int,
    seconds: float,
    pin: Callable[[torch.Tensor], torch.Tensor] = torch.Tensor.pin_memory,
) -> List[Dict[str, Any]]:
    """GB/s host-to-device and device-to-host, from pageable and from pinned host memory.

    Each kind of memory is allocated on its own: when pinning fails (locked-memory limits, a container's cap), the
    pinned rows carry that error and the pageable results stand.
    """
    results: List[Dict[str, Any]] = []
    try:
        dev = torch.empty(nbytes, dtype=torch.uint8, device=device)
    except Exception as exc:  # noqa: BLE001
        return [
            {"direction": d, "memory": m, "bytes": nbytes, "error": error_text(exc)}
            for m in ("pageable", "pinned")
            for d in ("h2d", "d2h")
        ]
    for memory in ("pageable", "pinned"):
        try:
            host = torch.zeros(nbytes, dtype=torch.uint8)  # zeros: the pages are touched before timing
            if memory == "pinned":
                host = pin(host)
        except Exception as exc:  # noqa: BLE001
            error = error_text(exc)
            results += [{"direction": d, "memory": memory, "bytes": nbytes, "error": error} for d in ("h2d", "d2h")]
            continue
        for direction in ("h2d", "d2h"):
            record: Dict[str, Any] = {"direction": direction, "memory": memory, "bytes": nbytes}
            try:
                src, dst = (host, dev) if direction == "h2d" else (dev, host)
                record["gb_per_s"] = nbytes / _timed(device, functools.partial(dst.copy_, src), seconds) / 1e9
            except Exception as exc:  # noqa: BLE001
                record["error"] = error_text(exc)
            results.append(record)
        del host
    return results


def run(
    device: torch.device,
    name: Optional[str],
    n: int,
    copy_bytes: int,
    seconds: float,
    kinds: Sequence[str] = ("fp32", "tf32", "bf16"),
    sm_count: Optional[int] = None,
    sampler: Optional[Sampler] = None,
) -> Dict[str, Any]:
    """The micro-benchmarks of ``device``, with the data-sheet peaks of ``name`` (a MIG slice: scaled by
    ``sm_count``) where they are known; ``sampler`` reads clocks and clock limits while the products run."""
    peaks = lookup(name, sm_count)
    products = []
    if sampler is not None:
        sampler.start()
    for kind in kinds:
        record = matmul(device, kind, n, seconds)
        if sampler is not None:
            sampler.sample()  # right after the timed loop, while the GPU is still under load
        if peaks is not None:
            record["peak_tflops"] = peaks[kind]
            record["peak_source"] = peaks["source"]
        products.append(record)
    result: Dict[str, Any] = {"matmul": products}
    if sampler is not None:
        sampler.stop()
        result["clocks"] = sampler.summary()
    result["copies"] = copies(device, copy_bytes, seconds) if device.type == "cuda" else []
    return result
