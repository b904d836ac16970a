"""Check that torchvision imports and was built for the installed torch: same release, same build, same CUDA major."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from packaging.version import InvalidVersion, Version

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need, skip

_OPS_TEXTS = ("torchvision::", "couldn't load custom c++ ops", "undefined symbol", "_c.so", "_c_stable", "_c.pyd")


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*([^;()]*?)\s*\)?\s*(;.*)?$")
_CLAUSE = re.compile(r"^(===|==|!=|~=|>=|<=|>|<)\s*([A-Za-z0-9.*+!_-]+)$")


def torch_pin(facts: Facts) -> Optional[str]:
    """The torch requirement in torchvision's Requires-Dist (``==2.6.0``, ``>=2.14.0``), if any.

    Where the facts carry no Requires-Dist (a pasted report), the requirement that release is recorded to
    declare stands in for it.
    """
    dist = facts.package("torchvision")
    for line in dist.requires if dist else ():
        match = _REQUIREMENT.match(line)
        if match and match.group(1).lower() == "torch" and not match.group(3) and match.group(2):
            return match.group(2).replace(" ", "")
    if dist is not None and dist.requires:
        return None
    version = facts.torchvision.version or (dist.version if dist else None)
    return compat.torchvision_requirement(version)


def pin_allows(pin: str, torch_version: str) -> Optional[bool]:
    """Whether a version satisfies a specifier such as ``==2.6.0`` or ``>=2.14.0,<2.15``; None if unparseable."""
    try:
        have = Version(Version(torch_version).public)
        for clause in pin.split(","):
            match = _CLAUSE.match(clause.strip())
            if not match:
                return None
            op, text = match.groups()
            if not _satisfies(have, op, text):
                return False
    except InvalidVersion:
        return None
    return True


def _satisfies(have: Version, op: str, text: str) -> bool:
    if text.endswith(".*"):
        prefix = text[:-2].split(".")
        same = have.base_version.split(".")[: len(prefix)] == prefix
        return same if op == "==" else not same
    want = Version(text)
    if op == "~=":
        head = want.base_version.split(".")[:-1]
        return have >= want and have.base_version.split(".")[: len(head)] == head
    return {"==": have == want, "===": str(have) == text, "!=": have != want, ">=": have >= want,
            "<=": have <= want, ">": have > want, "<": have < want}[op]


def _series(version: Optional[str]) -> Optional[Tuple[int, int]]:
    return _fix.release_series(version) if version else None


def _build(facts: Facts, version: str, torch_release: Optional[str]) -> str:
    """``the CPU build``, ``the CUDA 12.6 build``, ``the PyPI build (CUDA 13.0)`` of a torch or torchvision version."""
    local = _fix.split_version(version)[1]
    if local is None:
        variant = compat.default_variant(torch_release, facts.platform.system, facts.platform.machine)
        cuda = compat.variant_cuda(variant)
        return "the PyPI build" + (f" (CUDA {cuda})" if cuda else " (CPU)" if variant == "cpu" else "")
    if local == "cpu":
        return "the CPU build"
    cuda = compat.variant_cuda(local)
    return f"the CUDA {cuda} build" if cuda else f"the {local} build"


_CHANGING = ("torchvision",)  # the pair fix keeps the installed torch and replaces torchvision


def _pair_fix(facts: Facts, torch_version: str) -> Fix:
    """Reinstall torch and the torchvision released with it, together, from torch's own index."""
    index = _fix.index_for(facts)
    local = _fix.split_version(_fix.installed_version(facts, "torch") or torch_version)[1] if index else None
    requirements = _fix.torch_requirements(facts, torch_version, local)
    if not any(r.startswith("torchvision==") for r in requirements):
        # No pairing is known (a torch newer than the data): --upgrade lets pip pick the newest torchvision
        # that this torch allows, and keeps the pinned torch as it is.
        return Fix("Install the newest torchvision for this torch, from the same index as torch.",
                   (_fix.pip_install(facts, requirements + ["torchvision"], index, upgrade=True),))
    return Fix(
        "Install torch and torchvision together, from one index, at the versions released together.",
        (_fix.pip_install(facts, requirements, index, _fix.force_needed(facts, requirements, _CHANGING)),),
    )


