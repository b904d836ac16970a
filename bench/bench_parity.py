"""The parity criterion under realistic noise and against a planted wrong kernel, on the CPU (no speed involved).

For each random draw (fresh weights, a fresh batch of 64 images) and each reference model, the "device" copy of
the model errs like a healthy GPU (every layer's outputs and gradients off by cuDNN's FFT/Winograd error, 1e-5 in
fp32, see gpudoctor.trainers.perturb) and verify's parity test must pass; the old criterion (fp32 gradients within
1e-3) is counted beside it. Then a wrong kernel (the first layer leaves out one input from its sums) must fail
every draw.

    python bench/bench_parity.py                 # 1,000 draws (a few minutes on a small CPU)
    python bench/bench_parity.py --draws 100
    python bench/bench_parity.py --device cuda:0 # a real GPU: its own rounding instead of planted noise
"""

from __future__ import annotations

import argparse
import warnings
from typing import Dict, Optional, Sequence, Tuple

import copy

import torch
import torch.nn.functional as F

from gpudoctor.trainers.models import build
from gpudoctor.trainers import data, loop, perturb, recipes, sanity

CPU = torch.device("cpu")
SHAPES = {"fnn": ("mnist", (1, 28, 28)), "cnn": ("mnist", (1, 28, 28)), "lenet": ("cifar10", (3, 32, 32))}


def batch(model: str, draw: int) -> Tuple[torch.Tensor, torch.Tensor]:
    """64 normalised images of the model's shape, different for every draw."""
    dataset, shape = SHAPES[model]
    bundle = data.synthetic(64, 1, 1000 + draw, shape=shape)
    on_cpu = loop.to_device(bundle, CPU, *recipes.NORMALISE[dataset])
    return on_cpu.x_train, on_cpu.y_train


def old_criterion_fails(model: str, xy: Tuple[torch.Tensor, torch.Tensor], seed: int, device: torch.device) -> bool:
    """Whether fp32 gradients differ by more than 1e-3 between the CPU and ``device`` (the CPU with planted noise),
    the criterion parity used before."""
    x, y = xy
    ref = build(model, seed)
    other = copy.deepcopy(ref).to(device)
    if device.type == "cpu":
        perturb.noise(seed)(other)
    with sanity.tf32_off():
        F.cross_entropy(ref(x), y).backward()
        F.cross_entropy(other(x.to(device)), y.to(device)).backward()
    mine = dict(other.named_parameters())
    return any(sanity.rel_diff(p.grad, mine[n].grad) > 1e-3 for n, p in ref.named_parameters())


def run(draws: int, device: torch.device) -> Dict[str, Dict[str, float]]:
    results: Dict[str, Dict[str, float]] = {}
    for model in SHAPES:
        passed = caught = old_failed = 0
        worst_forward = worst_grad = 0.0
        for draw in range(draws):
            xy = batch(model, draw)
            noise = perturb.noise(draw) if device.type == "cpu" else None
            healthy = sanity.parity(model, xy, device, draw, noise)
            if "error" in healthy:
                raise SystemExit(f"{model}, draw {draw}: {healthy['error']}")
            passed += bool(healthy["ok"])
            worst_forward = max(worst_forward, healthy["logits_rel_diff"], healthy["loss_rel_diff"])
            worst_grad = max(worst_grad, healthy["grad_rel_diff"])
            caught += not sanity.parity(model, xy, device, draw, perturb.wrong_kernel)["ok"]
            old_failed += old_criterion_fails(model, xy, draw, device)
        results[model] = {
            "draws": draws,
            "passed_with_noise": passed,
            "worst_forward": worst_forward,
            "worst_grad_float64": worst_grad,
            "wrong_kernel_caught": caught,
            "old_criterion_false_failures": old_failed,
        }
    return results


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", help="cpu (planted noise stands in for a GPU) or cuda:N")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message="Full backward hook is firing")  # the input needs no gradient
    ok = True
    device = torch.device(args.device)
    if device.type == "cuda":
        print(f"{args.device}: {torch.cuda.get_device_name(device)}, torch {torch.__version__}, cuDNN "
              f"{torch.backends.cudnn.version()}")
    for model, r in run(args.draws, device).items():
        print(
            f"{model}: {r['passed_with_noise']}/{r['draws']} healthy draws pass (worst logits/loss "
            f"{r['worst_forward']:.2g} vs {sanity.PARITY_TOLERANCE:g}, worst float64 gradient "
            f"{r['worst_grad_float64']:.2g} vs {sanity.GRAD_TOLERANCE:g}); wrong kernel caught in "
            f"{r['wrong_kernel_caught']}/{r['draws']}; the old fp32-gradient criterion failed "
            f"{r['old_criterion_false_failures']} healthy draws"
        )
        ok = ok and r["passed_with_noise"] == r["draws"] == r["wrong_kernel_caught"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
