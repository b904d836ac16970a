"""DDP training of the reference FNN and CNN across every rank, against one process over the same global batch.

Each step every rank trains on its own slice of one global batch generated from a fixed seed; DDP averages the
gradients, which is what one process computes over the whole batch. So the mean of the ranks' losses must follow the
single process's loss curve, up to the order in which floating-point sums are taken (PARITY_TOLERANCE).
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Tuple

from .models import build

SEED = 2024
LR = {"fnn": 0.3, "cnn": 0.05}  # the CNN's loss falls as visibly at a smaller step, and stays smooth
MODELS = ("fnn", "cnn")
CNN_STEPS = 10  # the CNN costs more per step; its parity shows within a few
# Relative difference of the loss per step. Only summation order differs (gradients averaged across ranks rather
# than over one batch), about 1e-7 per step in fp32, growing slowly over the steps; a lost or doubled gradient
# moves the loss by 1e-2 or more within a few steps.
PARITY_TOLERANCE = 1e-4


def global_batches(torch: Any, steps: int, global_batch: int) -> Tuple[Any, Any]:
    """Inputs and labels for every step, the same on every rank: two batches taken in turn, labelled by a fixed
    projection, so that the loss falls visibly within a few steps."""
    gen = torch.Generator().manual_seed(SEED)
    pool = torch.randn(2, global_batch, 784, generator=gen)
    weights = torch.randn(784, 10, generator=gen)
    x = pool[torch.arange(steps) % 2]
    return x, (x @ weights).argmax(dim=2)


def steps_for(name: str, steps: int) -> int:
    return min(steps, CNN_STEPS) if name == "cnn" else steps


def _train(torch: Any, name: str, model: Any, x: Any, y: Any, device: Any) -> Tuple[List[float], float]:
    """SGD over the given batches; the loss of each step and the seconds the steps took."""
    F = torch.nn.functional
    opt = torch.optim.SGD(model.parameters(), lr=LR[name])
    losses: List[float] = []
    if name == "cnn":
        x = x.reshape(x.shape[0], x.shape[1], 1, 28, 28)  # the same pixels as 1x28x28 images
    x, y = x.to(device), y.to(device)
    start = time.perf_counter()
    for step in range(x.shape[0]):
        opt.zero_grad()
        loss = F.cross_entropy(model(x[step]), y[step])
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return losses, time.perf_counter() - start


def local(torch: Any, dist: Any, device: Any, steps: int, batch: int, name: str = "fnn") -> Dict[str, Any]:
    """This rank's DDP run of model ``name`` over its slice of each global batch: its losses and time."""
    from torch.nn.parallel import DistributedDataParallel

    rank, world = dist.get_rank(), dist.get_world_size()
    steps = steps_for(name, steps)
    x, y = global_batches(torch, steps, batch * world)
    mine = slice(rank * batch, (rank + 1) * batch)
    model = build(name, SEED).to(device)
    ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    losses, seconds = _train(torch, name, ddp, x[:, mine], y[:, mine], device)
    return {"losses": losses, "seconds": seconds, "batch": batch, "steps": steps}


def reference(torch: Any, device: Any, steps: int, batch: int, world: int, name: str = "fnn") -> Dict[str, Any]:
    """One process: the whole global batch per step (the loss curve DDP must follow), then one rank's share alone
    (the throughput N ranks are compared against)."""
    steps = steps_for(name, steps)
    x, y = global_batches(torch, steps, batch * world)
    losses, _ = _train(torch, name, build(name, SEED).to(device), x, y, device)
    _, seconds = _train(torch, name, build(name, SEED).to(device), x[:, :batch], y[:, :batch], device)
    return {"losses": losses, "single_seconds": seconds}


def summarise(ranks: List[Dict[str, Any]], ref: Dict[str, Any], world: int, name: str = "fnn") -> Dict[str, Any]:
    """The training part of the facts from every rank's run and the single process's (pure; rank 0 calls it)."""
    runs = [r for r in ranks if isinstance(r.get("losses"), list)]
    if not runs or len(runs) < world or not isinstance(ref.get("losses"), list):
        return {"model": name, "error": "not every rank finished its DDP run"}
    steps = min(len(r["losses"]) for r in runs)
    batch = int(runs[0].get("batch") or 0)
    mean = [sum(float(r["losses"][i]) for r in runs) / len(runs) for i in range(steps)]
    want = [float(v) for v in ref["losses"][:steps]]
    diffs = [abs(a - b) / max(abs(b), 1e-12) for a, b in zip(mean, want)]
    slowest = max(float(r.get("seconds") or 0.0) for r in runs)
    rate = batch * world * steps / slowest if slowest > 0 else None
    single = batch * steps / float(ref["single_seconds"]) if ref.get("single_seconds") else None
    return {
        "model": name,
        "steps": steps,
        "batch_per_rank": batch,
        "global_batch": batch * world,
        "losses": mean,
        "reference_losses": want,
        "max_rel_diff": max(diffs) if diffs else None,
        "tolerance": PARITY_TOLERANCE,
        "samples_per_s": rate,
        "single_samples_per_s": single,
        "scaling_efficiency": rate / (world * single) if rate and single else None,
    }
