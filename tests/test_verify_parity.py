"""The parity criterion: it tolerates a healthy GPU's rounding (planted as noise) and catches a wrong kernel."""

from __future__ import annotations

import copy
import warnings
from typing import Tuple

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

from gpudoctor.trainers import data, loop, models, perturb, recipes, sanity  # noqa: E402

CPU = torch.device("cpu")
SHAPES = {"fnn": ("mnist", (1, 28, 28)), "cnn": ("mnist", (1, 28, 28)), "lenet": ("cifar10", (3, 32, 32))}


@pytest.fixture(autouse=True)
def _quiet_hooks():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Full backward hook is firing")
        yield


def batch(model: str, draw: int) -> Tuple[torch.Tensor, torch.Tensor]:
    dataset, shape = SHAPES[model]
    on_cpu = loop.to_device(data.synthetic(64, 1, 1000 + draw, shape=shape), CPU, *recipes.NORMALISE[dataset])
    return on_cpu.x_train, on_cpu.y_train


def fp32_gradients_differ(model: str, xy: Tuple[torch.Tensor, torch.Tensor], draw: int) -> bool:
    """The criterion parity used before: fp32 gradients within 1e-3."""
    x, y = xy
    ref = models.build(model, draw)
    other = copy.deepcopy(ref)
    perturb.noise(draw)(other)
    F.cross_entropy(ref(x), y).backward()
    F.cross_entropy(other(x), y).backward()
    mine = dict(other.named_parameters())
    return any(sanity.rel_diff(p.grad, mine[n].grad) > 1e-3 for n, p in ref.named_parameters())


@pytest.mark.parametrize("model, draws", [("cnn", 12), ("lenet", 8), ("fnn", 6)])
def test_noise_at_cudnn_error_passes_and_a_wrong_kernel_fails_every_draw(model: str, draws: int) -> None:
    healthy, broken, old_false_alarms = [], [], 0
    for draw in range(draws):
        xy = batch(model, draw)
        healthy.append(sanity.parity(model, xy, CPU, draw, perturb.noise(draw)))
        broken.append(sanity.parity(model, xy, CPU, draw, perturb.wrong_kernel))
        old_false_alarms += fp32_gradients_differ(model, xy, draw)
    assert [r["ok"] for r in healthy] == [True] * draws
    assert all(0 < r["grad_rel_diff"] < 1e-9 and 0 < r["logits_rel_diff"] < 1e-4 for r in healthy)
    assert [r["ok"] for r in broken] == [False] * draws
    assert all(r["grad_rel_diff"] > 1e-4 for r in broken)
    if model != "fnn":  # the noise is strong enough to flip ReLUs and pooling: fp32 gradients jump
        assert old_false_alarms > 0


def test_a_wrong_kernel_is_named_by_the_parameter_it_spoils() -> None:
    r = sanity.parity("fnn", batch("fnn", 0), CPU, 0, perturb.wrong_kernel)
    assert (r["ok"], r["error"] if "error" in r else None) == (False, None)
    assert r["logits_rel_diff"] > 1e-3 or r["grad_rel_diff"] > 1e-6
    assert r["worst"].startswith("layer_")


def test_parity_reports_an_error_text_instead_of_raising() -> None:
    def explode(model: torch.nn.Module) -> None:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    r = sanity.parity("cnn", batch("cnn", 0), CPU, 0, explode)
    assert r == {
        "model": "cnn",
        "tolerance": 1e-3,
        "grad_tolerance": 1e-6,
        "error": "RuntimeError: CUDA error: an illegal memory access was encountered",
    }
