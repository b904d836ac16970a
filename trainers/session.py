"""One worker session: report the torch build, then smoke-test, compare, train and benchmark one device."""

from __future__ import annotations
import argparse
import functools
import os
from typing import Any, Callable, Dict, Optional, Sequence

from .hello import hello
from .planted import fault, planted_clocks, planted_kinds, planted_release
from .protocol import ACCELERATOR_ENV, BENCH, DONE, FATAL, PARITY, RUN, SMOKE, STAGE, Emitter
from .recipes import DATASETS, DEFAULT_EPOCHS, MODELS, NORMALISE, RECIPES, required_accuracy


def parse(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpudoctor-verify-worker")
    p.add_argument("--device", default="auto", help="auto (the first GPU), cuda:N, or cpu (the CPU baseline)")
    p.add_argument("--dataset", choices=DATASETS, default="synthetic")
    p.add_argument("--data-dir")
    p.add_argument("--cache-dir", help="where decoded image folders are cached")
    p.add_argument("--epochs", type=int)
    p.add_argument("--train-size", type=int)
    p.add_argument("--test-size", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--label", help="the name to report the device under (a MIG instance's UUID)")
    p.add_argument("--cpu-seconds", type=float, default=3.0, help="training time per model on the CPU")
    p.add_argument("--cpu-steps", type=int, help="training steps per model on the CPU instead of a time budget")
    p.add_argument("--speed-batch", type=int, default=1024, help="batch of the speed comparison (0: none)")
    p.add_argument("--speed-steps", type=int, default=5, help="timed steps of the speed comparison")
    p.add_argument("--no-bench", action="store_true")
    p.add_argument("--bench-n", type=int, help="matrix size (default: 8192, or 4096 under 16 GiB)")
    p.add_argument("--bench-bytes", type=int, help="bytes per copy (default: 256 MiB, or 64 MiB under 4 GiB)")
    p.add_argument("--bench-seconds", type=float, default=0.3)
    return p.parse_args(list(argv))


def _relay(em: Emitter, model: str, label: str, event: str, **fields: Any) -> None:
    em.emit(event, model=model, device=label, **fields)


def main(argv: Sequence[str], em: Emitter) -> int:
    args = parse(argv)
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001 - an import can fail in any way
        em.emit(FATAL, kind="import", error=f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:600])
        return 3
    from . import data, sanity

    hook, _, rest = os.environ.get(ACCELERATOR_ENV, "").partition(":")
    count, _, mig = rest.partition(":")
    stand_in = hook == "cpu"
    em.emit(STAGE, stage="cuda-init")
    info = hello(torch, em, int(count or 1) if stand_in and args.device != "cpu" else 0, mig == "mig")

    if args.device == "cpu":
        label, device = "cpu", torch.device("cpu")
    else:
        if not info.get("cuda_available"):
            em.emit(DONE, gpu=False)
            return 0
        label = "cuda:0" if args.device == "auto" else args.device
        known = [d["device"] for d in info["devices"]]
        if label not in known:
            error = f"{label} does not exist: torch sees {len(known)} GPU(s) ({', '.join(known)})"
            em.emit(FATAL, kind="device", error=error)
            return 2
        device = torch.device("cpu") if stand_in else torch.device(label)
    gpu: Dict[str, Any] = next((d for d in info["devices"] if d["device"] == label), {})
    if args.label and label != "cpu":
        label = args.label[:100]

    em.emit(STAGE, stage="data", device=label)
    try:
        bundle = data.load(args.dataset, args.data_dir, args.train_size, args.test_size, args.seed, args.cache_dir)
    except Exception as exc:  # noqa: BLE001
        em.emit(FATAL, kind="data", error=sanity.error_text(exc))
        return 4
    if label != "cpu" and not _kernels_agree(torch, em, args, bundle, device, label):
        em.emit(DONE, gpu=True)
        return 0
    _train_all(torch, em, args, bundle, device, label, fault(em, torch, label))
    if label != "cpu" and not args.no_bench:
        _bench(em, args, gpu, device, label, stand_in)
    em.emit(DONE, gpu=label != "cpu")
    return 0


def _kernels_agree(torch: Any, em: Emitter, args: argparse.Namespace, bundle: Any, device: Any, label: str) -> bool:
    """The smoke test, then CPU/GPU parity of every model on one batch; False when kernels do not run at all."""
    from . import data, loop, sanity

    em.emit(STAGE, stage="smoke", device=label)
    result = sanity.smoke(device)
    em.emit(SMOKE, device=label, **result)
    if not result["ok"]:
        return False
    mean, std = NORMALISE[args.dataset]
    first = data.Bundle(
        bundle.name, bundle.x_train[:64], bundle.y_train[:64], bundle.x_test[:1], bundle.y_test[:1], bundle.classes
    )
    batch = loop.to_device(first, torch.device("cpu"), mean, std)
    planted: Optional[Callable[[Any], None]] = None
    if "wrong-kernel" in planted_kinds(label):
        from . import perturb

        planted = perturb.wrong_kernel
    for model in MODELS[args.dataset]:
        em.emit(STAGE, stage="parity", device=label, model=model)
        result = sanity.parity(model, (batch.x_train, batch.y_train), device, args.seed, planted, bundle.classes)
        em.emit(PARITY, device=label, **result)
    return True


def _train_all(
    torch: Any,
    em: Emitter,
    args: argparse.Namespace,
    bundle: Any,
    device: Any,
    label: str,
    fault: Optional[Callable[[], None]],
) -> None:
    """Train every model of the data set on ``device`` (time-bounded on the CPU), one RUN record each."""
    from . import loop, sanity

    epochs = args.epochs or DEFAULT_EPOCHS[args.dataset]
    models = MODELS[args.dataset]
    try:
        on_device = loop.to_device(bundle, device, *NORMALISE[args.dataset])
    except Exception as exc:  # noqa: BLE001
        error = f"could not put the data set on {label}: {sanity.error_text(exc)}"
        for model in models:
            em.emit(RUN, model=model, device=label, error=error)
        return
    on_cpu = label == "cpu"
    stand_in_release = planted_release(label) if device.type != "cuda" else None
    budget = args.cpu_seconds if on_cpu and args.cpu_steps is None else None
    steps = args.cpu_steps if on_cpu else None
    for model in models:
        em.emit(STAGE, stage="train", device=label, model=model)
        report = functools.partial(_relay, em, model, label)
        failed = False
        try:
            run = loop.train(model, on_device, RECIPES[model], device, epochs, args.seed, budget, report, fault, steps)
        except Exception as exc:  # noqa: BLE001 - out of memory, CUDA errors: recorded, next model
            run, failed = {"model": model, "error": sanity.error_text(exc)}, True
        run.update(device=label)
        if not failed and args.speed_batch > 0 and args.speed_steps > 0:
            em.emit(STAGE, stage="speed", device=label, model=model)
            try:
                speed_args = (on_device, RECIPES[model], device, args.speed_batch, args.speed_steps, args.seed)
                run.update(loop.throughput(model, *speed_args))
            except Exception as exc:  # noqa: BLE001 - recorded; the training result stands
                run["speed_error"] = sanity.error_text(exc)
        if not run.get("error"):
            seen = int(run.get("samples") or 0)
            required, basis = required_accuracy(
                args.dataset, model, seen, bundle.train_size, bundle.test_size, bundle.classes,
                _majority_share(bundle.y_test),
            )
            if bundle.note:
                basis = f"{basis}; {bundle.note}"
            run.update(accuracy_required=required, accuracy_basis=basis)
        em.emit(RUN, **run)  # first: after a fatal CUDA error anything else may raise too
        if failed and (device.type == "cuda" or stand_in_release is not None):
            _release(torch, em, label, stand_in_release)


def _release(torch: Any, em: Emitter, label: str, release: Optional[Callable[[], None]]) -> None:
    """Give cached GPU memory back after a failed run; after a fatal CUDA error that call raises too, which is noted."""
    from .sanity import error_text

    try:
        (release or torch.cuda.empty_cache)()
    except Exception as exc:  # noqa: BLE001 - the run's record is already out
        em.emit(STAGE, stage="release", device=label, error=error_text(exc))


def _bench(em: Emitter, args: argparse.Namespace, gpu: Dict[str, Any], device: Any, label: str, stand_in: bool) -> None:
    """Matmul and copy micro-benchmarks, sized to the GPU's memory (tiny for the test stand-in)."""
    from . import bench

    em.emit(STAGE, stage="bench", device=label)
    memory = gpu.get("total_memory_mib") or 0
    n = args.bench_n or (128 if stand_in else 8192 if memory >= 16 * 1024 else 4096)
    nbytes = args.bench_bytes or ((256 if memory >= 4 * 1024 else 64) << 20)
    seconds = min(args.bench_seconds, 0.05) if stand_in else args.bench_seconds
    cc = gpu.get("compute_capability")
    # TF32 and BF16 need sm_80 or newer; Volta and Turing have fp16 tensor cores only
    kinds = ("fp32", "fp16") if cc and cc[0] < 8 else ("fp32", "tf32", "bf16")
    from . import clocks

    read = planted_clocks(label) if stand_in else None
    sampler = clocks.sampler_for(gpu.get("pci_bus_id"), read) if (read or not stand_in) else None
    result = bench.run(device, gpu.get("name"), n, nbytes, seconds, kinds, gpu.get("sm_count"), sampler)
    em.emit(BENCH, device=label, **result)


def _majority_share(labels: Any) -> Optional[float]:
    """The share of the largest class among ``labels`` (class indices, or one-hot rows); None when there are none."""
    try:
        flat = labels.argmax(1) if labels.dim() > 1 else labels
        if flat.numel() == 0:
            return None
        return float(flat.long().bincount().max().item()) / float(flat.numel())
    except Exception:  # noqa: BLE001 - a label tensor of an unexpected form keeps the plain chance bar
        return None
