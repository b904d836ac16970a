"""Compute capabilities and CUDA architecture tokens ("8.6", "sm_86", "compute_120", "sm_90a") parsed and printed."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Optional

from gpudoctor.compat.base import CC

_TOKEN = re.compile(r"^(sm|compute|lto)_?(\d{2,3})([af]?)$")
_DOTTED = re.compile(r"^(\d{1,2})\.(\d)(?:\+ptx)?$")
_DIGITS = re.compile(r"^(\d{2,3})$")


@dataclass(frozen=True)
class ArchToken:
    """One entry of torch.cuda.get_arch_list(): a cubin (sm) or PTX (compute) for a compute capability."""

    text: str  # as given, e.g. "sm_90a"
    ptx: bool  # compute_XY: PTX that the driver JIT-compiles
    cc: CC
    suffix: str = ""  # "a" (architecture-specific) | "f" (family-specific) | ""


def _from_digits(digits: str) -> Optional[CC]:
    major, minor = int(digits[:-1]), int(digits[-1])
    if major < 1:
        return None
    return (major, minor)


def parse_cc(value: Any) -> Optional[CC]:
    """(major, minor) from "8.6", "sm_86", "compute_86", "86", "sm_90a", "sm_120f", "8.6+PTX" or (8, 6).

    None for junk.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (tuple, list)):
        if len(value) != 2 or not all(isinstance(p, int) and not isinstance(p, bool) for p in value):
            return None
        major, minor = value
        if 1 <= major <= 99 and 0 <= minor <= 9:
            return (major, minor)
        return None
    if isinstance(value, float):
        value = repr(value)
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    match = _TOKEN.match(text)
    if match:
        return _from_digits(match.group(2))
    match = _DOTTED.match(text)
    if match:
        major = int(match.group(1))
        return (major, int(match.group(2))) if major >= 1 else None
    match = _DIGITS.match(text)
    if match:
        return _from_digits(match.group(1))
    return None


def format_cc(value: Any) -> str:
    """ "8.6" for (8, 6) or anything parse_cc accepts; ValueError for junk."""
    cc = parse_cc(value)
    if cc is None:
        raise ValueError(f"not a compute capability: {value!r}")
    return f"{cc[0]}.{cc[1]}"


def sm_name(cc: CC) -> str:
    """ "sm_86" for (8, 6)."""
    return f"sm_{cc[0]}{cc[1]}"


def parse_arch_token(text: object) -> Optional[ArchToken]:
    """An ArchToken for "sm_86" / "compute_120" / "sm_90a"; None for anything else (gfx names, junk)."""
    if not isinstance(text, str):
        return None
    return _parse_arch_token(text)


@functools.lru_cache(maxsize=1024)
def _parse_arch_token(text: str) -> Optional[ArchToken]:
    match = _TOKEN.match(text.strip().lower())
    if not match or match.group(1) == "lto":
        return None
    cc = _from_digits(match.group(2))
    if cc is None:
        return None
    return ArchToken(text=text.strip(), ptx=match.group(1) == "compute", cc=cc, suffix=match.group(3))


def tokens_from_arch_list(arch_list: str) -> tuple[str, ...]:
    """get_arch_list() tokens for a TORCH_CUDA_ARCH_LIST string: cubins in order, then the +PTX entries."""
    cubins: list[str] = []
    ptx: list[str] = []
    for entry in arch_list.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        base = entry[: -len("+PTX")] if entry.upper().endswith("+PTX") else entry
        cc = parse_cc(base)
        if cc is None:
            raise ValueError(f"bad TORCH_CUDA_ARCH_LIST entry {entry!r}")
        cubins.append(sm_name(cc))
        if base != entry:
            ptx.append(f"compute_{cc[0]}{cc[1]}")
    return tuple(cubins + ptx)
