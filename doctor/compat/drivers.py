"""NVIDIA driver versus CUDA: which CUDA a driver supports and which driver a CUDA build needs."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from gpudoctor.compat.base import (
    C,
    Confidence,
    U,
    Version,
    major_minor,
    normalise_system,
    variant_cuda,
    version_at_least,
    version_tuple,
)
from gpudoctor.compat.driver_tables import DRIVER_BRANCHES, TOOLKIT_DRIVERS, DriverBranch, ToolkitDriver


@dataclass(frozen=True)
class DriverRequirement:
    """The driver a build made with one CUDA version needs."""

    cuda: str  # "12.6", as asked
    system: str  # "Linux" | "Windows"
    minimum: Optional[str]  # lowest driver version that runs it (minor-version compatibility); None: see branch
    minimum_branch: int  # the driver branch that minimum belongs to (580 for 13.x)
    toolkit_minimum: Optional[str]  # Table 3: the driver packaged with that toolkit, needed for PTX JIT
    confidence: Confidence
    note: str
    certain_from: Optional[str] = None  # where sources disagree on the minimum: drivers from here on are safe

    def certain_for(self, driver_version: Optional[str]) -> bool:
        """Whether the requirement's uncertainty does not matter for this driver."""
        if self.confidence is C:
            return True
        have = version_tuple(driver_version)
        return bool(have and self.certain_from and version_at_least(have, version_tuple(self.certain_from) or ()))


# CUDA major -> (Linux minimum, Windows minimum, branch, confidence of the Windows number)
_MINOR_COMPAT = {
    11: ("450.80.02", "452.39", 450, C),
    12: ("525.60.13", "527.41", 525, U),
    13: ("580.65.06", None, 580, U),
}


def driver_branch(driver_version: Optional[str]) -> Optional[DriverBranch]:
    """The branch row for a Linux or Windows driver number (NVIDIA numbers branches alike on both)."""
    if isinstance(driver_version, str) and driver_version.strip()[:1] in ("r", "R"):
        driver_version = driver_version.strip()[1:]  # "R565"
    parts = version_tuple(driver_version)
    if parts is None or parts[0] < DRIVER_BRANCHES[0].branch:
        return None
    found = None
    for row in DRIVER_BRANCHES:
        if row.branch <= parts[0] and (found is None or row.branch >= found.branch):
            if row.branch == 540 and parts[0] != 540:
                continue  # the Jetson branch only names itself
            found = row
    return found


def driver_cuda_version(driver_version: Optional[str]) -> Optional[str]:
    """The highest CUDA a driver supports ("550.54.14" -> "12.4", "565.57.01" -> "12.7", "551.61" -> "12.4").

    Works for Linux and Windows numbers. Below R367 (CUDA 8.0) the answer is None; a driver newer than the newest known
    branch answers that branch's CUDA (a lower bound).
    """
    row = driver_branch(driver_version)
    return row.cuda if row else None


_BY_MINOR: Dict[Tuple[int, ...], List[ToolkitDriver]] = {}
for _row in TOOLKIT_DRIVERS:
    _BY_MINOR.setdefault((version_tuple(_row.version) or ())[:2], []).append(_row)


def toolkit_driver(cuda_version: Optional[str]) -> Optional[ToolkitDriver]:
    """Table 3's row for "12.6.3" (that update) or "12.6" (the GA release, the lowest of that minor)."""
    parts = version_tuple(cuda_version)
    if parts is None:
        return None
    same_minor = _BY_MINOR.get(parts[:2], [])
    if not same_minor:
        return None
    if len(parts) < 3:
        ga = [r for r in same_minor if "GA" in r.label]
        return ga[-1] if ga else same_minor[-1]
    below = [r for r in same_minor if version_at_least(parts, version_tuple(r.version) or ())]
    return below[0] if below else same_minor[-1]


