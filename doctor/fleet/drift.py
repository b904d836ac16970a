"""Drift: nodes whose driver, torch, CUDA, NCCL, cuDNN, GPU count, ECC mode or slowdown differ from the majority."""

from __future__ import annotations

import re
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

from gpudoctor.fleet.hostlist import natural_key
from gpudoctor.fleet.model import Drift, Spread
from gpudoctor.fleet.traits import NodeTraits, Trait
from gpudoctor.model import Fix
from gpudoctor.shell import Shell, UnsafeValue, join

_WHEEL_INDEX = re.compile(r"^(cu\d{2,3}|cpu|rocm\d+(\.\d+)*|xpu)$")
Cohort = Tuple[Trait, Optional[str]]
SPREAD_SHOWN = 4
_ORDER = {t: i for i, t in enumerate(Trait)}


def _command(*words: str) -> Tuple[str, ...]:
    try:
        return (join(words, Shell.POSIX),)
    except UnsafeValue:
        return ()


def _python(nodes: Sequence[NodeTraits]) -> str:
    found = Counter(t.python for t in nodes if t.python)
    return found.most_common(1)[0][0] if found else "python3"


def _torch_fix(majority: str, python: str, torchvision: Optional[str]) -> Fix:
    local = majority.split("+", 1)[1] if "+" in majority else ""
    words = [python, "-m", "pip", "install", "--force-reinstall", f"torch=={majority}"]
    if torchvision:
        words.append(f"torchvision=={torchvision}")
    if _WHEEL_INDEX.match(local):
        words += ["--index-url", f"https://download.pytorch.org/whl/{local}"]
    pair = f" with torchvision {torchvision}" if torchvision else ""
    return Fix(f"Install torch {majority}{pair}, the build the other nodes run.", _command(*words))


def _fix(trait: Trait, value: str, majority: str, nodes: Sequence[NodeTraits], torchvision: Optional[str],
         cuda: Optional[str]) -> Fix:
    python = _python(nodes)
    if trait is Trait.DRIVER:
        return Fix(f"Install NVIDIA driver {majority} on these nodes, as on the others, then reboot them (or "
                   "reload the nvidia modules with no GPU process running).",
                   ("nvidia-smi --query-gpu=driver_version --format=csv,noheader",))
    if trait in (Trait.TORCH, Trait.CUDA):
        return _torch_fix(majority, python, torchvision)
    if trait is Trait.NCCL:
        major = (cuda or "").split(".", 1)[0]
        package = f"nvidia-nccl-cu{major}" if major.isdigit() else "nvidia-nccl-cu12"
        return Fix(f"Install NCCL {majority} like the other nodes: ranks with different NCCL versions fail or hang "
                   "in their first collective.", _command(python, "-m", "pip", "install", f"{package}=={majority}"))
    if trait is Trait.CUDNN:
        return Fix(f"torch loads cuDNN {value} here and {majority} elsewhere: run `gpudoctor check` on one of these "
                   "nodes; a system cuDNN ahead in LD_LIBRARY_PATH or another nvidia-cudnn wheel is the usual "
                   "cause.", ("gpudoctor check --select libs",))
    if trait is Trait.GPU_COUNT:
        return Fix(f"These nodes show {value} GPUs where their peers show {majority}: a GPU fell off the bus or is "
                   "not visible. Look for Xid errors; a GPU that stays missing after a reboot needs service.",
                   ("nvidia-smi -L", "sudo dmesg | grep -i xid"))
    if trait is Trait.ECC:
        flag = "1" if majority == "on" else "0" if majority == "off" else None
        if flag is None:
            return Fix("Compare the ECC mode of every GPU.", ("nvidia-smi -q -d ECC",))
        return Fix(f"Set ECC {majority} like the other nodes; it takes effect after a reboot.",
                   (f"sudo nvidia-smi -e {flag}", "sudo reboot"))
    return Fix("See which limits slow the GPUs down and watch them under load; clean the cooling and check the "
               "power cables.", ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER",))


def _majority(counts: Counter[str]) -> Optional[Tuple[str, int]]:
    """The value more than half of the nodes share, or None (then no node is the odd one out)."""
    top = counts.most_common(1)
    if not top or top[0][1] * 2 <= sum(counts.values()):
        return None
    return top[0]


DriftFound = Tuple[Tuple[Drift, ...], Tuple[Spread, ...], Dict[str, List[str]]]


def find_drift(nodes: Sequence[Tuple[str, NodeTraits]]) -> DriftFound:
    """Drift groups, traits that vary with no majority, and for each drifting node its drifting traits."""
    counts: Dict[Cohort, Counter[str]] = {}
    for _, traits in nodes:
        for trait in Trait:
            value = traits.get(trait)
            if value is not None and (traits.model is not None or not trait.per_model):
                key = (trait, traits.model if trait.per_model else None)
                counts.setdefault(key, Counter())[value] += 1
    majorities = {key: found for key, c in counts.items() if (found := _majority(c)) is not None}
    spreads = tuple(
        Spread(trait, model, tuple(c.most_common(SPREAD_SHOWN)), len(c), sum(c.values()))
        for (trait, model), c in sorted(counts.items(), key=lambda item: (_ORDER[item[0][0]], item[0][1] or ""))
        if len(c) > 1 and (trait, model) not in majorities
    )
    members: Dict[Tuple[Trait, Optional[str], str], List[int]] = {}
    for i, (_, traits) in enumerate(nodes):
        for trait in Trait:
            key = (trait, traits.model if trait.per_model else None)
            value = traits.get(trait)
            if key in majorities and value is not None and value != majorities[key][0]:
                members.setdefault((trait, key[1], value), []).append(i)
    torchvision = _majority_torchvision(nodes, majorities.get((Trait.TORCH, None)))
    cuda = majorities.get((Trait.CUDA, None))
    drifts: List[Drift] = []
    labels: Dict[str, List[str]] = {}
    for (trait, model, value), indices in members.items():
        majority, majority_count = majorities[(trait, model)]
        names = tuple(sorted((nodes[i][0] for i in indices), key=natural_key))
        fix = _fix(trait, value, majority, [nodes[i][1] for i in indices], torchvision, cuda[0] if cuda else None)
        drifts.append(Drift(trait, value, majority, majority_count, sum(counts[(trait, model)].values()), model,
                            fix, names))
        for name in names:
            labels.setdefault(name, []).append(f"{trait.value}={value}")
    drifts.sort(key=lambda d: (_ORDER[d.trait], -len(d.nodes), d.model or "", d.value))
    return tuple(drifts), spreads, labels


def _majority_torchvision(nodes: Sequence[Tuple[str, NodeTraits]], torch: Optional[Tuple[str, int]]) -> Optional[str]:
    if torch is None:
        return None
    found = Counter(t.torchvision for _, t in nodes if t.torchvision and t.get(Trait.TORCH) == torch[0])
    return found.most_common(1)[0][0] if found else None
