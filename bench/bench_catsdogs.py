"""Seed 002's own Dogs-vs-Cats loop against gpudoctor's, on the same generated folder of JPEGs.

The seed's loop: Python-list preprocessing (decode, resize, ``[array, one_hot]`` pairs, ``torch.Tensor`` of a list),
batches sliced and copied to the device each step, and a per-sample test loop. gpudoctor's: the folder decoded once
into one uint8 tensor (cached), the data on the device once, index batches, evaluation in large batches.
Prints samples/s of each stage and the ratios.

    python bench/bench_catsdogs.py [--images 2000] [--epochs 1] [--device cpu]
    python bench/bench_catsdogs.py --bars [--seeds 4]   # accuracy by samples seen, for recipes.GENERATED_BARS
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from typing import Any, List, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from PIL import Image

from gpudoctor.trainers import images, loop, models, recipes


def make_folder(root: str, count: int, seed: int) -> None:
    """``root/Cat`` and ``root/Dog`` JPEGs of the generated images, each scaled to a random size as photos are."""
    bundle = images.generated(count, 1, seed)
    rng = random.Random(seed)
    for name in ("Cat", "Dog"):
        os.makedirs(os.path.join(root, name), exist_ok=True)
    for i in range(count):
        pixels = bundle.x_train[i, 0].numpy()
        size = (rng.randint(150, 400), rng.randint(150, 400))
        img = Image.fromarray(pixels, "L").resize(size)
        img.save(os.path.join(root, ("Cat", "Dog")[int(bundle.y_train[i])], f"{i}.jpg"), quality=90)


def seed_loop(root: str, epochs: int, device: torch.device) -> Tuple[float, float, float, float]:
    """Seed 002's code (Pillow for cv2): returns (images, preprocess s, train samples/s, test samples/s)."""
    start = time.perf_counter()
    training_data: List[Any] = []
    for label, name in enumerate(("Cat", "Dog")):
        folder = os.path.join(root, name)
        for f in os.listdir(folder):
            if "jpg" in f:
                try:
                    img = Image.open(os.path.join(folder, f)).convert("L").resize((50, 50))
                    training_data.append([np.array(img), np.eye(2)[label]])
                except Exception:  # noqa: BLE001 - as the seed does
                    pass
    np.random.shuffle(training_data)  # type: ignore[arg-type]
    X = torch.Tensor(np.array([i[0] for i in training_data])).view(-1, 50, 50) / 255.0
    y = torch.Tensor(np.array([i[1] for i in training_data]))
    val_size = int(len(X) * 0.1)
    train_X, train_y, test_X, test_y = X[:-val_size], y[:-val_size], X[-val_size:], y[-val_size:]
    prep = time.perf_counter() - start

    net = models.build("catsdogs", 0).to(device)
    optimizer = optim.Adam(net.parameters(), lr=0.001)
    loss_function = nn.MSELoss()
    start = time.perf_counter()
    for _ in range(epochs):
        for i in range(0, len(train_X), 100):
            batch_X = train_X[i : i + 100].view(-1, 1, 50, 50).to(device)
            batch_y = train_y[i : i + 100].to(device)
            net.zero_grad()
            optimizer.zero_grad()
            loss = loss_function(net(batch_X), batch_y)
            loss.backward()
            optimizer.step()
        print(f"  seed loop: loss {loss}")  # the seed's per-epoch print (a host sync)
    loop.sync(device)
    train_rate = epochs * len(train_X) / (time.perf_counter() - start)
    start = time.perf_counter()
    correct = 0
    with torch.no_grad():
        for i in range(len(test_X)):
            real_class = torch.argmax(test_y[i]).to(device)
            net_out = net(test_X[i].view(-1, 1, 50, 50).to(device))[0]
            if torch.argmax(net_out) == real_class:
                correct += 1
    test_rate = len(test_X) / (time.perf_counter() - start)
    return float(len(X)), prep, train_rate, test_rate


def gpudoctor_loop(root: str, cache: str, epochs: int, device: torch.device) -> Tuple[float, float, float, float]:
    """gpudoctor's loader and loop: returns (images, preprocess s, train samples/s, test samples/s)."""
    start = time.perf_counter()
    bundle = images.from_folder(root, cache, 0)
    data = loop.to_device(bundle, device, *recipes.NORMALISE["folder"])
    prep = time.perf_counter() - start
    run = loop.train("catsdogs", data, recipes.RECIPES["catsdogs"], device, epochs, 0, None, lambda *a, **k: None)
    model = models.build("catsdogs", 0, bundle.classes).to(device)
    loop.evaluate(model, data.x_test, data.y_test)
    loop.sync(device)
    start = time.perf_counter()
    loop.evaluate(model, data.x_test, data.y_test, recipes.RECIPES["catsdogs"])
    test_rate = bundle.test_size / (time.perf_counter() - start)
    return float(bundle.train_size + bundle.test_size), prep, float(run["samples_per_s"]), test_rate


def bars(seeds: int, train: int) -> None:
    """Test accuracy of seed 002's CNN on the generated images after 1,000, 2,500, 5,000 and 10,000 samples."""
    recipe = recipes.RECIPES["catsdogs"]
    for seed in range(seeds):
        data = loop.to_device(images.generated(train, 1000, seed), torch.device("cpu"), (0.0,), (1.0,))
        row = []
        for samples in (1000, 2500, 5000, 10000):
            steps = samples // recipe.batch_size
            run = loop.train("catsdogs", data, recipe, torch.device("cpu"), 50, seed, None, lambda *a, **k: None,
                             None, steps)
            row.append(f"{run['samples']:,}: {run['accuracy']:.3f}")
        print(f"seed {seed}: " + ", ".join(row), flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--images", type=int, default=2000)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--device", default="cuda:0" if torch.cuda.is_available() else "cpu")
    p.add_argument("--bars", action="store_true")
    p.add_argument("--seeds", type=int, default=4)
    args = p.parse_args()
    if args.bars:
        bars(args.seeds, 5000)
        return
    device = torch.device(args.device)
    with tempfile.TemporaryDirectory() as tmp:
        root, cache = os.path.join(tmp, "PetImages"), os.path.join(tmp, "cache")
        make_folder(root, args.images, 0)
        print(f"{args.images} JPEGs in two classes, {args.epochs} epoch(s) on {device}, torch threads "
              f"{torch.get_num_threads()}")
        results = {"seed 002": seed_loop(root, args.epochs, device)}
        results["gpudoctor (first run)"] = gpudoctor_loop(root, cache, args.epochs, device)
        results["gpudoctor (cached)"] = gpudoctor_loop(root, cache, args.epochs, device)
    print(f"{'loop':24} {'prep images/s':>14} {'train samples/s':>16} {'test samples/s':>15}")
    for name, (n, prep, train, test) in results.items():
        print(f"{name:24} {n / prep:14,.0f} {train:16,.0f} {test:15,.0f}")
    base = results["seed 002"]
    for name in ("gpudoctor (first run)", "gpudoctor (cached)"):
        n, prep, train, test = results[name]
        print(f"{name} / seed 002: prep x{(n / prep) / (base[0] / base[1]):.1f}, train x{train / base[2]:.2f}, "
              f"test x{test / base[3]:.1f}")


if __name__ == "__main__":
    main()
