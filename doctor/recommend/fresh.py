"""The install plan for a fresh environment on a machine, for each installer: what ``gpudoctor plan`` prints."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Optional, Sequence, Tuple

from gpudoctor import compat
from gpudoctor.compat.base import python_tuple
from gpudoctor.facts import Facts
from gpudoctor.installers import Installer
from gpudoctor.recommend.choose import recommend
from gpudoctor.recommend.dialects import Spoken
from gpudoctor.recommend.machine import driver_for_recommend, gpu_ccs, machine, no_nvidia
from gpudoctor.recommend.plan import InstallPlan, NewEnv, Package
from gpudoctor.recommend.recommendation import Recommendation
from gpudoctor.recommend.render import Target, spoken, steps
from gpudoctor.shell import Shell


class Tool(enum.Enum):
    """The installers a fresh environment can be made with, as ``gpudoctor plan --installer`` names them."""

    PIP = "pip"
    UV = "uv"
    UV_PROJECT = "uv-project"
    CONDA = "conda"
    PIXI = "pixi"
    POETRY = "poetry"

    @property
    def installer(self) -> Installer:
        return _INSTALLERS[self]


_INSTALLERS = {Tool.PIP: Installer.VENV, Tool.UV: Installer.UV_VENV, Tool.UV_PROJECT: Installer.UV_PROJECT,
               Tool.CONDA: Installer.CONDA, Tool.PIXI: Installer.PIXI, Tool.POETRY: Installer.POETRY}
ENGINES_NOTE = ("Inference engines with their own wheels (vLLM and others) are not planned: gpudoctor's data has no "
                "table of their builds.")


@dataclass(frozen=True)
class ToolPlan:
    """One installer's commands for the plan, or for each option when no official build fits."""

    tool: Tool
    said: Optional[Spoken]  # None when no build fits (see the options)
    options: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class FreshPlan:
    """The recommendation for a fresh environment and its commands per installer."""

    recommendation: Recommendation
    tools: Tuple[ToolPlan, ...]
    assumed: Tuple[str, ...] = ()  # what the facts did not say and the plan assumes


def _shell(facts: Facts) -> Shell:
    return Shell.POWERSHELL if (facts.platform.system or "").lower() == "windows" else Shell.POSIX


def _cpu(facts: Facts) -> Recommendation:
    python = facts.platform.python_version
    release = next((r for r in compat.RELEASES if r.supports_python(python) is not False), compat.RELEASES[0])
    pair = release.latest
    local = None if (facts.platform.system or "").lower() == "windows" else "cpu"
    named = (("torch", pair.torch), ("torchvision", pair.torchvision), ("torchaudio", pair.torchaudio))
    plan = InstallPlan(tuple(Package(n, v, local) for n, v in named if v), local,
                       compat.index_url("cpu") if local else None)
    text = f"No NVIDIA GPU or driver was found: install the CPU build of torch {pair.torch}."
    return Recommendation(True, text, pair.torch + (f"+{local}" if local else ""), variant=local,
                          index_url=plan.index_url, plan=plan)


def recommendation(facts: Facts) -> Tuple[Recommendation, Tuple[str, ...]]:
    """What to install in a fresh environment on the machine the facts describe, and what was assumed."""
    if no_nvidia(facts) and (facts.platform.system or "").lower() != "darwin":
        return _cpu(facts), ()
    ccs, names = gpu_ccs(facts)
    arch = machine(facts)
    assumed = (f"The CPU architecture was not reported; {arch} is assumed.",) if arch != facts.platform.machine else ()
    return recommend(ccs, driver_for_recommend(facts), facts.platform.system, arch, facts.platform.python_version,
                     None, with_torchvision=True, with_torchaudio=True, gpu_names=names), assumed


def _fresh(plan: InstallPlan, facts: Facts) -> InstallPlan:
    if plan.new_env is not None:
        return plan
    version = python_tuple(facts.platform.python_version)
    return replace(plan, new_env=NewEnv(f"{version[0]}.{version[1]}" if version else "3"))


def fresh_plan(facts: Facts, tools: Sequence[Tool] = tuple(Tool)) -> FreshPlan:
    """The plan for a fresh environment, in the language of each of ``tools``. Runs nothing."""
    rec, assumed = recommendation(facts)
    seen = bool(facts.driver.version or facts.gpus)
    out = []
    for tool in tools:
        target = Target(_shell(facts), "python", tool.installer, None, seen)
        said = spoken(_fresh(rec.plan, facts), target) if rec.plan is not None else None
        options = tuple((o.text, steps(o.steps, target) + (spoken(_fresh(o.plan, facts), target).commands
                                                             if o.plan is not None else ()))
                        for o in rec.options)
        out.append(ToolPlan(tool, said, options))
    return FreshPlan(rec, tuple(out), assumed)
