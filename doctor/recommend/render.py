"""The one place an install plan becomes commands: for the target OS's shell and the environment's installer.

Every word goes through ``gpudoctor.shell``; a value no quoting makes safe raises ``UnsafeValue`` and the
caller says what to do in words instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import List, Optional, Sequence, Tuple

from gpudoctor.compat.base import weakest
from gpudoctor.installers import Installer
from gpudoctor.recommend.dialects import CONDA_PIP_NOTE, DIALECTS, Spoken, Where, venv_python
from gpudoctor.recommend.plan import InstallPlan, Step
from gpudoctor.shell import Shell, join, set_env

__all__ = ["Target", "commands", "one_line", "pip_args", "pip_words", "spoken", "steps"]


@dataclass(frozen=True)
class Target:
    """Where the commands run: the shell, the interpreter pip runs through, and what manages the environment.

    ``python`` None writes a bare ``pip`` (the recommender's own answers, before a machine is known).
    """

    shell: Shell = Shell.POSIX
    python: Optional[str] = None
    installer: Optional[Installer] = None
    torch_from_conda: Optional[bool] = None  # conda-meta/ records pytorch (a conda prefix only)
    driver_seen: bool = True  # False: no driver is visible (conda's __cuda virtual package is missing)


def pip_words(plan: InstallPlan) -> List[str]:
    """ ["install", "--force-reinstall", "torch==2.14.1+cu128", ..., "--index-url", URL]."""
    words = ["install"]
    if plan.force_reinstall:
        words.append("--force-reinstall")
    elif plan.upgrade:
        words.append("--upgrade")
    words.extend(plan.requirements)
    if plan.index_url:
        words += ["--index-url", plan.index_url]
    return words


def pip_args(plan: InstallPlan) -> str:
    """The arguments after ``pip`` as one POSIX line: "install torch==2.14.1+cu128 --index-url URL"."""
    return join(pip_words(plan), Shell.POSIX)


def _pip(python: Optional[str], words: Sequence[str], shell: Shell) -> str:
    head = [python, "-m", "pip"] if python else ["pip"]
    return join([*head, *words], shell)


def _pip_commands(plan: InstallPlan, target: Target) -> Tuple[str, ...]:
    python = plan.interpreter or target.python
    out: List[str] = []
    if plan.new_env is not None:
        out.append(join([f"python{plan.new_env.python}", "-m", "venv", plan.new_env.path], target.shell))
        python = venv_python(plan.new_env.path, target.shell) if target.python else None
    out.append(_pip(python, pip_words(plan), target.shell))
    return tuple(out)


def spoken(plan: InstallPlan, target: Target = Target()) -> Spoken:
    """The plan in the language of the target's installer (pip where it has none of its own), with its notes."""
    dialect = DIALECTS.get(target.installer) if target.installer else None
    where = Where(target.shell, plan.interpreter or target.python, target.torch_from_conda, target.driver_seen)
    own = dialect(plan, where) if dialect is not None else None
    if own is not None:
        return replace(own, confidence=weakest([plan.confidence, own.confidence]))
    notes: Tuple[str, ...] = ()
    if target.installer is Installer.CONDA and plan.package("torch") is not None:
        notes = (CONDA_PIP_NOTE[target.torch_from_conda],)
    return Spoken(_pip_commands(plan, target), notes, plan.confidence)


def commands(plan: InstallPlan, target: Target = Target()) -> Tuple[str, ...]:
    """The commands that carry out ``plan`` on ``target``."""
    return spoken(plan, target).commands


_THEN = {Shell.POSIX: " && ", Shell.POWERSHELL: "; ", Shell.CMD: " && "}


def one_line(commands: Sequence[str], shell: Shell) -> str:
    """Several commands as one line for the shell, each run after the one before."""
    return _THEN[shell].join(commands)


def steps(items: Sequence[Step], target: Target = Target()) -> Tuple[str, ...]:
    """Commands besides an install (a source build's): fixed lines as they are, words quoted, pip retargeted."""
    out: List[str] = []
    for step in items:
        if step.line:
            out.append(step.line)
        elif step.env is not None:
            out.append(set_env(step.env[0], step.env[1], target.shell))
        elif step.pip:
            out.append(_pip(target.python, step.words, target.shell))
        else:
            out.append(join(step.words, target.shell))
    return tuple(out)
