"""Training data as uint8 tensors: MNIST and CIFAR-10 through torchvision's dataset classes, or seeded synthetics."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import torch

# Test hook: a JSON file {"data_batch_1": "<md5>", ...} that replaces torchvision's CIFAR-10 checksums, so
# that generated fixture files are still checked (against their own sums) by the dataset class.
CHECKSUMS_ENV = "GPUDOCTOR_VERIFY_TEST_CHECKSUMS"


@dataclass(frozen=True)
class Bundle:
    """A data set in its stored form: images uint8 [N, C, H, W], labels int64 [N]."""

    name: str
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    classes: int = 10
    note: str = ""  # what loading left out (unreadable files), for the report

    @property
    def train_size(self) -> int:
        return int(self.x_train.shape[0])

    @property
    def test_size(self) -> int:
        return int(self.x_test.shape[0])


def load(
    name: str,
    root: Optional[str],
    train_size: Optional[int],
    test_size: Optional[int],
    seed: int,
    cache_dir: Optional[str] = None,
) -> Bundle:
    """Load ``name`` (synthetic | mnist | cifar10 | catsdogs | folder), cut to at most ``train_size``/``test_size``
    images; ``folder`` reads the ImageFolder-style tree ``root``, caching its decoded images under ``cache_dir``."""
    if name == "synthetic":
        bundle = synthetic(train_size or 60000, test_size or 10000, seed)
    elif name == "catsdogs":
        from .images import generated

        bundle = generated(train_size or 20000, test_size or 2500, seed)
    elif name == "folder":
        from .images import from_folder

        bundle = from_folder(_need_root(root), cache_dir, seed)
    elif name == "mnist":
        bundle = _mnist(_need_root(root))
    elif name == "cifar10":
        bundle = _cifar10(_need_root(root))
    else:
        raise ValueError(f"unknown data set {name!r}")
    return _cut(bundle, train_size, test_size)


def _need_root(root: Optional[str]) -> str:
    if not root:
        raise ValueError("no data directory was given")
    return root


def _cut(bundle: Bundle, train_size: Optional[int], test_size: Optional[int]) -> Bundle:
    n, m = train_size or bundle.train_size, test_size or bundle.test_size
    return Bundle(
        bundle.name, bundle.x_train[:n], bundle.y_train[:n], bundle.x_test[:m], bundle.y_test[:m], bundle.classes,
        bundle.note,
    )


def _mnist(root: str) -> Bundle:
    from torchvision.datasets import MNIST

    train, test = MNIST(root, train=True, download=False), MNIST(root, train=False, download=False)
    return Bundle(
        "mnist",
        train.data.unsqueeze(1).contiguous(),
        train.targets.long(),
        test.data.unsqueeze(1).contiguous(),
        test.targets.long(),
    )


def _cifar10(root: str) -> Bundle:
    from torchvision.datasets import CIFAR10

    cls = CIFAR10
    sums = _test_checksums()
    if sums is not None:
        cls = type(
            "CheckedCIFAR10",
            (CIFAR10,),
            {
                "train_list": [[name, sums.get(name, md5)] for name, md5 in CIFAR10.train_list],
                "test_list": [[name, sums.get(name, md5)] for name, md5 in CIFAR10.test_list],
                "meta": dict(CIFAR10.meta, md5=sums.get(CIFAR10.meta["filename"], CIFAR10.meta["md5"])),
            },
        )
    train, test = cls(root, train=True, download=False), cls(root, train=False, download=False)

    def images(ds: Any) -> torch.Tensor:  # numpy HWC uint8 -> CHW
        return torch.from_numpy(ds.data).permute(0, 3, 1, 2).contiguous()

    return Bundle(
        "cifar10",
        images(train),
        torch.tensor(train.targets, dtype=torch.long),
        images(test),
        torch.tensor(test.targets, dtype=torch.long),
    )


def _test_checksums() -> Optional[Dict[str, str]]:
    path = os.environ.get(CHECKSUMS_ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return {str(k): str(v) for k, v in data.items()}


def synthetic(train_size: int, test_size: int, seed: int, shape: Tuple[int, int, int] = (1, 28, 28)) -> Bundle:
    """Ten classes of pen strokes on a black background, drawn shifted by up to 2 pixels, with varied ink.

    Built to look like MNIST to a model: about 80% of the pixels are exactly 0 and the mean and spread are close to
    MNIST's (0.13, 0.31), so MNIST's normalisation fits. Each class has two strokes of its own and shares two with
    every other class, so a model must learn which strokes tell the classes apart (chance is 10%). Seed 001's FNN
    learns it at about the pace it learns handwritten digits (bench/bench_bars.py measures both). Every device gets
    the same images.
    """
    gen = torch.Generator().manual_seed(seed)
    templates = _templates(10, shape, gen)
    x_train, y_train = _draw(templates, train_size, shape, gen)
    x_test, y_test = _draw(templates, test_size, shape, gen)
    return Bundle("synthetic", x_train, y_train, x_test, y_test)


_SHIFT = 2
_SHARED_STROKES = 2
_OWN_STROKES = 2
_WIDTH = 1.0  # stroke half-width in pixels (a Gaussian profile)
_INK_NOISE = 0.3  # relative, on the ink only: the background stays 0 as MNIST's does


def _templates(classes: int, shape: Tuple[int, int, int], gen: torch.Generator) -> torch.Tensor:
    """[classes, C, H + 2*shift, W + 2*shift] ink in 0..1: strokes shared by all classes plus a few of their own."""
    c, h, w = shape
    hp, wp = h + 2 * _SHIFT, w + 2 * _SHIFT
    yy = torch.arange(hp, dtype=torch.float32).view(hp, 1)
    xx = torch.arange(wp, dtype=torch.float32).view(1, wp)

    def point() -> Tuple[float, float]:
        y = _SHIFT + 5 + torch.rand((), generator=gen).item() * (h - 10)
        return y, _SHIFT + 5 + torch.rand((), generator=gen).item() * (w - 10)

    def strokes(count: int) -> torch.Tensor:
        ink = torch.zeros(hp, wp)
        for _ in range(count):
            (y0, x0), (y1, x1) = point(), point()
            dy, dx = y1 - y0, x1 - x0
            t = (((yy - y0) * dy + (xx - x0) * dx) / max(dy * dy + dx * dx, 1e-6)).clamp(0.0, 1.0)
            dist2 = (yy - (y0 + t * dy)) ** 2 + (xx - (x0 + t * dx)) ** 2
            ink = torch.maximum(ink, torch.exp(-dist2 / (2 * _WIDTH * _WIDTH)))
        return ink

    shared = strokes(_SHARED_STROKES)
    ink = torch.stack([torch.maximum(shared, strokes(_OWN_STROKES)) for _ in range(classes)]).unsqueeze(1)
    colour = 0.5 + 0.5 * torch.rand(classes, c, 1, 1, generator=gen) if c > 1 else torch.ones(classes, 1, 1, 1)
    return (1.6 * ink * colour).clamp_(0.0, 1.0)


def _draw(
    templates: torch.Tensor, n: int, shape: Tuple[int, int, int], gen: torch.Generator
) -> Tuple[torch.Tensor, torch.Tensor]:
    c, h, w = shape
    labels = torch.randint(0, templates.shape[0], (n,), generator=gen)
    dy = torch.randint(0, 2 * _SHIFT + 1, (n,), generator=gen)
    dx = torch.randint(0, 2 * _SHIFT + 1, (n,), generator=gen)
    rows = (dy.view(n, 1) + torch.arange(h).view(1, h)).view(n, 1, h, 1)
    cols = (dx.view(n, 1) + torch.arange(w).view(1, w)).view(n, 1, 1, w)
    chans = torch.arange(c).view(1, c, 1, 1)
    images = templates[labels.view(n, 1, 1, 1), chans, rows, cols]
    scale = 0.7 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen)
    pixels = images * scale * (1.0 + _INK_NOISE * torch.randn(n, c, h, w, generator=gen))
    pixels = torch.where(images > 0.05, pixels, torch.zeros(()))
    return pixels.clamp_(0.0, 1.0).mul_(255.0).round_().to(torch.uint8), labels