_OPS_EXPLAINED = ("torchvision's C++ operators are compiled against one torch release and build; in any other torch "
                  "they fail to load and the operators (torchvision::nms first) are missing.")


def _mismatch_reason(facts: Facts, torch_version: str, vision_version: str) -> str:
    """Why torchvision does not fit this torch: the release pairing, the Requires-Dist pin, or the build."""
    torch_base, vision_base = _fix.base_version(torch_version), _fix.base_version(vision_version)
    expected = compat.matching_torchvision(torch_base)
    made_for = compat.torch_for_torchvision(vision_base)
    pin = torch_pin(facts)
    accepted = bool(pin and pin_allows(pin, torch_base))
    if made_for and _series(made_for) != _series(torch_version) and not accepted:
        return f"torchvision {vision_version} was released for torch {made_for}, not torch {torch_version}"
    if pin and pin_allows(pin, torch_base) is False:
        return f"torchvision {vision_version} requires torch{pin}, but torch {torch_version} is installed"
    torch_build = _build(facts, torch_version, torch_base)
    vision_build = _build(facts, vision_version, made_for or torch_base)
    if torch_build != vision_build:
        return f"torchvision {vision_version} is {vision_build}, torch {torch_version} {torch_build}"
    if expected and _series(expected) != _series(vision_version):
        return f"torch {torch_version} was released with torchvision {expected}, not {vision_version}"
    return f"torchvision {vision_version} was not built for torch {torch_version}"


def _cuda_mismatch(facts: Facts, torch_version: str, vision_version: str, torch_cuda: str, vision_cuda: str,
                   severity: Severity, detail: str) -> Finding:
    return Finding(
        code="torchvision.cuda-mismatch",
        severity=severity,
        summary=(f"torchvision {vision_version} was built with CUDA {vision_cuda}, "
                 f"torch {torch_version} with CUDA {torch_cuda}"),
        detail=detail,
        fix=_pair_fix(facts, torch_version) if severity is not Severity.INFO else None,
        evidence=("torch.cuda", "torchvision.cuda"),
    )


@check("torchvision", "torchvision pairing")
def torchvision_pairing(facts: Facts) -> Iterator[Finding]:
    vision = facts.torchvision
    installed = need(vision.installed, "torchvision.installed", "whether torchvision is installed is not known")
    if not installed:
        raise skip("torchvision is not installed (it is optional)")
    torch = facts.torch
    if torch.installed is False:
        raise skip("torch is not installed, so torchvision cannot be paired with it")
    if torch.import_error or torch.timed_out or torch.crashed:
        raise skip("torch does not import, so torchvision cannot be judged")
    torch_version = need(torch.version or _fix.installed_version(facts, "torch"), "torch.version")
    vision_version = vision.version or _fix.installed_version(facts, "torchvision") or "(unknown version)"
    error = (vision.import_error or "").strip()
    pair = derived(facts).torchvision_cuda_pair
    if pair is not None:
        yield _cuda_mismatch(facts, torch_version, vision_version, pair[0], pair[1], Severity.ERROR, error)
        return
    ops_error = (vision.ops_error or "").strip()
    if error or ops_error:
        lowered = "\n".join((error, ops_error, vision.import_traceback or "")).lower()
        ops = bool(ops_error) or any(text in lowered for text in _OPS_TEXTS)
        reason = _mismatch_reason(facts, torch_version, vision_version) if ops else ""
        last = (error or ops_error).splitlines()[-1]
        said = f"import torchvision fails ({last})" if error else f"torchvision's C++ operators do not load ({last})"
        parts = [_OPS_EXPLAINED] if ops else []
        if ops_error and error:
            parts.append(f"Loading the operators directly fails with: {ops_error}")
        parts.append((vision.import_traceback or error or ops_error).strip())
        yield Finding(
            code="torchvision.import-failed",
            severity=Severity.ERROR,
            summary=said + (f": {reason}" if reason else ""),
            detail="\n\n".join(parts),
            fix=_pair_fix(facts, torch_version),
            evidence=("torchvision.import_error", "torchvision.ops_error", "torchvision.version", "torch.version"),
        )
        return
    yield from _pairing(facts, torch_version, vision_version)


