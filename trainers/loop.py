"""The training loop: data on the device once, index batches, no host sync per step, evaluation in large batches."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from .data import Bundle
from .models import build
from .protocol import EPOCH, PROGRESS
from .recipes import Recipe

Report = Callable[..., None]
EVAL_CHUNK = 4096


@dataclass(frozen=True)
class DeviceData:
    """A data set on one device, normalised once: float32 images and int64 labels."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    classes: int = 10


def to_device(bundle: Bundle, device: torch.device, mean: Sequence[float], std: Sequence[float]) -> DeviceData:
    """Copy the uint8 images to ``device`` once and normalise them there, as ToTensor + Normalize would."""

    def prepare(images: torch.Tensor) -> torch.Tensor:
        x = images.to(device).float().div_(255.0)
        m = torch.tensor(mean, device=device).view(1, -1, 1, 1)
        s = torch.tensor(std, device=device).view(1, -1, 1, 1)
        return x.sub_(m).div_(s)

    return DeviceData(
        prepare(bundle.x_train),
        bundle.y_train.to(device),
        prepare(bundle.x_test),
        bundle.y_test.to(device),
        bundle.classes,
    )


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def criterion(recipe: Recipe, out: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """The recipe's loss: cross-entropy, or (seed 002) mean squared error against one-hot targets; with
    ``reduction="sum"`` the sum over samples of each sample's loss."""
    if recipe.loss == "mse":
        one_hot = F.one_hot(target, out.shape[1]).to(out.dtype)
        if reduction == "sum":
            return F.mse_loss(out, one_hot, reduction="sum") / out.shape[1]
        return F.mse_loss(out, one_hot)
    return F.cross_entropy(out, target, reduction=reduction)


def make_optimizer(model: torch.nn.Module, recipe: Recipe, device: torch.device) -> torch.optim.Optimizer:
    """SGD with momentum or Adam; the fused CUDA kernel where this torch has it (one launch for all parameters)."""
    if recipe.optimizer == "adam":
        if device.type == "cuda":
            try:
                return torch.optim.Adam(model.parameters(), lr=recipe.lr, fused=True)
            except (TypeError, RuntimeError, ValueError):
                pass
        return torch.optim.Adam(model.parameters(), lr=recipe.lr)
    if device.type == "cuda":
        try:
            return torch.optim.SGD(model.parameters(), lr=recipe.lr, momentum=recipe.momentum, fused=True)
        except (TypeError, RuntimeError, ValueError):
            pass
    return torch.optim.SGD(model.parameters(), lr=recipe.lr, momentum=recipe.momentum)


def evaluate(
    model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, recipe: Optional[Recipe] = None
) -> Tuple[float, float]:
    """Mean loss (the recipe's, else cross-entropy) and accuracy over (x, y), in chunks under inference mode, with
    one host sync."""
    model.eval()
    loss = torch.zeros((), device=x.device)
    correct = torch.zeros((), device=x.device, dtype=torch.long)
    with torch.inference_mode():
        for start in range(0, x.shape[0], EVAL_CHUNK):
            out = model(x[start : start + EVAL_CHUNK])
            target = y[start : start + EVAL_CHUNK]
            loss += criterion(recipe, out, target, "sum") if recipe else F.cross_entropy(out, target, reduction="sum")
            correct += (out.argmax(1) == target).sum()
    model.train()
    n = max(1, x.shape[0])
    return float(loss.item()) / n, float(correct.item()) / n


def _warm_up(name: str, data: DeviceData, recipe: Recipe, device: torch.device, seed: int) -> None:
    """A few steps on a throwaway copy, so that kernel loading and autotuning are not timed."""
    model = build(name, seed, data.classes).to(device)
    opt = make_optimizer(model, recipe, device)
    n = data.x_train.shape[0]
    sizes = [min(recipe.batch_size, n)] * 3
    if n % recipe.batch_size:
        sizes.append(n % recipe.batch_size)
    for size in sizes:
        opt.zero_grad(set_to_none=True)
        criterion(recipe, model(data.x_train[:size]), data.y_train[:size]).backward()
        opt.step()
    evaluate(model, data.x_test[:EVAL_CHUNK], data.y_test[:EVAL_CHUNK], recipe)
    sync(device)


def train(
    name: str,
    data: DeviceData,
    recipe: Recipe,
    device: torch.device,
    epochs: int,
    seed: int,
    budget_s: Optional[float],
    report: Report,
    fault: Optional[Callable[[], None]] = None,
    budget_steps: Optional[int] = None,
) -> Dict[str, Any]:
    """Train ``name`` on ``device`` and return the ModelRun fields; ``budget_s`` seconds or ``budget_steps`` steps
    stop it early (the CPU baseline: seconds for users, steps where the outcome must not depend on speed).

    ``report(event, **fields)`` receives throttled PROGRESS events and one EPOCH event per epoch.
    """
    n = int(data.x_train.shape[0])
    bs = recipe.batch_size
    steps_per_epoch = max(1, math.ceil(n / bs))
    total = steps_per_epoch * epochs
    run: Dict[str, Any] = {
        "model": name,
        "device": str(device),
        "batch_size": bs,
        "planned_epochs": epochs,
        "planned_samples": n * epochs,
        "train_size": n,
        "test_size": int(data.x_test.shape[0]),
        "threads": torch.get_num_threads() if device.type == "cpu" else None,
    }
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    _warm_up(name, data, recipe, device, seed + 1)
    model = build(name, seed, data.classes).to(device)
    opt = make_optimizer(model, recipe, device)
    run["first_loss"], _ = evaluate(model, data.x_test, data.y_test, recipe)
    gen = torch.Generator(device=device).manual_seed(seed)
    losses: List[float] = []
    accuracies: List[float] = []
    final: Optional[Tuple[float, float]] = None
    trained_s, done, completed, stopped = 0.0, 0, 0, False
    for epoch in range(epochs):
        sync(device)
        start = last = time.perf_counter()
        perm = torch.randperm(n, device=device, generator=gen)
        loss_sum = torch.zeros((), device=device)
        steps = 0
        for step in range(steps_per_epoch):
            if budget_s is not None and done and trained_s + time.perf_counter() - start >= budget_s:
                stopped = True
                break
            if budget_steps is not None and epoch * steps_per_epoch + step >= max(1, budget_steps):
                stopped = True
                break
            if fault is not None:
                fault()
            idx = perm[step * bs : (step + 1) * bs]
            opt.zero_grad(set_to_none=True)
            loss = criterion(recipe, model(data.x_train.index_select(0, idx)), data.y_train.index_select(0, idx))
            loss.backward()
            opt.step()
            loss_sum += loss.detach()
            steps += 1
            done += int(idx.shape[0])
            now = time.perf_counter()
            if now - last >= 0.25:
                last = now
                rate = done / max(1e-9, trained_s + now - start)
                report(PROGRESS, step=epoch * steps_per_epoch + step + 1, total=total, samples_per_s=rate)
        mean_loss = float((loss_sum / max(1, steps)).item())  # the epoch's one host sync
        trained_s += time.perf_counter() - start
        if steps:
            losses.append(mean_loss)
        if not math.isfinite(mean_loss):
            run["error"] = (
                f"the training loss became {mean_loss} in epoch {epoch + 1}: {device} computed invalid numbers"
            )
            break
        if stopped:
            break
        completed = epoch + 1
        final = evaluate(model, data.x_test, data.y_test, recipe)
        accuracies.append(final[1])
        report(
            EPOCH,
            epoch=completed,
            epochs=epochs,
            step=completed * steps_per_epoch,
            total=total,
            samples_per_s=done / trained_s,
            loss=mean_loss,
            accuracy=final[1],
        )
    if final is None or completed < epochs:
        final = evaluate(model, data.x_test, data.y_test, recipe)
    run.update(
        epochs=completed,
        samples=done,
        seconds=trained_s,
        samples_per_s=done / trained_s if trained_s > 0 else None,
        complete=completed == epochs,
        estimated_seconds=n * epochs * trained_s / done if stopped and done else None,
        epoch_losses=losses,
        epoch_accuracies=accuracies,
        final_loss=final[0],
        accuracy=final[1],
    )
    return run


def throughput(
    name: str, data: DeviceData, recipe: Recipe, device: torch.device, batch: int, steps: int, seed: int
) -> Dict[str, Any]:
    """Training samples/s of ``name`` at a large batch, over ``steps`` timed steps after one untimed step.

    At the recipes' batch of 64 a GPU step takes less time than Python needs to launch its kernels, so the training
    speed-up measures the host's dispatch rather than the GPU. At a large batch the arithmetic dominates on both
    devices, and the ratio is about the GPU.
    """
    model = build(name, seed, data.classes).to(device)
    opt = make_optimizer(model, recipe, device)
    n = int(data.x_train.shape[0])
    gen = torch.Generator(device=device).manual_seed(seed)
    idx = [torch.randint(0, n, (batch,), device=device, generator=gen) for _ in range(steps + 1)]
    start = 0.0
    for step, chosen in enumerate(idx):
        if step == 1:
            sync(device)
            start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        criterion(recipe, model(data.x_train.index_select(0, chosen)), data.y_train.index_select(0, chosen)).backward()
        opt.step()
    sync(device)
    seconds = max(time.perf_counter() - start, 1e-9)
    return {"speed_batch": batch, "speed_steps": steps, "speed_samples_per_s": batch * steps / seconds}
