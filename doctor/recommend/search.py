"""The wheel search behind the recommender: which official build of which release serves these GPUs and this driver."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from gpudoctor.compat.arch import ArchSupport, arch_support
from gpudoctor.compat.base import CC, C, Confidence, major_minor, mm_key, variant_cuda, version_tuple, weakest
from gpudoctor.compat.cc import format_cc, parse_arch_token
from gpudoctor.compat.cudnn import bundled_cudnn, cudnn_version_text
from gpudoctor.compat.generations import branch_blocked
from gpudoctor.compat.pypi import has_python
from gpudoctor.compat.drivers import DriverRequirement, driver_can_run, driver_cuda_version, driver_requirement
from gpudoctor.compat.releases import RELEASES, Release, index_url, torchaudio_published
from gpudoctor.compat.wheels import ArchList, published_variants, wheel_arch_list
from gpudoctor.recommend.plan import InstallPlan, Package


@dataclass(frozen=True)
class Machine:
    """What the search needs to know about the target."""

    gpus: Tuple[CC, ...]
    driver: Optional[str]
    system: str  # "Linux" | "Windows"
    machine: str  # "x86_64" | "aarch64"
    python: Optional[str]

    @property
    def driver_cuda(self) -> Optional[str]:
        return driver_cuda_version(self.driver)


@dataclass(frozen=True)
class Candidate:
    """One official build that serves every GPU and that the driver can (or may) run."""

    release: Release
    variant: str
    arch: ArchList
    supports: Tuple[ArchSupport, ...]
    requirement: Optional[DriverRequirement]
    runnable: Optional[bool]  # driver_can_run; None when the driver is unknown or ignored
    native: bool  # the driver's own CUDA is at least the build's (no minor-version compatibility needed)
    driver: Optional[str] = None

    @property
    def torch(self) -> str:
        return self.release.latest.torch

    @property
    def cuda(self) -> str:
        return variant_cuda(self.variant) or ""

    def weak_points(self) -> List[Tuple[Confidence, str]]:
        """The table rows below CONFIRMED that this choice rests on, described."""
        points = []
        if self.arch.confidence is not C:
            points.append((self.arch.confidence, f"the {self.variant} arch list of torch {self.release.minor} "
                                                  f"({self.arch.source})"))
        pair = self.release.latest
        if pair.confidence is not C:
            points.append((pair.confidence, f"torchvision {pair.torchvision} for torch {pair.torch} ({pair.note})"))
        req = self.requirement
        if req is not None and self.runnable and not self.native and not req.certain_for(self.driver):
            points.append((req.confidence, f"the {req.system} driver minimum for CUDA {req.cuda}"))
        return points

    @property
    def confidence(self) -> Confidence:
        return weakest(conf for conf, _ in self.weak_points())

    def weak_text(self) -> str:
        """ "SECONDARY data: ...", or "" when everything is CONFIRMED."""
        points = self.weak_points()
        if not points:
            return ""
        return f"{self.confidence.value} data: " + "; ".join(what for _, what in points)


def driver_need(req: Optional[DriverRequirement]) -> str:
    """ "NVIDIA driver >= 580.65.06", or the branch where no exact minimum is published."""
    if req is None:
        return "a newer NVIDIA driver"
    if req.minimum:
        return f"NVIDIA driver >= {req.minimum}"
    return f"an NVIDIA driver of branch R{req.minimum_branch} or newer"


def arch_range(tokens: Sequence[str]) -> str:
    """ "sm_50..sm_90" (plus "+PTX compute_120"), for messages."""
    cubins = sorted((t for t in (parse_arch_token(x) for x in tokens) if t and not t.ptx), key=lambda t: t.cc)
    ptx = [t.text for t in (parse_arch_token(x) for x in tokens) if t and t.ptx]
    text = f"{cubins[0].text}..{cubins[-1].text}" if cubins else "no cubins"
    return text + (f" + PTX {' '.join(ptx)}" if ptx else "")


def variant_problem(release: Release, variant: str, target: Machine, *, ignore_driver: bool = False) -> Optional[str]:
    """Why a build cannot serve the target ("no kernels for 12.0 (sm_50..sm_90)"), or None when it can."""
    arch = wheel_arch_list(release.latest.torch, variant, target.system, target.machine)
    if arch is None:
        return "its GPU architectures are not known"
    cuda = variant_cuda(variant)
    missing = []
    for cc in target.gpus:
        support = arch_support(arch.tokens, cc, target.driver_cuda, cuda)
        if not support.supported:
            missing.append(format_cc(cc))
        elif support.via_ptx and not ignore_driver and target.driver_cuda and cuda:
            if mm_key(target.driver_cuda) < mm_key(cuda):
                missing.append(f"{format_cc(cc)} (PTX JIT needs a CUDA {cuda} driver)")
    if missing:
        return f"no kernels for {', '.join(dict.fromkeys(missing))} ({arch_range(arch.tokens)})"
    cudnn = bundled_cudnn(release.latest.torch, variant)
    old = [format_cc(cc) for cc in target.gpus if cc < (7, 5)]
    if cudnn is not None and cudnn >= 91100 and old:
        return f"its cuDNN {cudnn_version_text(cudnn)} dropped GPUs below CC 7.5 ({', '.join(old)})"
    if not ignore_driver and driver_can_run(target.driver, cuda, target.system) is False:
        return f"needs {driver_need(driver_requirement(cuda, target.system))}"
    requirement = driver_requirement(cuda, target.system)
    blocked = branch_blocked(target.gpus, requirement.minimum_branch) if requirement else None
    if blocked is not None:
        return (f"needs a driver of branch R{requirement.minimum_branch if requirement else '?'} or newer, but "
                f"{blocked.name} GPUs get no driver newer than R{blocked.last_branch}")
    return None


def candidates(release: Release, target: Machine, *, ignore_driver: bool = False) -> List[Candidate]:
    """The builds of one release that serve the target."""
    found = []
    for variant in published_variants(release.latest.torch, target.system, target.machine):
        if variant_problem(release, variant, target, ignore_driver=ignore_driver) is not None:
            continue
        arch = wheel_arch_list(release.latest.torch, variant, target.system, target.machine)
        cuda = variant_cuda(variant)
        assert arch is not None and cuda is not None
        supports = tuple(arch_support(arch.tokens, cc, target.driver_cuda, cuda) for cc in target.gpus)
        runnable = None if ignore_driver else driver_can_run(target.driver, cuda, target.system)
        have = major_minor(target.driver_cuda)
        native = bool(have and not ignore_driver and have >= mm_key(cuda))
        found.append(Candidate(release, variant, arch, supports, driver_requirement(cuda, target.system), runnable,
                               native, target.driver))
    return found


def _rank(candidate: Candidate, target: Machine, ignore_driver: bool) -> Tuple[object, ...]:
    cuda = major_minor(candidate.cuda) or (0, 0)
    if ignore_driver:
        req = candidate.requirement
        branch = req.minimum_branch if req else 0
        toolkit = version_tuple(req.toolkit_minimum) if req and req.toolkit_minimum else None
        return (-branch, tuple(-x for x in toolkit) if toolkit else (),
                candidate.variant == candidate.release.pypi_default, cuda)
    have = major_minor(target.driver_cuda)
    if have is None:
        return (candidate.variant == candidate.release.pypi_default, cuda)
    return (cuda[0] == have[0], candidate.native, cuda)


@functools.lru_cache(maxsize=512)
def search(target: Machine, *, ignore_driver: bool = False, ignore_python: bool = False,
           releases: Tuple[Release, ...] = RELEASES) -> Optional[Candidate]:
    """The newest release (then the best variant) that serves the target, or None.

    Variant order with a known driver: the driver's own CUDA major first, then builds the driver supports
    natively, then the newest CUDA. Unknown driver: the release's PyPI default first. Ignoring the driver:
    the lowest driver requirement first (the smallest upgrade).
    """
    for release in releases:
        if not ignore_python and target.python is not None and release.supports_python(target.python) is False:
            continue
        found = candidates(release, target, ignore_driver=ignore_driver)
        if found:
            return max(found, key=lambda c: _rank(c, target, ignore_driver))
    return None


def packages_for(torch: str, torchvision: Optional[str], torchaudio: Optional[str],
                 variant: Optional[str]) -> Tuple[Package, ...]:
    """torch (and torchvision, torchaudio) pinned to exact versions with the variant as local tag."""
    named = (("torch", torch), ("torchvision", torchvision), ("torchaudio", torchaudio))
    return tuple(Package(name, version, variant) for name, version in named if version)


def install_plan(torch: str, torchvision: Optional[str], torchaudio: Optional[str], variant: Optional[str],
                 force: bool, python: Optional[str] = None, force_reason: str = "") -> InstallPlan:
    """The plan for one build from its download.pytorch.org index (PyPI when variant is None).

    A torchaudio that index, or this Python, has no wheel of is left out rather than named (none on cu132,
    none for Python 3.15).
    """
    if torchaudio_published(torchaudio, variant) is False or has_python("torchaudio", torchaudio, python) is False:
        torchaudio = None
    return InstallPlan(packages_for(torch, torchvision, torchaudio, variant), variant,
                       index_url(variant) if variant else None, force, force_reason if force else "")
