"""Does the device compute what the CPU computes: a kernel smoke test and a forward/backward parity test."""

from __future__ import annotations

import contextlib
import copy
import math
from typing import Any, Callable, Dict, Iterator, Optional, Tuple

import torch
import torch.nn.functional as F

from .models import build

# Differences are measured relative to the largest magnitude of the CPU's result. In fp32 with TF32 off only the
# order of summation differs, which moves a 256-long matrix product by about 1e-6: hence 1e-4 for the smoke test.
SMOKE_TOLERANCE = 1e-4
# For whole models, cuDNN may also pick FFT or Winograd convolutions (errors up to about 1e-5); 1e-3 keeps two
# orders of magnitude of margin for those, yet a broken kernel or bad memory is off by 1e-2 or more. TF32 (about
# 1e-3) would blur that line, which is why it is off for this step. This bounds the fp32 logits and loss.
PARITY_TOLERANCE = 1e-3
# Gradients are compared in float64 (see parity): the same algorithms there err by about 1e-14, so 1e-6 leaves
# eight orders of magnitude of margin and still catches any kernel that computes wrongly.
GRAD_TOLERANCE = 1e-6


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
    """Allocate, run torch's own elementwise and reduction kernels, then a cuBLAS matmul; compare with the CPU.

    The elementwise kernel comes first: it is compiled into torch for each architecture, so a GPU the wheel has no
    kernels for fails there with "no kernel image is available", not later inside cuBLAS with a vaguer error.
    The record names the step that failed.
    """
    gen = torch.Generator().manual_seed(1234)
    a = torch.randn(256, 256, generator=gen)
    b = torch.randn(256, 256, generator=gen)
    step = "context"
    try:
        if device.type == "cuda":
            torch.cuda.set_device(device)  # the context is made here, so a device that refuses one fails here
        with tf32_off():
            step = "copy"
            da, db = a.to(device), b.to(device)
            step = "elementwise"
            ew = da.sin() * 2.0 + 1.0
            _sync(device)
            step = "reduction"
            red = ew.sum(dim=1)
            _sync(device)
            step = "matmul"
            mm = da @ db
            _sync(device)
            step = "copy back"
            expected = (a.sin() * 2.0 + 1.0, (a.sin() * 2.0 + 1.0).sum(dim=1), a @ b)
            diff = max(rel_diff(e, g.cpu()) for e, g in zip(expected, (ew, red, mm)))
    except Exception as exc:  # noqa: BLE001 - the error text is the result
        return {"ok": False, "step": step, "error": error_text(exc)}
    if not diff <= SMOKE_TOLERANCE:
        return {
            "ok": False,
            "max_rel_diff": diff,
            "error": f"kernels ran but their results differ from the CPU's: largest relative difference {diff:.3g} "
            f"(tolerance {SMOKE_TOLERANCE:g})",
        }
    return {"ok": True, "max_rel_diff": diff}


def _sync(device: torch.device) -> None:
    """Wait for the device, so that an asynchronous kernel error is raised at the step that caused it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def parity(
    name: str,
    batch: Tuple[torch.Tensor, torch.Tensor],
    device: torch.device,
    seed: int,
    perturb: Optional[Callable[[torch.nn.Module], None]] = None,
    classes: int = 0,
) -> Dict[str, Any]:
    """Identical weights and batch on the CPU and on ``device``: logits and loss in fp32, gradients in float64.

    ReLU and max-pooling make gradients discontinuous: a rounding difference of 1e-7 that flips one ReLU or one
    pooling argmax moves a whole fp32 gradient tensor by a few percent on a healthy GPU, while logits and loss
    (continuous functions of the weights) still agree to 1e-7. So the forward pass is compared in fp32, the precision
    training uses, and the gradients in float64, where rounding is 1e-9 times smaller and flips do not happen.
    ``perturb`` is applied to the device's copy of the model (tests plant noise or a wrong kernel through it);
    ``classes`` sizes the output of a model made for any number of classes.
    """
    record: Dict[str, Any] = {"model": name, "tolerance": PARITY_TOLERANCE, "grad_tolerance": GRAD_TOLERANCE}
    x, y = batch
    try:
        with tf32_off():
            cpu_model = build(name, seed, classes)
            dev_model = copy.deepcopy(cpu_model).to(device)
            if perturb is not None:
                perturb(dev_model)
            with torch.no_grad():
                cpu_logits = cpu_model(x)
                dev_logits = dev_model(x.to(device))
                cpu_loss = F.cross_entropy(cpu_logits, y)
                dev_loss = F.cross_entropy(dev_logits, y.to(device))
            record["logits_rel_diff"] = rel_diff(cpu_logits, dev_logits)
            record["loss_rel_diff"] = rel_diff(cpu_loss, dev_loss)
            worst, worst_name = _grad_diff(cpu_model.double(), dev_model.double(), x.double(), y, device)
            record["grad_rel_diff"] = worst
            record["worst"] = worst_name
    except Exception as exc:  # noqa: BLE001 - the error text is the result
        record["error"] = error_text(exc)
        return record
    forward = max(record["logits_rel_diff"], record["loss_rel_diff"])
    record["ok"] = forward <= PARITY_TOLERANCE and worst <= GRAD_TOLERANCE
    return record


def _grad_diff(
    cpu_model: torch.nn.Module, dev_model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, device: torch.device
) -> Tuple[float, str]:
    """The largest relative difference between the two models' gradients (float64), and the parameter's name."""
    F.cross_entropy(cpu_model(x), y).backward()
    F.cross_entropy(dev_model(x.to(device)), y.to(device)).backward()
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
    return worst, worst_name
