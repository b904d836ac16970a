"""The recommender for checks: install plans for the diagnosed machine, rendered for its interpreter and shell."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Tuple

from gpudoctor import compat
# The helpers checks reach through this module, re-exported explicitly.
from gpudoctor.checks.support.commands import (
    export_env as export_env,
    force_needed as force_needed,
    installed_version as installed_version,
    is_windows as is_windows,
    one_line as one_line,
    pip_install as pip_install,
    pip_keeps as pip_keeps,
    plan_for as plan_for,
    plan_notes as plan_notes,
    python as python,
    render as render,
    render_plan as render_plan,
    shell_quote as shell_quote,
    split_version as split_version,
    target as target,
    unset_env as unset_env,
)
from gpudoctor.checks.support.words import shell_of as shell_of
from gpudoctor.facts import Facts
from gpudoctor.model import Fix
from gpudoctor.recommend import Option, recommend
from gpudoctor.recommend.machine import USUAL_MACHINE, driver_for_recommend, gpu_ccs, no_nvidia
from gpudoctor.recommend.plan import InstallPlan


def base_version(version: str) -> str:
    return split_version(version)[0]


def release_series(version: str) -> Optional[Tuple[int, int]]:
    """``"2.6.0+cu126"`` -> ``(2, 6)``; None when it does not start with two numbers."""
    match = re.match(r"^(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def cuda_major_minor(text: Optional[str]) -> Optional[Tuple[int, int]]:
    """A CUDA version in any of the forms seen: ``"12.6"``, ``"12.6.3"``, ``"12060"``, ``"cu126"``."""
    if not text:
        return None
    value = text.strip().lower()
    if value.startswith("cu"):
        digits = value[2:]
        if digits.isdigit() and len(digits) >= 2:
            return int(digits[:-1]), int(digits[-1])
        return None
    match = re.match(r"^(\d+)\.(\d+)", value)
    if match:
        return int(match.group(1)), int(match.group(2))
    if value.isdigit() and len(value) >= 4:
        number = int(value)
        return number // 1000, (number % 1000) // 10
    return None


def format_cuda(version: Tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def ordinal_list(count: int) -> str:
    """``2`` -> ``"0,1"``: every GPU by index, for CUDA_VISIBLE_DEVICES."""
    return ",".join(str(i) for i in range(count))


def index_for(facts: Facts) -> Optional[str]:
    """The index the installed torch came from: download.pytorch.org/whl/VARIANT, or None for PyPI."""
    version = installed_version(facts, "torch")
    local = compat.normalise_variant(split_version(version)[1]) if version else None
    return compat.index_url(local) if local else None


def same_variant(facts: Facts, torch_version: str) -> list[str]:
    """Requirements for another torch version of the installed build, with torchvision to match."""
    local = split_version(installed_version(facts, "torch") or "")[1] if index_for(facts) else None
    return torch_requirements(facts, torch_version, local)


def _installed(facts: Facts, name: str) -> bool:
    companion = facts.torchvision if name == "torchvision" else facts.torchaudio
    return bool(companion.installed) or facts.package(name) is not None


def torch_requirements(facts: Facts, torch_version: str, local: Optional[str]) -> list[str]:
    """``torch==V+LOCAL`` plus the torchvision (and torchaudio, where the pairing is confirmed) released with it."""
    tag = f"+{local}" if local else ""
    base = split_version(torch_version)[0]
    requirements = [f"torch=={base}{tag}"]
    vision = compat.matching_torchvision(base)
    if vision and _installed(facts, "torchvision"):
        requirements.append(f"torchvision=={vision}{tag}")
    pair = compat.pairing(base)
    confirmed = pair is not None and pair.torchaudio_confidence is compat.Confidence.CONFIRMED
    if pair and pair.torchaudio and confirmed and _installed(facts, "torchaudio"):
        requirements.append(f"torchaudio=={pair.torchaudio}{tag}")
    return requirements


@dataclass(frozen=True)
class Recommended:
    """The recommender's answer for this machine, with commands for the target interpreter."""

    ok: bool
    what: str  # "torch 2.14.1+cu126 and torchvision 0.29.1+cu126"; when not ok, why nothing fits
    command: str  # "" when not ok
    why: str  # the recommender's explanation and notes
    options: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # (text, commands) of the alternatives
    inferred: bool = False  # rests on data below CONFIRMED
    plan: Optional[InstallPlan] = None  # what ``command`` installs
    notes: Tuple[str, ...] = ()  # what the installer of the environment needs besides the command

    def fix(self, lead: str = "Install ") -> Tuple[str, Tuple[str, ...]]:
        """Fix text and commands: the recommended build first, then each alternative."""
        texts = [f"{lead}{self.what}." if self.ok else self.what, *self.notes]
        commands = [self.command] if self.command else []
        for text, option_commands in self.options:
            texts.append(text)
            commands.extend(option_commands)
        return " ".join(texts), tuple(commands)


