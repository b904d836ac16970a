"""The recommender's answer: the build to install as an install plan, or why none fits and the options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import C, Confidence
from gpudoctor.compat.releases import split_local_version
from gpudoctor.recommend.render import Target
from gpudoctor.recommend.render import commands as render_plan
from gpudoctor.recommend.render import pip_args as render_pip_args
from gpudoctor.recommend.render import steps as render_steps
from gpudoctor.recommend.plan import InstallPlan, Step

# Why no official wheel fits (Recommendation.reason).
GPU_UNSUPPORTED = "gpu_unsupported"
MIXED_GPUS = "mixed_gpus"
DRIVER_TOO_OLD = "driver_too_old"
PYTHON_UNSUPPORTED = "python_unsupported"
PLATFORM_UNSUPPORTED = "platform_unsupported"


@dataclass(frozen=True)
class Option:
    """One way forward besides (or instead of) the recommended wheel: its text, and a plan or other steps."""

    text: str
    plan: Optional[InstallPlan] = None
    steps: Tuple[Step, ...] = ()
    confidence: Confidence = C

    def commands_for(self, target: Target = Target()) -> Tuple[str, ...]:
        """The option's steps, then its plan, as commands for ``target``."""
        plan = render_plan(self.plan, target) if self.plan is not None else ()
        return render_steps(self.steps, target) + plan

    @property
    def commands(self) -> Tuple[str, ...]:
        """The commands with a bare ``pip``, for a POSIX shell."""
        return self.commands_for()


@dataclass(frozen=True)
class Recommendation:
    """What to install, as an install plan; or, with ``ok`` False, why nothing official fits and the options."""

    ok: bool
    text: str
    torch: Optional[str] = None  # "2.14.1+cu126" ("2.14.1" for a plain PyPI wheel)
    torchvision: Optional[str] = None
    torchaudio: Optional[str] = None
    variant: Optional[str] = None  # "cu126"; None for a plain PyPI wheel (macOS)
    cuda: Optional[str] = None  # "12.6"
    index_url: Optional[str] = None
    plan: Optional[InstallPlan] = None  # None when not ok
    confidence: Confidence = C
    # gpu_unsupported | mixed_gpus | driver_too_old | python_unsupported | platform_unsupported
    reason: Optional[str] = None
    options: Tuple[Option, ...] = ()
    notes: Tuple[str, ...] = ()
    sources: Tuple[str, ...] = ()

    @property
    def pip_args(self) -> str:
        """The arguments after ``pip`` ("install --force-reinstall torch==... --index-url ..."); "" without a plan."""
        return render_pip_args(self.plan) if self.plan is not None else ""

    @property
    def commands(self) -> Tuple[str, ...]:
        """The plan as commands with a bare ``pip``, for a POSIX shell."""
        return render_plan(self.plan) if self.plan is not None else ()

    def command(self, python: Optional[str] = None) -> str:
        """The POSIX install command for a target interpreter ("/venv/bin/python -m pip install ..."), or plain pip.

        ``UnsafeValue`` (gpudoctor.shell) for an interpreter path no quoting makes safe.
        """
        if self.plan is None:
            return ""
        return render_plan(self.plan, Target(python=python))[-1]


def pip_keeps(current_torch: Optional[str], torch: str, variant: Optional[str]) -> bool:
    """Whether ``pip install torch==TORCH[+VARIANT]`` would leave the installed torch in place.

    A pin with a local part replaces any other build of that version (2.6.0+cpu gives way to ==2.6.0+cu126);
    only the very same build, or a pin without a local part over a build of that version, is kept. Only then
    does a command need ``--force-reinstall``, which also reinstalls every dependency.
    """
    if not current_torch:
        return False
    public, local = split_local_version(current_torch)
    if public != split_local_version(torch)[0]:
        return False
    return variant is None or (local or "").lower() == variant.lower()


def same_public_version(current_torch: Optional[str], torch: str) -> bool:
    """Whether the installed torch has this public version, so that `torch==X` would keep its variant."""
    if not current_torch:
        return False
    return split_local_version(current_torch)[0] == split_local_version(torch)[0]
