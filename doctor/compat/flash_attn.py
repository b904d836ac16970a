"""What each flash-attn release line needs: the GPUs it has kernels for, and the CUDA and torch it builds against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import CC, C, Confidence, Version, version_tuple

_README = "flash-attn README.md at "


@dataclass(frozen=True)
class FlashLine:
    """One stretch of flash-attn releases ([since, until)) with the same stated requirements."""

    label: str  # "2.2.0 to 2.6.3"
    since: Version
    until: Optional[Version]  # exclusive; None: still current
    min_cc: CC  # the oldest GPU with kernels
    min_cuda: Version  # the CUDA the README asks for (the build refuses older nvcc, sometimes a lower one)
    min_torch: Optional[Version]  # None: not stated
    confidence: Confidence
    source: str


# flash-attn (FlashAttention 1 and 2). The README of each tag states the GPUs, CUDA and PyTorch;
# setup.py at the tag compiles sm_75 (1.x only), sm_80 and, with CUDA >= 11.8, sm_90.
FLASH_LINES: Tuple[FlashLine, ...] = (
    FlashLine("1.0.0 to 1.0.9", (1, 0, 0), (2, 0, 0), (7, 5), (11, 4), (1, 12), C,
              _README + "v1.0.0 and v1.0.9 (Turing, Ampere, Ada or Hopper; CUDA 11.4; PyTorch 1.12)"),
    FlashLine("2.0.0 to 2.1.2", (2, 0, 0), (2, 2, 0), (8, 0), (11, 4), (1, 12), C,
              _README + "v2.0.0 and v2.1.0 (Ampere, Ada or Hopper; Turing only in 1.x; CUDA 11.4; PyTorch 1.12)"),
    FlashLine("2.2.0 to 2.6.3", (2, 2, 0), (2, 7, 0), (8, 0), (11, 6), (1, 12), C,
              _README + "v2.2.0 to v2.6.0; setup.py stops below CUDA 11.6"),
    FlashLine("2.7.0 to 2.7.3", (2, 7, 0), (2, 7, 4), (8, 0), (11, 7), (1, 12), C,
              _README + "v2.7.0 to v2.7.3; setup.py stops below CUDA 11.7"),
    FlashLine("2.7.4", (2, 7, 4), (2, 8, 0), (8, 0), (12, 0), (2, 1), C,
              _README + "v2.7.4 (PyTorch 2.1; v2.7.4.post1 says PyTorch 2.2; CUDA 12.0)"),
    FlashLine("2.8.0 and later", (2, 8, 0), (3, 0, 0), (8, 0), (12, 0), (2, 2), C,
              _README + "v2.8.0 to v2.8.3 (PyTorch 2.2; CUDA 12.0)"),
    FlashLine("3 (flash_attn_3, built from hopper/)", (3, 0, 0), (4, 0, 0), (8, 0), (12, 3), None, C,
              _README + "HEAD ('H100 / H800 GPU, CUDA >= 12.3'); hopper/setup.py at HEAD compiles sm_80 and sm_90a "
              "kernels and stops below CUDA 12.3"),
)

# Blackwell (compute capability 10.x and 12.x): setup.py compiles sm_100 and sm_120 from v2.7.3, and only with
# CUDA >= 12.8; no release up to v2.8.3 embeds PTX, so an older build has no kernel a Blackwell GPU can run.
# The prebuilt wheels of v2.7.3 and v2.7.4 were built with CUDA 12.3 and 12.4 (.github/workflows/publish.yml),
# those of v2.8.0 to v2.8.3 with CUDA 12.9, so the prebuilt wheels serve Blackwell from v2.8.0.
BLACKWELL_MAJORS = (10, 12)
BLACKWELL_SOURCE_SINCE: Version = (2, 7, 3)
BLACKWELL_WHEEL_SINCE: Version = (2, 8, 0)
BLACKWELL_BUILD_CUDA: Version = (12, 8)
BLACKWELL_CONFIDENCE = C
BLACKWELL_SOURCE = ("flash-attn setup.py at v2.7.3 to v2.8.3 (sm_100/sm_120 with CUDA >= 12.8) and "
                    ".github/workflows/publish.yml at those tags (wheels built with CUDA 12.3, 12.4, 12.9)")

# The distribution names of FlashAttention 3 (built from hopper/); flash-attn-4 (CuTeDSL) is not judged.
FA3_NAMES = ("flash-attn-3", "flash_attn_3")


def flash_line(version: Optional[str], fa3: bool = False) -> Optional[FlashLine]:
    """The release line of a flash-attn version ("2.5.9.post1"); FlashAttention 3 when ``fa3``; None when unknown."""
    parts = version_tuple(version)
    if parts is None:
        return None
    if fa3:
        return FLASH_LINES[-1]
    padded = tuple(parts[:3]) + (0,) * (3 - len(parts[:3]))
    for line in FLASH_LINES[:-1]:
        if line.since <= padded and (line.until is None or padded < line.until):
            return line
    return None


def blackwell_kernels(version: Optional[str]) -> Optional[str]:
    """How a flash-attn 2.x release serves Blackwell: "wheel", "source" (only built with CUDA >= 12.8) or "none"."""
    parts = version_tuple(version)
    if parts is None or parts[0] != 2:
        return None if parts is None or parts[0] > 2 else "none"
    padded = tuple(parts[:3]) + (0,) * (3 - len(parts[:3]))
    if padded >= BLACKWELL_WHEEL_SINCE:
        return "wheel"
    return "source" if padded >= BLACKWELL_SOURCE_SINCE else "none"
