"""Does the device compute what the CPU computes: a kernel smoke test and a forward/backward parity test."""

from __future__ import annotations

import contextlib
import copy
import math
from typing import Any, Dict, Iterator, Tuple

import torch
import torch.nn.functional as F

from .models import build

# Differences are measured relative to the largest magnitude of the CPU's result. In fp32 with TF32 off only the
# order of summation differs, which moves a 256-long matrix product by about 1e-6: hence 1e-4 for the smoke test.
SMOKE_TOLERANCE = 1e-4
# For whole models, cuDNN may also pick FFT or Winograd convolutions (errors up to about 1e-5); 1e-3 keeps two
# orders of magnitude of margin for those, yet a broken kernel or bad memory is off by 1e-2 or more. TF32 (about
# 1e-3) would blur that line, which is why it is off for this step.
PARITY_TOLERANCE = 1e-3


def error_text(exc: BaseException) -> str:
    """``Type: message`` on one line, cut to the part that names the problem."""
    text = " ".join(str(exc).split())
    for marker in (" CUDA kernel errors might be asynchronously", " For debugging consider passing"):
        if marker in text:
            text = text.split(marker, 1)[0].rstrip()
    return f"{type(exc).__name__}: {text}"[:600]


@contextlib.contextmanager
def tf32_off() -> Iterator[None]:
    """Plain fp32 matrix products and convolutions for the duration (restores the previous settings)."""
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = matmul
        torch.backends.cudnn.allow_tf32 = cudnn


def rel_diff(reference: torch.Tensor, other: torch.Tensor) -> float:
    """Largest absolute difference relative to the largest magnitude of ``reference``."""
    ref = reference.detach().double().cpu()
    got = other.detach().double().cpu()
    scale = max(float(ref.abs().max()), 1e-12) if ref.numel() else 1.0
    return float((ref - got).abs().max()) / scale if ref.numel() else 0.0


def smoke(device: torch.device) -> Dict[str, Any]:
    """Allocate, run elementwise, reduction and matmul kernels, copy back and compare with the CPU."""
    gen = torch.Generator().manual_seed(1234)
    a = torch.randn(256, 256, generator=gen)
    b = torch.randn(256, 256, generator=gen)
    try:
        if device.type == "cuda":
            torch.cuda.set_device(device)  # the context is made here, so a device that refuses one fails here
        with tf32_off():
            expected = (a @ b, (a.sin() * 2.0 + 1.0).sum(dim=1))
            da, db = a.to(device), b.to(device)
            got = (da @ db, (da.sin() * 2.0 + 1.0).sum(dim=1))
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            diff = max(rel_diff(e, g.cpu()) for e, g in zip(expected, got))
    except Exception as exc:  # noqa: BLE001 - the error text is the result
        return {"ok": False, "error": error_text(exc)}
    if not diff <= SMOKE_TOLERANCE:
        return {
            "ok": False,
            "max_rel_diff": diff,
            "error": f"kernels ran but their results differ from the CPU's: largest relative difference {diff:.3g} "
            f"(tolerance {SMOKE_TOLERANCE:g})",
        }
    return {"ok": True, "max_rel_diff": diff}


def parity(name: str, batch: Tuple[torch.Tensor, torch.Tensor], device: torch.device, seed: int) -> Dict[str, Any]:
    """Identical weights and batch on the CPU and on ``device``: compare the loss and every gradient."""
    record: Dict[str, Any] = {"model": name, "tolerance": PARITY_TOLERANCE}
    x, y = batch
    try:
        with tf32_off():
            cpu_model = build(name, seed)
            dev_model = copy.deepcopy(cpu_model).to(device)
            cpu_loss = F.cross_entropy(cpu_model(x), y)
            cpu_loss.backward()
            dev_loss = F.cross_entropy(dev_model(x.to(device)), y.to(device))
            dev_loss.backward()
            record["loss_rel_diff"] = rel_diff(cpu_loss, dev_loss)
            worst, worst_name = 0.0, ""
            dev_params = dict(dev_model.named_parameters())
            for pname, param in cpu_model.named_parameters():
                grad, dev_grad = param.grad, dev_params[pname].grad
                if grad is None or dev_grad is None:
                    raise RuntimeError(f"no gradient for {pname}")
                diff = rel_diff(grad, dev_grad)
                if math.isnan(diff) or diff > worst:
                    worst, worst_name = diff, pname
                if math.isnan(diff):
                    break
            record["grad_rel_diff"] = worst
            record["worst"] = worst_name
    except Exception as exc:  # noqa: BLE001 - the error text is the result
        record["error"] = error_text(exc)
        return record
    record["ok"] = record["loss_rel_diff"] <= PARITY_TOLERANCE and worst <= PARITY_TOLERANCE
    return record
