"""Where verify's accuracy bars come from: accuracy of the reference models against samples seen, several seeds.

Each model is trained with its own recipe (seed 001's settings for the FNN) for a fixed number of steps, so the
result does not depend on the machine's speed, on synthetic data and, where scikit-learn is importable, on real
handwritten digits (scikit-learn's 8x8 digits, scaled to 20x20 and centred in 28x28 as MNIST's digits are). For
each amount of training it prints the worst and best accuracy over the seeds and the bar verify applies there:
the worst must stay above the bar.

    python bench/bench_bars.py                      # subsets: 2,400 synthetic images, 1,500 digits
    python bench/bench_bars.py --full --seeds 3     # also 60,000 synthetic images (slow on a small CPU)
"""

from __future__ import annotations

import argparse
from typing import Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from gpudoctor.trainers import data, loop, recipes


def digits() -> Optional[data.Bundle]:
    """scikit-learn's handwritten digits in MNIST's layout, or None without scikit-learn."""
    try:
        from sklearn.datasets import load_digits  # type: ignore[import-untyped]
    except ImportError:
        return None
    d = load_digits()
    x = torch.tensor(d.images, dtype=torch.float32).view(-1, 1, 8, 8) / 16.0
    x = F.pad(F.interpolate(x, size=(20, 20), mode="bilinear", align_corners=False), (4, 4, 4, 4)).clamp(0, 1)
    images = (x * 255).round().to(torch.uint8)
    labels = torch.tensor(d.target, dtype=torch.long)
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(0))
    images, labels = images[order], labels[order]
    return data.Bundle("digits", images[:1500], labels[:1500], images[1500:], labels[1500:])


def accuracy_after(bundle: data.Bundle, model: str, samples: int, seed: int) -> Tuple[float, int]:
    """Test accuracy after ``samples`` training samples (rounded up to whole batches), and the samples seen."""
    on_cpu = loop.to_device(bundle, torch.device("cpu"), *recipes.NORMALISE["mnist"])
    recipe = recipes.RECIPES[model]
    steps = -(-samples // recipe.batch_size)
    epochs = -(-steps * recipe.batch_size // bundle.train_size)
    run = loop.train(
        model, on_cpu, recipe, torch.device("cpu"), epochs, seed, None, lambda *a, **k: None, budget_steps=steps
    )
    return float(run["accuracy"]), int(run["samples"])


def table(name: str, bundle: data.Bundle, dataset: str, points: Sequence[int], seeds: int) -> List[str]:
    lines = [f"{name}: {bundle.train_size:,} training images, {bundle.test_size:,} test images"]
    failures: Dict[str, int] = {}
    for model in ("fnn", "cnn"):
        for samples in points:
            accs = [accuracy_after(bundle, model, samples, seed) for seed in range(seeds)]
            seen = accs[0][1]
            worst, best = min(a for a, _ in accs), max(a for a, _ in accs)
            bar, _ = recipes.required_accuracy(dataset, model, seen, bundle.train_size, bundle.test_size)
            verdict = "no bar" if bar is None else ("ok" if worst >= bar else "BELOW BAR")
            if verdict == "BELOW BAR":
                failures[model] = failures.get(model, 0) + 1
            shown = "-" if bar is None else f"{bar:.0%}"
            lines.append(f"  {model} {seen:>8,} samples: worst {worst:6.1%} best {best:6.1%} bar {shown:>4}  {verdict}")
    lines.append(f"  below a bar: {sum(failures.values())}")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--full", action="store_true", help="also train on 60,000 synthetic images")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    subset_points = (1_500, 3_000, 4_800, 6_000, 7_200, 12_000, 20_000)
    out = table("synthetic subset", data.synthetic(2400, 1000, 7), "synthetic", subset_points, args.seeds)
    real = digits()
    if real is None:
        out.append("handwritten digits: scikit-learn is not installed, skipped")
    else:
        out += table("handwritten digits (scikit-learn)", real, "mnist", subset_points, args.seeds)
    if args.full:
        full = data.synthetic(60_000, 10_000, 7)
        out += table("synthetic, full size", full, "synthetic", (6_000, 20_000, 60_000), args.seeds)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
