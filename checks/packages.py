"""Checks of the installed torch distributions released together, and the helpers the install checks share."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.torchvision import pin_allows, torch_pin
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, need, skip

RELEASE_LINKS = ("https://pytorch.org/get-started/previous-versions/", "https://docs.pytorch.org/audio/stable/installation.html")
STABLE_ABI_AUDIO = (2, 11)  # torchaudio 2.11+ is built on torch's stable ABI and runs with that torch and any later one


def parent(path: str) -> str:
    return re.sub(r"[\\/]+[^\\/]+[\\/]*$", "", path)


def require_torch(facts: Facts) -> None:
    """Skip the check when torch is not installed, or when whether it is was not recorded."""
    if need(facts.torch.installed, "torch.installed", "whether torch is installed is not known") is False:
        raise skip("torch is not installed")


def torch_version(facts: Facts) -> Optional[str]:
    return facts.torch.version or _fix.installed_version(facts, "torch")


def index_for(variant: Optional[str]) -> Optional[str]:
    """The download.pytorch.org index of a wheel variant; None for PyPI builds and source-build tags."""
    try:
        return compat.index_url(variant) if variant else None
    except ValueError:
        return None


def torch_reinstall(facts: Facts, no_deps: bool = False) -> Optional[str]:
    """``pip install --force-reinstall torch==X+tag --index-url ...``: the same build again, from its own index."""
    version = torch_version(facts)
    local = _fix.split_version(version or "")[1]
    if not version or (local and index_for(local) is None):
        return None
    command = _fix.pip_install(facts, [f"torch=={version}"], index_for(local), force_reinstall=True)
    return command + (" --no-deps" if no_deps else "")


def release_set(facts: Facts, torch: str, variant: Optional[str], force_reinstall: bool = False) -> Optional[str]:
    """Install torch ``torch`` as ``variant`` with the torchvision and torchaudio released with it, where installed.

    ``force_reinstall`` allows ``--force-reinstall``; it is printed only where pip would otherwise keep an
    installed build (a pin without a local part over another build of that version).
    """
    index = index_for(variant)
    if variant and index is None:
        return None
    tag = f"+{variant}" if variant else ""
    pair = compat.pairing(torch)
    reqs = [f"torch=={torch}{tag}"]
    if pair is not None and facts.torchvision.installed:
        reqs.append(f"torchvision=={pair.torchvision}{tag}")
    if pair is not None and pair.torchaudio and facts.torchaudio.installed \
            and compat.torchaudio_published(pair.torchaudio, variant) is not False:  # none on cu132
        reqs.append(f"torchaudio=={pair.torchaudio}{tag}")
    return _fix.pip_install(facts, reqs, index, force_reinstall=force_reinstall and _fix.force_needed(facts, reqs))


def _audio_fits(torch: str, audio: str) -> Optional[bool]:
    """Whether torchaudio ``audio`` runs with torch ``torch``: the stable-ABI rule from 2.11, else the release table."""
    audio_series, torch_series = _fix.release_series(audio), _fix.release_series(torch)
    if audio_series is None or torch_series is None:
        return None
    if audio_series >= STABLE_ABI_AUDIO:
        return torch_series >= audio_series
    pair = compat.pairing(_fix.base_version(torch))
    if pair is None or not pair.torchaudio:
        return None
    return _fix.release_series(pair.torchaudio) == audio_series


def _tag(version: Optional[str]) -> Optional[str]:
    return _fix.split_version(version or "")[1]


def _build(facts: Facts, version: str, name: str = "torch") -> Optional[str]:
    """The variant of a version: its +tag, or what PyPI ships for it here; None when unknown.

    A companion without a tag is PyPI's build of its own release: torchaudio 2.11.0 is a CUDA 13.0 build
    whatever torch it sits beside, torchvision 0.29.2 that of torch 2.15.
    """
    tag = _tag(version)
    if tag:
        return tag
    if facts.platform.system in ("Windows", "Darwin"):
        return "cpu"
    made_for = torch_version(facts)
    if name == "torchvision":
        made_for = compat.torch_for_torchvision(_fix.base_version(version)) or made_for
    elif name == "torchaudio" and (_fix.release_series(version) or (0, 0)) >= STABLE_ABI_AUDIO:
        made_for = _fix.base_version(version)
    return compat.default_variant(made_for, facts.platform.system, facts.platform.machine)


def _builds_clash(name: str, version: str, torch_build: Optional[str], build: Optional[str]) -> bool:
    """Whether a companion's build cannot load with torch's.

    torchvision 0.16+ compares only CUDA majors (PyPI itself pairs torch 2.14.1+cu130 with torchvision
    0.29.2+cu132); anything else must be the same variant.
    """
    if not torch_build or not build or build == torch_build:
        return False
    series = _fix.release_series(version)
    if name == "torchvision" and series is not None and series >= (0, 16):
        majors = [(compat.variant_cuda(b) or "").split(".")[0] for b in (torch_build, build)]
        return not (majors[0] and majors[0] == majors[1])
    return True


@check("packages.torchaudio-mismatch", "torchaudio matches torch")
def torchaudio_mismatch(facts: Facts) -> Iterator[Finding]:
    audio = facts.torchaudio
    known = audio.installed if audio.installed is not None else (facts.package("torchaudio") is not None if facts.packages else None)
    if need(known, "torchaudio.installed", "whether torchaudio is installed is not known") is False:
        raise skip("torchaudio is not installed")
    torch = need(torch_version(facts), "torch.version", "the torch version is not known")
    have = need(audio.version or _fix.installed_version(facts, "torchaudio"), "torchaudio.version")
    fits = _audio_fits(torch, have)
    pair = compat.pairing(_fix.base_version(torch))
    t_tag, a_tag = _tag(torch), _tag(have)
    t_cuda, a_cuda = _fix.cuda_major_minor(facts.torch.cuda or t_tag), _fix.cuda_major_minor(audio.cuda or a_tag)
    problems: List[str] = []
    if fits is False:
        problems.append("it was released for another torch"
                        + (f" (torch {_fix.base_version(torch)} goes with torchaudio {pair.torchaudio})" if pair and pair.torchaudio else ""))
    if t_cuda and a_cuda and t_cuda != a_cuda:
        problems.append(f"it is built for CUDA {_fix.format_cuda(a_cuda)}, torch for CUDA {_fix.format_cuda(t_cuda)}")
    elif a_cuda and t_tag == "cpu":
        problems.append(f"it is a CUDA {_fix.format_cuda(a_cuda)} build, torch a CPU build")
    elif t_cuda and a_tag == "cpu":
        problems.append("it is a CPU build beside a CUDA torch, so its GPU operators are missing")
    if not problems and not audio.import_error:
        return
    broken = bool(audio.import_error) or fits is False or bool(t_cuda and a_cuda and t_cuda != a_cuda) or (a_cuda and t_tag == "cpu")
    wanted = pair.torchaudio if pair and pair.torchaudio and fits is False else _fix.base_version(have)
    wanted_req = [f"torchaudio=={wanted}" + (f"+{t_tag}" if t_tag else "")]
    command = _fix.pip_install(facts, wanted_req, index_for(t_tag), _fix.force_needed(facts, wanted_req, ("torchaudio",)))
    yield Finding(
        "packages.torchaudio-mismatch", Severity.ERROR if broken else Severity.WARNING,
        f"torchaudio {have} does not match torch {torch}" + (f": {problems[0]}" if problems else f" (import fails: {audio.import_error})"),
        f"Observed: torchaudio {have} with torch {torch}: {'; '.join(problems) or 'import torchaudio fails'}."
        + (f" Import error: {audio.import_error}." if audio.import_error and problems else "")
        + " Required: the torchaudio released with this torch (2.11 and later: any torch at least as new), from torch's index."
        + (" The torch/torchaudio pairing for this release is UNCONFIRMED." if pair and pair.torchaudio_confidence is not compat.Confidence.CONFIRMED else ""),
        Fix("Reinstall torchaudio to match torch, from the index torch came from, without touching torch.", (command + " --no-deps",)),
        RELEASE_LINKS, ("torchaudio.version", "torchaudio.cuda", "torch.version", "torch.cuda"),
    )


def _audio_variant(facts: Facts, torch: str, variant: Optional[str]) -> Optional[str]:
    """torch's variant, or where its index has no torchaudio (cu132), the newest variant of the release that has."""
    pair = compat.pairing(torch)
    if pair is None or not pair.torchaudio or compat.torchaudio_published(pair.torchaudio, variant) is not False:
        return variant
    others = [v for v in compat.published_variants(torch, facts.platform.system, facts.platform.machine)
              if compat.torchaudio_published(pair.torchaudio, v)]
    return others[-1] if others else variant


