"""Filling what a paste lacks from the compatibility tables, each value marked as inferred.

Inferred values are listed in ``Facts.inferred`` by path, in the dotted form ``Facts.is_inferred``
matches: ``torch.arch_flags``, ``torch.cuda``, ``driver.cuda_version``, ``torchvision.cuda``,
``torchaudio.cuda`` and ``gpus.<index>.compute_capability`` (for example ``gpus.0.compute_capability``).
Every compatibility call is guarded: a function the tables do not (yet) provide, or one that fails,
only means less inference, never a crash or a guess.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, List, Optional, Tuple

from gpudoctor.facts import CompanionFacts, Facts, Gpu
from gpudoctor.parsers.collect_env.packages import local_cuda

_RELEASE = re.compile(r"^\d+\.\d+\.\d+(\+(cu\d+|cpu|rocm[\d.]+))?$")


def _compat(name: str, *args: Any) -> Any:
    """Call gpudoctor.compat.<name>(*args); None when it is missing or fails."""
    try:
        import gpudoctor.compat as compat

        func = getattr(compat, name, None)
        if func is None:
            return None
        return func(*args)
    except Exception:  # noqa: BLE001 - the tables are optional to the parser
        return None


def _variant(cuda: str) -> str:
    major, minor = cuda.split(".")[:2]
    return f"cu{major}{minor}"


def infer(facts: Facts, conda_torch: bool) -> Tuple[Facts, List[Tuple[str, str]]]:
    """The facts with inferred values filled in, and notes saying what each inference rested on."""
    inferred: List[str] = list(facts.inferred)
    notes: List[Tuple[str, str]] = []
    torch = facts.torch
    if torch.cuda is None and torch.hip is None:
        tag = local_cuda(torch.version)
        if tag and tag != "cpu":
            torch = dataclasses.replace(torch, cuda=tag, cuda_compiled=True)
            inferred.append("torch.cuda")
            notes.append(("inferred.torch.cuda", f"from the version tag of torch {torch.version}"))
    if torch.arch_flags is None:
        flags, note = _arch_flags(facts, torch.version, torch.cuda, torch.hip, conda_torch)
        if flags is not None:
            torch = dataclasses.replace(torch, arch_flags=flags)
            inferred.append("torch.arch_flags")
        if note:
            notes.append(("inferred.torch.arch_flags", note))
    driver = facts.driver
    if driver.cuda_version is None and driver.version:
        cuda = _compat("driver_cuda_version", driver.version)
        if isinstance(cuda, str):
            driver = dataclasses.replace(driver, cuda_version=cuda)
            inferred.append("driver.cuda_version")
    gpus: List[Gpu] = []
    for gpu in facts.gpus:
        if gpu.compute_capability is None and gpu.name:
            cc = _compat("gpu_cc_from_name", gpu.name)
            if isinstance(cc, tuple) and len(cc) == 2:
                gpu = dataclasses.replace(gpu, compute_capability=(int(cc[0]), int(cc[1])))
                inferred.append(f"gpus.{gpu.index}.compute_capability")
        gpus.append(gpu)
    torchvision = _companion_cuda(facts.torchvision, "torchvision", facts, inferred, notes)
    torchaudio = _companion_cuda(facts.torchaudio, "torchaudio", facts, inferred, notes)
    out = dataclasses.replace(
        facts, torch=torch, driver=driver, gpus=tuple(gpus), torchvision=torchvision, torchaudio=torchaudio,
        inferred=tuple(dict.fromkeys(inferred)),
    )
    expected = _compat("matching_torchvision", (torch.version or "").split("+")[0]) if torch.version else None
    if isinstance(expected, str):
        notes.append(("inferred.torchvision.expected", f"torch {torch.version} pairs with torchvision {expected}"))
    return out, notes


def _arch_flags(
    facts: Facts, version: Optional[str], cuda: Optional[str], hip: Optional[str], conda_torch: bool
) -> Tuple[Optional[Tuple[str, ...]], Optional[str]]:
    if not version or hip or not cuda:
        return None, None
    if conda_torch:
        return None, f"not inferred: torch {version} came from conda, whose builds carry other GPU architectures"
    if not _RELEASE.match(version):
        return None, f"not inferred: torch {version} is not an official release build"
    system = facts.platform.system or "Linux"
    machine = facts.platform.machine or ("AMD64" if system == "Windows" else "x86_64")
    variant = _variant(cuda)
    if "+" not in version:
        default = _compat("default_variant", version, system, machine)
        if default != variant:
            return None, (
                f"not inferred: torch {version} without a variant tag is the PyPI build"
                f" ({default or 'unknown'}), but it reports CUDA {cuda}"
            )
    result = _compat("wheel_arch_list", version, variant, system, machine)
    tokens = getattr(result, "tokens", None)
    if not tokens:
        return None, f"not inferred: no arch list is known for torch {version} {variant} on {system} {machine}"
    confidence = getattr(result, "confidence", None)
    level = getattr(confidence, "name", None) or (str(confidence) if confidence else "")
    note = f"official {variant} wheel of torch {version.split('+')[0]} for {system} {machine}"
    return tuple(str(t) for t in tokens), f"{note} ({level})" if level else note


def _companion_cuda(
    comp: CompanionFacts, name: str, facts: Facts, inferred: List[str], notes: List[Tuple[str, str]]
) -> CompanionFacts:
    if comp.cuda is not None or not comp.version:
        return comp
    tag = local_cuda(comp.version)
    if tag and tag != "cpu":
        inferred.append(f"{name}.cuda")
        notes.append((f"inferred.{name}.cuda", f"from the version tag of {name} {comp.version}"))
        return dataclasses.replace(comp, cuda=tag)
    return comp