def _what(requirements: list[str]) -> str:
    """``["torch==2.6.0+cu126", "torchvision==0.21.0+cu126"]`` -> ``torch 2.6.0+cu126 and torchvision 0.21.0+cu126``."""
    names = [r.replace("==", " ") for r in requirements]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def reinstall_current(facts: Facts) -> Optional[Recommended]:
    """Reinstall exactly the installed torch build (and its matching companions) from its own index."""
    version = installed_version(facts, "torch")
    if not version:
        return None
    index = index_for(facts)
    local = split_version(version)[1] if index else None
    requirements = torch_requirements(facts, version, local)
    plan = plan_for(requirements, index, True, variant=local,
                    force_reason="pip keeps an installed build of the same version")
    return Recommended(True, _what(requirements), one_line(facts, render_plan(facts, plan)), "", plan=plan,
                       notes=plan_notes(facts, plan))


def recommended_install(facts: Facts, force_reinstall: bool = False) -> Optional[Recommended]:
    """The torch build the recommender picks for these GPUs, driver, OS and Python, as commands.

    ``force_reinstall`` asks for ``--force-reinstall`` on the main command where pip would otherwise keep the
    installed torch (the very build again); a pinned build of another variant replaces it without the flag.
    """
    current = facts.torch.version or installed_version(facts, "torch")
    vision = _installed(facts, "torchvision") or facts.torch.installed is False
    audio = _installed(facts, "torchaudio")
    if no_nvidia(facts) and not facts.torch.devices and (facts.platform.system or "").lower() != "darwin":
        python_version = facts.platform.python_version
        release = next((r for r in compat.RELEASES if r.supports_python(python_version) is not False), compat.RELEASES[0])
        newest = release.latest
        local = None if is_windows(facts) else "cpu"
        requirements = [f"torch=={newest.torch}" + (f"+{local}" if local else "")]
        if vision:
            requirements.append(f"torchvision=={newest.torchvision}" + (f"+{local}" if local else ""))
        index = compat.index_url("cpu") if local else None
        plan = plan_for(requirements, index, variant=local)
        return Recommended(True, _what(requirements) + " (CPU-only: no NVIDIA GPU was found)",
                           one_line(facts, render_plan(facts, plan)), "No NVIDIA GPU or driver was found.",
                           plan=plan, notes=plan_notes(facts, plan))
    ccs, names = gpu_ccs(facts)
    machine = facts.platform.machine or USUAL_MACHINE.get(facts.platform.system or "")
    try:
        rec = recommend(ccs, driver_for_recommend(facts), facts.platform.system, machine,
                        facts.platform.python_version, current, with_torchvision=vision, with_torchaudio=audio,
                        gpu_names=names)
    except ValueError:
        return None
    options = tuple((_marked(o), o.commands_for(target(facts))) for o in rec.options)
    assumed = (f"The CPU architecture was not reported; {machine} is assumed.",) if machine != facts.platform.machine else ()
    why = " ".join((rec.text,) + rec.notes + assumed)
    inferred = rec.confidence is not compat.Confidence.CONFIRMED or bool(assumed)
    if not rec.ok or rec.plan is None:
        return Recommended(False, rec.text, "", " ".join(rec.notes), options, inferred)
    plan = rec.plan
    pins = [f"{name}=={version}" for name, version in
            (("torch", rec.torch), ("torchvision", rec.torchvision), ("torchaudio", rec.torchaudio)) if version]
    if force_reinstall and not plan.force_reinstall and force_needed(facts, pins, ("torch",)):
        plan = replace(plan, force_reinstall=True, force_reason="the installed torch is broken and pip would keep it")
    return Recommended(True, _what(pins), one_line(facts, render_plan(facts, plan)), why, options, inferred, plan,
                       plan_notes(facts, plan))


def _marked(option: Option) -> str:
    """An alternative's text with its confidence when that is below CONFIRMED, unless the text says it already."""
    if option.confidence is compat.Confidence.CONFIRMED or option.confidence.value in option.text:
        return option.text
    text = option.text[:-1] if option.text.endswith(".") else option.text
    return f"{text} ({option.confidence.value})."


GET_STARTED = "https://pytorch.org/get-started/locally/"


def install_fix(facts: Facts, lead: str = "Install ", force_reinstall: bool = False) -> Tuple[Fix, str]:
    """The recommended install as a Fix, and the recommender's explanation (which names any weak data)."""
    rec = recommended_install(facts, force_reinstall)
    if rec is None:
        return Fix(f"Install a torch build for this machine; see {GET_STARTED}."), ""
    text, commands = rec.fix(lead)
    return Fix(text, commands), rec.why
