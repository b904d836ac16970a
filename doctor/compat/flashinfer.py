"""The GPUs FlashInfer's attention kernels support, per release range, with where each bound was read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import Confidence, version_tuple

CC = Tuple[int, int]


@dataclass(frozen=True)
class FlashInferRange:
    """Releases from ``first`` up to (not including) ``until`` and the oldest GPU architecture they support."""

    first: Tuple[int, ...]
    until: Optional[Tuple[int, ...]]
    oldest: CC
    confidence: Confidence
    source: str


RANGES: Tuple[FlashInferRange, ...] = (
    FlashInferRange((0, 1), (0, 4), (8, 0), Confidence.SECONDARY,
                    "installation docs of 0.1.x, 'Supported GPU architectures: sm80, sm86, sm89, sm90 (sm75 / sm70 "
                    "support is working in progress)' (quoted in flashinfer-ai/flashinfer#421, 2024-08), and the "
                    "README of 2025-09, 'SM architectures 80 and higher' (quoted in #1648)"),
)


def flashinfer_range(version: Optional[str]) -> Optional[FlashInferRange]:
    """The range ``version`` falls in; None for releases the data does not cover (judged by nothing)."""
    parts = version_tuple(version or "")
    if not parts:
        return None
    return next((r for r in RANGES if parts >= r.first and (r.until is None or parts < r.until)), None)
