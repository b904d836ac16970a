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

    @property
    def train_size(self) -> int:
        return int(self.x_train.shape[0])

    @property
    def test_size(self) -> int:
        return int(self.x_test.shape[0])


def load(name: str, root: Optional[str], train_size: Optional[int], test_size: Optional[int], seed: int) -> Bundle:
    """Load ``name`` (synthetic | mnist | cifar10), cut to at most ``train_size``/``test_size`` images."""
    if name == "synthetic":
        bundle = synthetic(train_size or 60000, test_size or 10000, seed)
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
    return Bundle(bundle.name, bundle.x_train[:n], bundle.y_train[:n], bundle.x_test[:m], bundle.y_test[:m])


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
    """Ten classes, each a fixed pattern of blobs, drawn shifted by up to 3 pixels, rescaled and with strong noise.

    The classes share most of their blobs, so a model must learn the few that differ (chance is 10%); on 60,000
    images both MNIST models reach about 98% after one epoch and 99% after three. Every device gets the same images.
    """
    gen = torch.Generator().manual_seed(seed)
    templates = _templates(10, shape, gen)
    x_train, y_train = _draw(templates, train_size, shape, gen)
    x_test, y_test = _draw(templates, test_size, shape, gen)
    return Bundle("synthetic", x_train, y_train, x_test, y_test)


_SHIFT = 3
_SHARED_BLOBS = 4
_OWN_BLOBS = 3
_NOISE = 0.4


def _templates(classes: int, shape: Tuple[int, int, int], gen: torch.Generator) -> torch.Tensor:
    """[classes, C, H + 2*shift, W + 2*shift] patterns in 0..1: blobs shared by all classes plus a few of their own."""
    c, h, w = shape
    hp, wp = h + 2 * _SHIFT, w + 2 * _SHIFT
    yy = torch.arange(hp, dtype=torch.float32).view(1, hp, 1)
    xx = torch.arange(wp, dtype=torch.float32).view(1, 1, wp)

    def blobs(count: int) -> torch.Tensor:
        out = torch.zeros(c, hp, wp)
        for _ in range(count):
            cy = _SHIFT + 4 + torch.rand((), generator=gen).item() * (h - 8)
            cx = _SHIFT + 4 + torch.rand((), generator=gen).item() * (w - 8)
            sigma = 1.5 + 2.0 * torch.rand((), generator=gen).item()
            colour = 0.5 + 0.5 * torch.rand(c, 1, 1, generator=gen)
            out += colour * torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * sigma * sigma))
        return out

    shared = blobs(_SHARED_BLOBS)
    return torch.stack([shared + blobs(_OWN_BLOBS) for _ in range(classes)]).clamp_(0.0, 1.0)


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
    scale = 0.6 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    noise = _NOISE * torch.randn(n, c, h, w, generator=gen)
    pixels = (images * scale + noise).clamp_(0.0, 1.0).mul_(255.0).round_()
    return pixels.to(torch.uint8), labels
