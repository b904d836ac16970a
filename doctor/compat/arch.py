"""Whether a GPU can run a build's kernels: cubin and PTX rules, Tegra exclusions, toolkit ranges per architecture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple, Union

from gpudoctor.compat.base import CC, major_minor, mm_key
from gpudoctor.compat.cc import ArchToken, format_cc, parse_arch_token, parse_cc

# Tegra / integrated GPUs: they run only code built for exactly them (torch 2.11+ DEVICE_REQUIREMENT).
TEGRA_CCS: Tuple[CC, ...] = ((5, 3), (6, 2), (7, 2), (8, 7), (10, 1), (11, 0))
# Code CCs that also run on Jetson parts from CUDA 13.2 builds on ("CUDA 13.2 allows SBSA binaries to run on Jetson").
_UNIFIED_FROM = (13, 2)
_UNIFIED = {(7, 0): (7, 2), (8, 0): (8, 7), (8, 6): (8, 7)}
_THOR = ((10, 1), (11, 0))  # sm_101 was renamed sm_110 in CUDA 13.0

# The CUDA toolkit that first compiles for an architecture (§4.2), and the last one that still does.
FIRST_TOOLKIT = {
    (8, 0): "11.0", (8, 6): "11.1", (8, 7): "11.4", (8, 9): "11.8", (9, 0): "11.8", (10, 0): "12.8", (10, 1): "12.8",
    (12, 0): "12.8", (10, 3): "12.9", (12, 1): "12.9", (11, 0): "13.0",
}
LAST_TOOLKIT = {3: "10.2", 35: "11.8", 5: "12.9", 6: "12.9", 7: "12.9"}

Reason = str  # "too_old" | "too_new" | "tegra"


@dataclass(frozen=True)
class ArchSupport:
    """The verdict for one GPU against one arch list.

    ``supported`` False with ``reason`` None means undecidable (an empty or unparseable arch list).
    """

    supported: bool
    by: Optional[str]  # the token that serves the GPU: the best cubin, else the PTX
    via_ptx: bool
    reason: Optional[Reason]
    min_cc: Optional[CC]
    max_cc: Optional[CC]
    note: str = ""

    @property
    def decided(self) -> bool:
        return self.supported or self.reason is not None


def first_toolkit(cc: CC) -> str:
    """The oldest CUDA toolkit that compiles for this CC (anything before 11.0 counts as "10.0")."""
    return FIRST_TOOLKIT.get(cc, "10.0" if cc < (8, 0) else "13.4")


def last_toolkit(cc: CC) -> Optional[str]:
    """The newest CUDA toolkit that still compiles for this CC; None when current toolkits do."""
    if cc in ((3, 5), (3, 7)):
        return LAST_TOOLKIT[35]
    if cc == (7, 5) or cc[0] >= 8:
        return None
    return LAST_TOOLKIT.get(cc[0])


def cubin_runs(code: CC, device: CC, suffix: str = "", build_cuda: Optional[str] = None) -> bool:
    """Whether an sm_XY cubin runs on a device: same major, minor >= code minor, minus the Tegra parts."""
    if suffix == "a":
        return device == code
    if code in _THOR or device in _THOR:
        return code in _THOR and device in _THOR
    if code in TEGRA_CCS:
        return device == code
    if device[0] != code[0] or device[1] < code[1]:
        return False
    if device in TEGRA_CCS:
        built = major_minor(build_cuda) if build_cuda else None
        return bool(built and built >= _UNIFIED_FROM and _UNIFIED.get(code) == device)
    return True


def ptx_runs(code: CC, device: CC, suffix: str = "") -> bool:
    """Whether compute_XY PTX can be JIT-compiled for a device: any CC at least XY (exactly XY for "a")."""
    if suffix == "a":
        return device == code
    return device >= code


def _tokens(arch_flags: Union[str, Iterable[str], None]) -> List[ArchToken]:
    if arch_flags is None:
        return []
    items = arch_flags.split() if isinstance(arch_flags, str) else list(arch_flags)
    parsed = (parse_arch_token(item) for item in items)
    return [t for t in parsed if t is not None]


def arch_support(arch_flags: Union[str, Iterable[str], None], cc: object, driver_cuda: Optional[str] = None,
                 build_cuda: Optional[str] = None) -> ArchSupport:
    """Whether a GPU of compute capability ``cc`` can run a build with these arch tokens.

    ``arch_flags`` is get_arch_list() (a list or the space-separated flags string). ``driver_cuda`` is the
    driver's CUDA version and ``build_cuda`` the wheel's (torch.version.cuda); both only refine the answer.
    An empty arch list is undecidable: supported False, reason None. A cc that cannot be parsed raises ValueError.
    """
    device = parse_cc(cc)
    if device is None:
        raise ValueError(f"not a compute capability: {cc!r}")
    tokens = _tokens(arch_flags)
    if not tokens:
        return ArchSupport(False, None, False, None, None, None,
                           "the build lists no CUDA architectures (a CPU build, or CUDA unavailable at probe time)")
    lo = min(t.cc for t in tokens)
    hi = max(t.cc for t in tokens)
    cubins = [t for t in tokens if not t.ptx and cubin_runs(t.cc, device, t.suffix, build_cuda)]
    if cubins:
        best = max(cubins, key=lambda t: (t.cc, t.suffix == ""))
        return ArchSupport(True, best.text, False, None, lo, hi)
    ptx = [t for t in tokens if t.ptx and ptx_runs(t.cc, device, t.suffix)]
    if ptx:
        best = max(ptx, key=lambda t: t.cc)
        return ArchSupport(True, best.text, True, None, lo, hi, _ptx_note(best, device, driver_cuda, build_cuda))
    if device < lo:
        reason = "too_old"
    elif device in TEGRA_CCS:
        reason = "tegra"
    else:
        reason = "too_new"
    note = ""
    if reason == "tegra":
        note = (f"{format_cc(device)} is a Tegra/integrated GPU: it runs only kernels built for it"
                + ("" if device not in _UNIFIED.values() else " (or CUDA 13.2+ builds of the matching dGPU kernels)"))
    return ArchSupport(False, None, False, reason, lo, hi, note)


def _ptx_note(token: ArchToken, device: CC, driver_cuda: Optional[str], build_cuda: Optional[str]) -> str:
    needed = major_minor(build_cuda) if build_cuda else major_minor(first_toolkit(token.cc))
    needed_text = f"{needed[0]}.{needed[1]}" if needed else "?"
    base = (f"no cubin for {format_cc(device)}: the driver JIT-compiles the {token.text} PTX at first use "
            "(slow start; torch 2.11+ still warns because its check treats PTX like a cubin)")
    have = major_minor(driver_cuda) if driver_cuda else None
    if have is None:
        return f"{base}; needs a driver that supports CUDA >= {needed_text} (driver unknown)"
    if needed and have < needed:
        return (f"{base}; the driver supports CUDA {have[0]}.{have[1]}, older than the CUDA {needed_text} "
                "that made the PTX, so JIT compilation fails (cudaErrorUnsupportedPtxVersion)")
    return base


def source_build_toolkits(ccs: Iterable[CC]) -> Optional[Tuple[str, Optional[str]]]:
    """The CUDA toolkit range (oldest, newest or None for current) that compiles for every CC; None if none does."""
    lo = "10.0"
    hi: Optional[str] = None
    for cc in ccs:
        first = first_toolkit(cc)
        if mm_key(first) > mm_key(lo):
            lo = first
        last = last_toolkit(cc)
        if last is not None and (hi is None or mm_key(last) < mm_key(hi)):
            hi = last
    if hi is not None and mm_key(lo) > mm_key(hi):
        return None
    return (lo, hi)