def driver_requirement(cuda_version: Optional[str], system: Optional[str] = "Linux") -> Optional[DriverRequirement]:
    """What driver a build made with ``cuda_version`` ("12.6", "12.6.3" or "cu126") needs.

    ``system`` None counts as Linux. None for junk or CUDA older than 8.0.
    """
    if variant_cuda(cuda_version) is not None:
        cuda_version = variant_cuda(cuda_version)
    if not isinstance(cuda_version, str):
        return None
    return _requirement(cuda_version, "Windows" if normalise_system(system) == "Windows" else "Linux")


@functools.lru_cache(maxsize=256)
def _requirement(cuda_version: str, os_name: str) -> Optional[DriverRequirement]:
    mm = major_minor(cuda_version)
    if mm is None or mm[0] < 8:
        return None
    cuda = f"{mm[0]}.{mm[1]}"
    row = toolkit_driver(cuda_version)
    tk_min = None if row is None else (row.windows if os_name == "Windows" else row.linux)
    ptx = "a build that must JIT-compile PTX needs a driver at least as new as the toolkit that made it"
    if mm[0] <= 10:
        if tk_min is None:
            return None
        branch = (version_tuple(tk_min) or (0,))[0]
        note = (f"CUDA {mm[0]}.x has no minor-version compatibility: CUDA {cuda} needs the toolkit driver "
                f">= {tk_min}")
        return DriverRequirement(cuda, os_name, tk_min, branch, tk_min, C, note)
    if mm[0] not in _MINOR_COMPAT:
        return DriverRequirement(cuda, os_name, None, 0, None, U, f"CUDA {cuda} is newer than the known tables")
    linux_min, windows_min, branch, windows_conf = _MINOR_COMPAT[mm[0]]
    compat_min = windows_min if os_name == "Windows" else linux_min
    confidence = windows_conf if os_name == "Windows" else C
    minimum = compat_min
    if compat_min and tk_min and not version_at_least(version_tuple(tk_min) or (), version_tuple(compat_min) or ()):
        minimum = tk_min  # CUDA 11.0's own driver predates the 11.x minor-compatibility minimum
    if minimum is None:
        note = f"CUDA {mm[0]}.x builds need an R{branch} or newer driver (exact {os_name} minimum not published)"
    else:
        note = f"CUDA {mm[0]}.x builds run on drivers >= {minimum} through minor-version compatibility"
        if os_name == "Windows" and mm[0] == 12:
            note += " (NVIDIA's tables print 527.41 or 528.33: UNCONFIRMED which)"
    if tk_min:
        note += f"; {ptx} (CUDA {cuda}: >= {tk_min})"
    else:
        note += f"; {ptx}"
        tk_branch = _branch_for_cuda(cuda)
        if tk_branch is not None:
            note += f" (CUDA {cuda}: an R{tk_branch} driver)"
    certain = "528.33" if os_name == "Windows" and mm[0] == 12 else None
    return DriverRequirement(cuda, os_name, minimum, branch, tk_min, confidence, note, certain)


def _branch_for_cuda(cuda: str) -> Optional[int]:
    for row in DRIVER_BRANCHES:
        if row.cuda == cuda and row.branch != 540:
            return row.branch
    return None


def driver_can_run(driver_version: Optional[str], cuda_version: Optional[str],
                   system: Optional[str] = "Linux") -> Optional[bool]:
    """Whether this driver runs a build made with ``cuda_version``; None when either is unknown."""
    driver = version_tuple(driver_version)
    requirement = driver_requirement(cuda_version, system)
    if driver is None or requirement is None:
        return None
    if requirement.minimum is not None:
        return version_at_least(driver, version_tuple(requirement.minimum) or ())
    if requirement.minimum_branch:
        return driver[0] >= requirement.minimum_branch
    return None


def driver_cuda_at_least(driver_version: Optional[str], cuda_version: str) -> Optional[bool]:
    """Whether the driver natively supports ``cuda_version`` (its branch's CUDA is at least that)."""
    have = major_minor(driver_cuda_version(driver_version))
    want = major_minor(cuda_version)
    if have is None or want is None:
        return None
    return have >= want


def parse_driver(text: Optional[str]) -> Optional[Version]:
    """The driver number as a tuple, or None."""
    return version_tuple(text)