def _version_verdict(facts: Facts, torch_version: str, vision_version: str) -> Tuple[Optional[Finding], str]:
    """A finding when torchvision was made for another torch, and a note on what the verdict rests on.

    torchvision's own Requires-Dist decides first: when it accepts the installed torch, the release tables are
    not consulted (0.29.2 serves torch 2.14 and 2.15). Without one, the tables decide, except for releases
    newer than the tables, which are not judged.
    """
    torch_base = _fix.base_version(torch_version)
    pin = torch_pin(facts)
    allowed = pin_allows(pin, torch_base) if pin else None
    newer = compat.newer_than_data(torch_base) or compat.torchvision_newer_than_data(vision_version)
    made_for = None if newer else compat.torch_for_torchvision(_fix.base_version(vision_version))
    exact = re.match(r"^===?([0-9][0-9.]*)$", pin or "")
    if made_for is None and exact:
        made_for = exact.group(1)  # an exact pin names the torch it was built for
    if allowed is True:
        note = ""
        if newer or (made_for and _series(made_for) != _series(torch_version)):
            note = f"torchvision's metadata requires torch{pin}, which torch {torch_version} satisfies."
        if newer:
            what = (f"torch {torch_version}" if compat.newer_than_data(torch_base) else
                    f"torchvision {vision_version}")
            note += " " + compat.horizon_text(what) + "."
        return None, note
    if made_for and _series(made_for) != _series(torch_version):
        expected = compat.matching_torchvision(torch_base)
        return Finding(
            code="torchvision.version-mismatch",
            severity=Severity.ERROR,
            summary=f"torchvision {vision_version} belongs to torch {made_for}; torch {torch_version} is installed",
            detail=(f"torch {torch_version} was released with torchvision {expected}." if expected else
                    f"gpudoctor's data names no torchvision for torch {torch_version}.")
                   + (f" torchvision's metadata requires torch{pin}." if pin else ""),
            fix=_pair_fix(facts, torch_version),
            evidence=("torchvision.version", "torch.version"),
        ), ""
    if allowed is False:
        return Finding(
            code="torchvision.version-mismatch",
            severity=Severity.WARNING,
            summary=f"torchvision {vision_version} requires torch{pin}; torch {torch_version} is installed",
            detail="pip check reports this too; the C++ operators may fail to load at the first call.",
            fix=_pair_fix(facts, torch_version),
            evidence=("packages", "torch.version"),
        ), ""
    if newer:
        return None, (compat.horizon_text(f"torch {torch_version} or torchvision {vision_version}")
                      + ", and torchvision's metadata names no torch requirement, so the pairing is not judged.")
    return None, ""


def _pairing(facts: Facts, torch_version: str, vision_version: str) -> Iterator[Finding]:
    vision = facts.torchvision
    mismatch, note = _version_verdict(facts, torch_version, vision_version)
    if mismatch is not None:
        yield mismatch
        return
    torch_cuda = _fix.cuda_major_minor(facts.torch.cuda)
    vision_cuda = _fix.cuda_major_minor(vision.cuda)
    if torch_cuda and vision_cuda and torch_cuda != vision_cuda:
        shown = (_fix.format_cuda(torch_cuda), _fix.format_cuda(vision_cuda))
        if torch_cuda[0] != vision_cuda[0]:
            yield _cuda_mismatch(facts, torch_version, vision_version, *shown, Severity.ERROR,
                                 "torchvision refuses to load with a different CUDA major version than torch.")
        elif (_series(vision_version) or (0, 99)) < (0, 16):
            yield _cuda_mismatch(facts, torch_version, vision_version, *shown, Severity.ERROR,
                                 "torchvision before 0.16 requires torch's exact CUDA major.minor version.")
        else:
            yield _cuda_mismatch(facts, torch_version, vision_version, *shown, Severity.INFO,
                                 "Same CUDA major version: torchvision 0.16 and later accept a different minor.")
        return
    yield Finding(
        code="torchvision.ok",
        severity=Severity.INFO,
        summary=f"torchvision {vision_version} matches torch {torch_version}",
        detail=note,
        short=vision_version,
        evidence=("torchvision.version", "torch.version"),
    )


CHECKS: List[Check] = [torchvision_pairing]
