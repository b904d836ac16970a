"""Where gpudoctor's release data ends, so that anything newer is judged from its own metadata instead of called wrong."""

from __future__ import annotations

import re
from typing import Optional, Tuple

from gpudoctor.compat.published import DATA_DATE
from gpudoctor.compat.releases import RELEASES, split_local_version

_NUMBERS = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


def _numbers(version: Optional[str]) -> Optional[Tuple[int, int, int]]:
    if not isinstance(version, str):
        return None
    match = _NUMBERS.match(split_local_version(version.strip())[0])
    if not match:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def newest_torch() -> str:
    """The newest torch release in the data ("2.15.0")."""
    return RELEASES[0].latest.torch


def newest_torchvision() -> str:
    """The newest torchvision release in the data."""
    return RELEASES[0].latest.torchvision


def newer_than_data(torch_version: Optional[str]) -> bool:
    """Whether a torch version is newer than every release the tables know (a pre-release of one counts too)."""
    have, last = _numbers(torch_version), _numbers(newest_torch())
    return bool(have and last and have > last)


def torchvision_newer_than_data(torchvision_version: Optional[str]) -> bool:
    """Whether a torchvision version is newer than every torchvision in the tables."""
    have, last = _numbers(torchvision_version), _numbers(newest_torchvision())
    return bool(have and last and have > last)


def horizon_text(what: str) -> str:
    """ "gpudoctor's data ends at torch 2.15.0 (data of 2026-11-24); torch 2.16.0 is newer: this rests on its own
    metadata"."""
    return (f"gpudoctor's data ends at torch {newest_torch()} (data of {DATA_DATE}); {what} is newer: "
            "this rests on its own metadata")


def data_line() -> str:
    """One line for reports: how far the data reaches."""
    return f"gpudoctor's compatibility data runs to torch {newest_torch()} (data of {DATA_DATE})"
