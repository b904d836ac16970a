"""Each GPU generation's last NVIDIA driver branch and newest CUDA, so driver advice never asks for the impossible."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from gpudoctor.compat.arch import TEGRA_CCS
from gpudoctor.compat.base import CC, C, Confidence, S

_SOURCE = ("NVIDIA CUDA 12.0 and 13.0 release notes (Kepler removed in 12.0; Maxwell, Pascal and Volta in 13.0); "
           "NVIDIA's legacy-GPU driver branches")


@dataclass(frozen=True)
class Generation:
    """A GPU generation and the newest driver and CUDA that still serve it."""

    name: str
    last_branch: Optional[int]  # the last driver branch with support (470 for Kepler); None: still supported
    last_cuda_major: Optional[int]  # the newest CUDA major that compiles for it; None: every current one
    confidence: Confidence
    source: str = _SOURCE


_KEPLER = Generation("Kepler", 470, 11, C)
_MAXWELL_TO_VOLTA = {5: "Maxwell", 6: "Pascal", 7: "Volta"}


def generation(cc: CC) -> Optional[Generation]:
    """Kepler (3.x): R470 and CUDA 11; Maxwell, Pascal, Volta (5.x-7.2): CUDA 12, R580 the last branch
    (SECONDARY); Tegra parts follow JetPack, not desktop driver branches. None for current generations."""
    if cc in TEGRA_CCS:
        return Generation("Jetson", None, None, C, "Jetson drivers come with JetPack/L4T")
    if cc[0] == 3:
        return _KEPLER
    if cc[0] in _MAXWELL_TO_VOLTA and cc < (7, 5):
        return Generation(_MAXWELL_TO_VOLTA[cc[0]], 580, 12, S)
    return None


def is_jetson(ccs: Iterable[CC]) -> bool:
    return any(cc in TEGRA_CCS for cc in ccs)


def branch_blocked(ccs: Iterable[CC], branch: int) -> Optional[Generation]:
    """The generation among these GPUs whose last driver branch is older than ``branch``, if any."""
    for cc in ccs:
        found = generation(cc)
        if found and found.last_branch is not None and branch > found.last_branch:
            return found
    return None


def cuda_blocked(ccs: Iterable[CC], cuda_major: int) -> Optional[Generation]:
    """The generation among these GPUs that no CUDA ``cuda_major`` build has kernels for, if any."""
    for cc in ccs:
        found = generation(cc)
        if found and found.last_cuda_major is not None and cuda_major > found.last_cuda_major:
            return found
    return None


JETPACK_TEXT = ("On Jetson the driver comes with JetPack/L4T and is numbered differently (JetPack 6 reports 540.x), so "
                "a desktop driver number does not apply: upgrade JetPack to a release whose CUDA is at least the "
                "build's, or use NVIDIA's Jetson builds of torch.")