@check("packages.unreleased-combination", "torch, torchvision, torchaudio released together")
def unreleased_combination(facts: Facts) -> Iterator[Finding]:
    if facts.torch.installed is False:
        raise skip("torch is not installed")
    torch = need(torch_version(facts), "torch.version", "the torch version is not known")
    base = _fix.base_version(torch)
    pair = compat.pairing(base)
    if pair is None:
        yield Finding(
            "packages.unreleased-combination", Severity.INFO,
            f"torch {torch} is not a release this gpudoctor knows (a nightly, a source build or a newer release)",
            "The release tables cannot say which torchvision and torchaudio belong with it"
            + (f"; {compat.horizon_text(f'torch {torch}')}." if compat.newer_than_data(base) else "."),
            evidence=("torch.version",),
        )
        return
    members: Dict[str, str] = {"torch": torch}
    for name in ("torchvision", "torchaudio"):
        version = getattr(facts, name).version or _fix.installed_version(facts, name)
        if version and getattr(facts, name).installed is not False:
            members[name] = version
    if len(members) == 1:
        raise skip("neither torchvision nor torchaudio is installed, so torch has nothing to be released with")
    off: List[str] = []
    vision, audio = members.get("torchvision"), members.get("torchaudio")
    made_for = compat.torch_for_torchvision(_fix.base_version(vision)) if vision else None
    pin = torch_pin(facts) if vision else None
    accepted = bool(pin and pin_allows(pin, base))  # torchvision's own Requires-Dist outranks the table
    if vision and made_for and _fix.release_series(made_for) != _fix.release_series(base) and not accepted:
        off.append(f"torchvision {vision} belongs to torch {made_for}")
    if audio and _audio_fits(torch, audio) is False:
        off.append(f"torchaudio {audio} does not belong to torch {base}")
    builds = {n: _build(facts, v, n) for n, v in members.items()}
    if any(_builds_clash(n, members[n], builds["torch"], b) for n, b in builds.items() if n != "torch"):
        off.append("builds differ: " + ", ".join(f"{n} {b}" for n, b in builds.items() if b))
    if not off:
        return
    installed = ", ".join(f"{n} {v}" for n, v in members.items())
    released = ", ".join(x for x in (f"torch {base}", f"torchvision {pair.torchvision}", f"torchaudio {pair.torchaudio}" if pair.torchaudio else "") if x)
    variant = _audio_variant(facts, base, _tag(torch) or builds["torch"]) if "torchaudio" in members else _tag(torch)
    command = release_set(facts, base, variant, force_reinstall=True) or release_set(facts, base, None, force_reinstall=True)
    yield Finding(
        "packages.unreleased-combination", Severity.WARNING,
        f"{installed} were never released together: {'; '.join(off)}",
        f"Observed: {installed}. Required: a released set, here {released}, all of one build from one index.",
        Fix("Install the released set together from torch's index.", (command,) if command else ()),
        RELEASE_LINKS, ("torch.version", "torchvision.version", "torchaudio.version", "packages"),
    )


CHECKS = [torchaudio_mismatch, unreleased_combination]
