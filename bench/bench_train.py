"""Training-loop benchmark: the seed tutorials' loop against gpudoctor's, same model, data and device, in one process.

The seed-style loop is seed 001's: a torchvision dataset with ToTensor + Normalize transforms, a shuffling
DataLoader, ``.cuda()`` per batch and ``loss.item()`` every step. gpudoctor's loop (gpudoctor.trainers.loop) keeps
the normalised data on the device, draws batches by index and syncs once per epoch.

    python bench/bench_train.py --device cuda:0 --dataset mnist            # the targets below, on a GPU
    python bench/bench_train.py --device cpu --train-size 4000 --epochs 1  # a quick run on the CPU
    python bench/bench_train.py --device cuda:0 --dataset mnist --verify   # also time all of `gpudoctor verify`

Targets on an H100: the FNN's 5 epochs over 60,000 MNIST images in at most 3 s, at least 10x the seed-style loop,
and all of ``gpudoctor verify --train mnist`` in at most 30 s.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Optional, Tuple

import torch
from torch.utils.data import DataLoader, Dataset

from gpudoctor.probes.verify import fetch
from gpudoctor.trainers import data, loop, models, recipes


class ImageDataset(Dataset):  # type: ignore[type-arg]
    """uint8 images served one at a time as PIL images through transforms, as torchvision's MNIST/CIFAR10 do."""

    def __init__(self, images: torch.Tensor, labels: torch.Tensor, transform: Any) -> None:
        from PIL import Image

        self.images, self.labels, self.transform, self._image = images, labels, transform, Image

    def __len__(self) -> int:
        return int(self.images.shape[0])

    def __getitem__(self, i: int) -> Tuple[torch.Tensor, int]:
        img = self.images[i]
        pil = self._image.fromarray(img[0].numpy() if img.shape[0] == 1 else img.permute(1, 2, 0).numpy())
        return self.transform(pil), int(self.labels[i])


def seed_style(bundle: data.Bundle, name: str, device: torch.device, epochs: int, limit_s: float) -> Tuple[float, int]:
    """Seed 001's loop; returns (samples/s, samples) over at most ``epochs`` epochs or ``limit_s`` seconds."""
    from torchvision import transforms

    mean, std = recipes.NORMALISE[bundle.name]
    recipe = recipes.RECIPES[name]
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
    loader = DataLoader(ImageDataset(bundle.x_train, bundle.y_train, tf), shuffle=True, batch_size=recipe.batch_size)
    model = models.build(name, 0).to(device)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=recipe.lr, momentum=recipe.momentum)
    done, running = 0, 0.0
    start = time.perf_counter()
    for _ in range(epochs):
        for inputs, target in loader:
            inputs, target = inputs.to(device), target.to(device)
            optimizer.zero_grad()
            loss = criterion(model(inputs), target)
            loss.backward()
            optimizer.step()
            running += loss.item()  # the host sync every step
            done += int(inputs.shape[0])
            if time.perf_counter() - start > limit_s:
                break
        else:
            continue
        break
    return done / (time.perf_counter() - start), done


def main(argv: Optional[list] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda:0" if torch.cuda.is_available() else "cpu")
    p.add_argument("--dataset", choices=recipes.DATASETS, default="synthetic")
    p.add_argument("--data-dir", help="root holding MNIST/raw or cifar-10-batches-py (default: gpudoctor's cache)")
    p.add_argument("--model", help="fnn | cnn | lenet (default: the first model of the data set)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--train-size", type=int)
    p.add_argument("--seed-seconds", type=float, default=30.0, help="time limit for the seed-style loop")
    p.add_argument("--verify", action="store_true", help="also time a whole `gpudoctor verify` run")
    args = p.parse_args(argv)

    device = torch.device(args.device)
    name = args.model or recipes.MODELS[args.dataset][0]
    root = None
    if args.dataset != "synthetic":
        root = str(fetch.ensure(args.dataset, fetch.resolve_root(args.dataset, args.data_dir)))
    bundle = data.load(args.dataset, root, args.train_size, None, 0)
    label = (
        f"{device} ({torch.cuda.get_device_name(device)})"
        if device.type == "cuda"
        else f"cpu ({torch.get_num_threads()} threads)"
    )
    n, bs = bundle.train_size, recipes.RECIPES[name].batch_size
    print(f"{label}: {name}, {n} {args.dataset} images x {args.epochs} epochs, batch {bs}, torch {torch.__version__}")

    seed_rate, seed_done = seed_style(bundle, name, device, args.epochs, args.seed_seconds)
    print(
        f"  seed-style loop (DataLoader + transforms, .item() every step): {seed_rate:>12,.0f} samples/s "
        f"({seed_done} samples)"
    )

    wall = time.perf_counter()
    on_device = loop.to_device(bundle, device, *recipes.NORMALISE[args.dataset])
    run = loop.train(name, on_device, recipes.RECIPES[name], device, args.epochs, 0, None, lambda e, **f: None)
    wall = time.perf_counter() - wall
    print(
        f"  gpudoctor loop (data on the device, one sync per epoch):      {run['samples_per_s']:>12,.0f} samples/s "
        f"({args.epochs} epochs: {run['seconds']:.2f} s training, {wall:.2f} s with copy-in, warm-up and evaluation; "
        f"accuracy {run['accuracy']:.2%})"
    )
    print(f"  ratio: {run['samples_per_s'] / seed_rate:.1f}x")

    if args.verify:
        from gpudoctor.probes.verify.runner import run_verify

        start = time.perf_counter()
        result = run_verify(
            None, args.dataset, args.device if device.type == "cuda" else None, False, args.data_dir, None, 600.0
        )
        print(
            f"  gpudoctor verify --train {args.dataset}: {time.perf_counter() - start:.1f} s "
            f"({len(result.runs)} runs, worker errors: {result.worker_error or 'none'})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
