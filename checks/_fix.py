"""Shared helpers that turn facts into copy-pasteable fix commands for the target interpreter."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks._cmd import shell_of as shell_of
# The helpers checks reach through _fix, re-exported explicitly.
from gpudoctor.checks._commands import (
    export_env as export_env,
    force_needed as force_needed,
    installed_version as installed_version,
    is_windows as is_windows,
    pip_install as pip_install,
    pip_keeps as pip_keeps,
    python as python,
    render as render,
    shell_quote as shell_quote,
    split_version as split_version,
    unset_env as unset_env,
)
from gpudoctor.facts import Facts, NvmlError
from gpudoctor.model import Fix


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
    """compat.recommend's answer for this machine, with commands for the target interpreter."""

    ok: bool
    what: str  # "torch 2.14.1+cu126 and torchvision 0.29.1+cu126"; when not ok, why nothing fits
    command: str  # "" when not ok
    why: str  # the recommender's explanation and notes
    options: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # (text, commands) of the alternatives
    inferred: bool = False  # rests on data below CONFIRMED

    def fix(self, lead: str = "Install ") -> Tuple[str, Tuple[str, ...]]:
        """Fix text and commands: the recommended build first, then each alternative."""
        texts = [f"{lead}{self.what}." if self.ok else self.what]
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
    return Recommended(True, _what(requirements), pip_install(facts, requirements, index, force_reinstall=True), "")


def _gpu_ccs(facts: Facts) -> Tuple[List[Tuple[int, int]], List[Optional[str]]]:
    """Compute capabilities and names of the GPUs: NVML's, else torch's, looked up by name where missing."""
    ccs: List[Tuple[int, int]] = []
    names: List[Optional[str]] = []
    devices = [(g.compute_capability, g.name) for g in facts.gpus] or [
        (d.compute_capability, d.name) for d in facts.torch.devices]
    for cc, name in devices:
        cc = cc or compat.gpu_cc_from_name(name)
        if cc is not None:
            ccs.append(cc)
            names.append(name)
    return ccs, names


def _no_nvidia(facts: Facts) -> bool:
    return (facts.driver.nvml_failure is NvmlError.LIBRARY_NOT_FOUND and not facts.driver.version and not facts.gpus
            and not facts.torch.devices and not facts.platform.dev_nvidia)


def _retarget(facts: Facts, commands: Tuple[str, ...]) -> Tuple[str, ...]:
    """Run ``pip`` through the target interpreter, or through a virtual environment the commands create first."""
    out = []
    interpreter = python(facts)
    for command in commands:
        venv = re.match(r"^python[\d.]*\s+-m\s+venv\s+(\S+)$", command)
        if venv:
            interpreter = rf"{venv.group(1)}\Scripts\python.exe" if is_windows(facts) else f"{venv.group(1)}/bin/python"
        out.append(f"{interpreter} -m {command}" if command.startswith("pip ") else command)
    return tuple(out)


_FOUND_VERSION = re.compile(r"too old \(found version (\d{4,6})\)")


def driver_for_recommend(facts: Facts) -> Optional[str]:
    """The driver version, else the oldest driver of the CUDA in torch's "too old (found version 11040)" message."""
    if facts.driver.version:
        return facts.driver.version
    match = _FOUND_VERSION.search(facts.torch.init_error or "")
    if not match:
        return None
    found = int(match.group(1))
    requirement = compat.driver_requirement(f"{found // 1000}.{(found % 1000) // 10}", facts.platform.system)
    return requirement.toolkit_minimum if requirement else None


def recommended_install(facts: Facts, force_reinstall: bool = False) -> Optional[Recommended]:
    """The torch build compat.recommend picks for these GPUs, driver, OS and Python, as commands.

    ``force_reinstall`` asks for ``--force-reinstall`` on the main command where pip would otherwise keep the
    installed torch (the very build again); a pinned build of another variant replaces it without the flag.
    """
    current = facts.torch.version or installed_version(facts, "torch")
    vision = _installed(facts, "torchvision") or facts.torch.installed is False
    audio = _installed(facts, "torchaudio")
    if _no_nvidia(facts) and not facts.torch.devices and (facts.platform.system or "").lower() != "darwin":
        python_version = facts.platform.python_version
        release = next((r for r in compat.RELEASES if r.supports_python(python_version) is not False), compat.RELEASES[0])
        newest = release.latest
        local = None if is_windows(facts) else "cpu"
        requirements = [f"torch=={newest.torch}" + (f"+{local}" if local else "")]
        if vision:
            requirements.append(f"torchvision=={newest.torchvision}" + (f"+{local}" if local else ""))
        index = compat.index_url("cpu") if local else None
        return Recommended(True, _what(requirements) + " (CPU-only: no NVIDIA GPU was found)",
                           pip_install(facts, requirements, index), "No NVIDIA GPU or driver was found.")
    ccs, names = _gpu_ccs(facts)
    machine = facts.platform.machine or _USUAL_MACHINE.get(facts.platform.system or "")
    try:
        rec = compat.recommend(ccs, driver_for_recommend(facts), facts.platform.system, machine,
                               facts.platform.python_version, current, with_torchvision=vision,
                               with_torchaudio=audio, gpu_names=names)
    except ValueError:
        return None
    options = tuple((_marked(o), _retarget(facts, o.commands)) for o in rec.options)
    assumed = (f"The CPU architecture was not reported; {machine} is assumed.",) if machine != facts.platform.machine else ()
    why = " ".join((rec.text,) + rec.notes + assumed)
    inferred = rec.confidence is not compat.Confidence.CONFIRMED or bool(assumed)
    if not rec.ok or not rec.pip_args:
        return Recommended(False, rec.text, "", " ".join(rec.notes), options, inferred)
    what = _what([f"{name}=={version}" for name, version in
                  (("torch", rec.torch), ("torchvision", rec.torchvision), ("torchaudio", rec.torchaudio)) if version])
    args = rec.pip_args
    pins = [f"{name}=={version}" for name, version in
            (("torch", rec.torch), ("torchvision", rec.torchvision), ("torchaudio", rec.torchaudio)) if version]
    if force_reinstall and "--force-reinstall" not in args.split() and force_needed(facts, pins, ("torch",)):
        args = args.replace("install ", "install --force-reinstall ", 1)
    return Recommended(True, what, f"{python(facts)} -m pip {args}", why, options, inferred)


def _marked(option: compat.Option) -> str:
    """An alternative's text with its confidence when that is below CONFIRMED, unless the text says it already."""
    if option.confidence is compat.Confidence.CONFIRMED or option.confidence.value in option.text:
        return option.text
    text = option.text[:-1] if option.text.endswith(".") else option.text
    return f"{text} ({option.confidence.value})."


GET_STARTED = "https://pytorch.org/get-started/locally/"
# What a report that names no CPU architecture almost always runs on.
_USUAL_MACHINE = {"Windows": "AMD64", "Linux": "x86_64"}


def install_fix(facts: Facts, lead: str = "Install ", force_reinstall: bool = False) -> Tuple[Fix, str]:
    """The recommended install as a Fix, and the recommender's explanation (which names any weak data)."""
    rec = recommended_install(facts, force_reinstall)
    if rec is None:
        return Fix(f"Install a torch build for this machine; see {GET_STARTED}."), ""
    text, commands = rec.fix(lead)
    return Fix(text, commands), rec.why
