"""The oldest GPU architecture any official torch wheel of a platform has kernels for, over every release in the
data: a GPU older than that cannot be served by any official wheel, whichever one is installed."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from gpudoctor.compat.base import CC
from gpudoctor.compat.cc import parse_arch_token
from gpudoctor.compat.releases import RELEASES
from gpudoctor.compat.wheels import published_variants, wheel_arch_list


@dataclass(frozen=True)
class Floor:
    """The lowest cubin architecture (``sm_37``), the newest wheel that ships it, and the releases the data spans."""

    cc: CC
    token: str
    shipped_in: str  # "2.7.1+cu118"
    oldest_release: str
    newest_release: str


@lru_cache(maxsize=8)
def official_floor(system: str = "Linux", machine: str = "x86_64") -> Optional[Floor]:
    """The oldest architecture with kernels in any official wheel of this platform (newest wheel that ships it)."""
    best: Optional[Floor] = None
    releases = [r.latest.torch for r in RELEASES]
    for torch in releases:  # newest release first: the first wheel found for the lowest architecture is the newest
        for variant in published_variants(torch, system, machine):
            arch = wheel_arch_list(torch, variant, system, machine)
            for token in arch.tokens if arch else ():
                parsed = parse_arch_token(token)
                if parsed is None or parsed.ptx or parsed.cc is None:
                    continue
                if best is None or parsed.cc < best.cc:
                    best = Floor(parsed.cc, token, f"{torch}+{variant}", releases[-1], releases[0])
    return best
