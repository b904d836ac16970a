"""Faults planted in a model, to show what the parity test tolerates and what it catches (tests and bench only).

``noise`` makes every layer err the way a healthy GPU's kernels may: each output and each gradient off by a small
relative amount, scaled to the precision it is computed in. ``wrong_kernel`` makes the first layer compute wrongly
the way a broken kernel would: it leaves out the last input feature (or channel) of its sum.
"""

from __future__ import annotations

from typing import Any, Callable, Tuple

import torch
import torch.nn.functional as F
from torch import nn

# Relative error per output element. fp32: 1e-5, the error of cuDNN's FFT and Winograd convolutions and ten times
# that of a plain fp32 dot product of a few thousand terms. float64: the same error in units of the format's
# rounding (1e-5 x 2^-29, about 2e-14), times five.
NOISE_FP32 = 1e-5
NOISE_FP64 = 1e-13


def noise(seed: int, fp32: float = NOISE_FP32, fp64: float = NOISE_FP64) -> Callable[[nn.Module], None]:
    """A perturbation that adds relative noise to every layer's output, input gradient and weight gradient."""
    gen = torch.Generator().manual_seed(seed)

    def jitter(t: torch.Tensor) -> torch.Tensor:
        rel = fp64 if t.dtype == torch.float64 else fp32
        scale = torch.randn(t.shape, generator=gen, dtype=t.dtype)
        return t * (1.0 + rel * scale.to(t.device))

    def forward(_module: nn.Module, _inputs: Any, output: torch.Tensor) -> torch.Tensor:
        return jitter(output)

    def backward(_module: nn.Module, grad_input: Tuple[Any, ...], _grad_output: Any) -> Tuple[Any, ...]:
        return tuple(jitter(g) if isinstance(g, torch.Tensor) else g for g in grad_input)

    def apply(model: nn.Module) -> None:
        for module in model.modules():
            if isinstance(module, (nn.Linear, nn.Conv2d)):
                module.register_forward_hook(forward)
                module.register_full_backward_hook(backward)
                for param in module.parameters(recurse=False):
                    param.register_hook(jitter)

    return apply


def wrong_kernel(model: nn.Module) -> None:
    """The first linear or convolution layer drops the last input feature (or channel) from its sum."""
    layer = next(m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d)))

    def forward(module: nn.Module, inputs: Tuple[torch.Tensor, ...], output: torch.Tensor) -> torch.Tensor:
        (x,) = inputs
        if isinstance(module, nn.Linear):
            return output - x[:, -1:] * module.weight[:, -1]
        conv = module
        assert isinstance(conv, nn.Conv2d)
        return output - F.conv2d(x[:, -1:], conv.weight[:, -1:], None, conv.stride, conv.padding)

    layer.register_forward_hook(forward)
