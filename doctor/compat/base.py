"""Shared vocabulary of the compatibility tables: confidence markers, version tuples and platform names."""

from __future__ import annotations

import enum
import functools
import re
from typing import Iterable, Optional, Tuple

CC = Tuple[int, int]
Version = Tuple[int, ...]


class Confidence(str, enum.Enum):
    """How well a table row is sourced; ordered CONFIRMED > SECONDARY > UNCONFIRMED."""

    CONFIRMED = "CONFIRMED"
    SECONDARY = "SECONDARY"
    UNCONFIRMED = "UNCONFIRMED"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Confidence.CONFIRMED: 2, Confidence.SECONDARY: 1, Confidence.UNCONFIRMED: 0}

C = Confidence.CONFIRMED
S = Confidence.SECONDARY
U = Confidence.UNCONFIRMED


def weakest(confidences: Iterable[Confidence]) -> Confidence:
    """The least certain of several confidences (CONFIRMED when there are none)."""
    result = Confidence.CONFIRMED
    for item in confidences:
        if item.rank < result.rank:
            result = item
    return result


_VERSION = re.compile(r"^\s*[vV]?(\d+(?:\.\d+)*)")


def version_tuple(text: Optional[str]) -> Optional[Version]:
    """The leading dotted integers of a version string: "525.60.13" -> (525, 60, 13); None for junk."""
    if not isinstance(text, str):
        return None
    return _version_tuple(text)


@functools.lru_cache(maxsize=4096)
def _version_tuple(text: str) -> Optional[Version]:
    match = _VERSION.match(text)
    if not match:
        return None
    return tuple(int(part) for part in match.group(1).split("."))


def version_at_least(have: Version, want: Version) -> bool:
    """Compare dotted versions, padding the shorter with zeros."""
    width = max(len(have), len(want))
    return have + (0,) * (width - len(have)) >= want + (0,) * (width - len(want))


def major_minor(text: Optional[str]) -> Optional[Tuple[int, int]]:
    """ "12.6.3" -> (12, 6); "12" -> (12, 0); None for junk."""
    parts = version_tuple(text)
    if parts is None:
        return None
    return (parts[0], parts[1] if len(parts) > 1 else 0)


def mm_key(text: Optional[str]) -> Tuple[int, int]:
    """major_minor for sorting and comparing: (0, 0) for junk."""
    return major_minor(text) or (0, 0)


def python_tuple(text: Optional[str]) -> Optional[Tuple[int, int]]:
    """A Python version as (major, minor): "3.11.4", "3.13t", "cp312" -> (3, 12)."""
    if not isinstance(text, str):
        return None
    cleaned = text.strip().lower()
    match = re.match(r"^cp(\d)(\d{1,2})t?$", cleaned)
    if match:
        return (int(match.group(1)), int(match.group(2)))
    match = re.match(r"^(\d)\.(\d{1,2})", cleaned)
    if not match:
        return None
    return (int(match.group(1)), int(match.group(2)))


def normalise_system(system: Optional[str]) -> Optional[str]:
    """ "Linux" | "Windows" | "Darwin" from platform.system() or sys.platform spellings; None when unknown."""
    if not isinstance(system, str):
        return None
    lowered = system.strip().lower()
    if lowered.startswith("linux"):
        return "Linux"
    if lowered.startswith("win") or lowered in ("cygwin", "msys"):
        return "Windows"
    if lowered in ("darwin", "macos", "mac", "osx", "macosx"):
        return "Darwin"
    return None


def normalise_machine(machine: Optional[str]) -> Optional[str]:
    """ "x86_64" | "aarch64" | another lower-case name; AMD64/x64 and arm64 are folded in."""
    if not isinstance(machine, str) or not machine.strip():
        return None
    lowered = machine.strip().lower()
    if lowered in ("x86_64", "amd64", "x64", "x86-64"):
        return "x86_64"
    if lowered in ("aarch64", "arm64", "armv8", "armv8l", "aarch64_be"):
        return "aarch64"
    return lowered


_VARIANT = re.compile(r"^(cu(\d{2,3})|cpu|rocm\d+(?:\.\d+){1,2}|xpu)$")


def normalise_variant(variant: Optional[str]) -> Optional[str]:
    """ "cu126", "cpu", "rocm6.2.4", "xpu" (lower-cased, a leading "+" dropped); None for anything else."""
    if not isinstance(variant, str):
        return None
    text = variant.strip().lower().lstrip("+")
    return text if _VARIANT.match(text) else None


def variant_cuda(variant: Optional[str]) -> Optional[str]:
    """The CUDA version of a wheel variant: "cu126" -> "12.6", "cu92" -> "9.2"; None for cpu/rocm/junk."""
    text = normalise_variant(variant)
    if text is None or not text.startswith("cu"):
        return None
    digits = text[2:]
    return f"{int(digits[:-1])}.{digits[-1]}"


def cuda_variant(cuda_version: Optional[str]) -> Optional[str]:
    """The wheel variant for a CUDA version: "12.6" / "12.6.3" -> "cu126"; None for junk."""
    mm = major_minor(cuda_version)
    if mm is None or not 9 <= mm[0] <= 99:
        return None
    return f"cu{mm[0]}{mm[1]}"
