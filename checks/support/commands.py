"""Commands for the user's shell, quoted through gpudoctor.shell, and whether pip keeps an installed build."""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence

from gpudoctor import compat
from gpudoctor.facts import Facts
from gpudoctor.installers import Installer
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks.support.words import shell_of
from gpudoctor.recommend import render as plan_render
from gpudoctor.recommend.plan import InstallPlan, Package
from gpudoctor.shell import CONTROL as _CONTROL
from gpudoctor.shell import UnsafeValue, join, quote, set_env
from gpudoctor.shell import unset_env as _unset_env

split_version = compat.split_local_version  # "2.6.0+cu126" -> ("2.6.0", "cu126"); no local part -> (version, None)


def is_windows(facts: Facts) -> bool:
    return (facts.platform.system or "").lower() == "windows"


def shell_quote(facts: Facts, word: str) -> str:
    """Quote one word for the user's shell (POSIX sh, or PowerShell on Windows), keeping ``~/`` expandable.

    A value no quoting makes safe (control characters) has them shown as ``?``: the command then names a
    path that does not exist, visibly, instead of running something else.
    """
    try:
        return quote(word, shell_of(facts))
    except UnsafeValue:
        return quote(_CONTROL.sub("?", word), shell_of(facts))


def render(facts: Facts, argv: Sequence[str]) -> str:
    """A command from its words, each quoted for the user's shell (the program through ``&`` in PowerShell)."""
    return join([_CONTROL.sub("?", word) for word in argv], shell_of(facts))


def python(facts: Facts) -> str:
    """The target interpreter as the first word of a command; ``python`` when it is not known or unusable."""
    return render(facts, _cmd.python(facts))


def pip_install(facts: Facts, requirements: Iterable[str], index_url: Optional[str] = None,
                force_reinstall: bool = False, upgrade: bool = False) -> str:
    """``<python> -m pip install [--force-reinstall|--upgrade] REQ... [--index-url URL]`` for the target interpreter."""
    return one_line(facts, render_plan(facts, plan_for(requirements, index_url, force_reinstall, upgrade)))


def plan_for(requirements: Iterable[str], index_url: Optional[str] = None, force_reinstall: bool = False,
             upgrade: bool = False, variant: Optional[str] = None, force_reason: str = "") -> InstallPlan:
    """An install plan from requirement texts that may hold values from facts (control characters as ``?``)."""
    packages = tuple(Package.parse(_CONTROL.sub("?", r)) for r in requirements)
    return InstallPlan(packages, variant, _CONTROL.sub("?", index_url) if index_url else None, force_reinstall,
                       force_reason, upgrade and not force_reinstall)


def target(facts: Facts) -> plan_render.Target:
    """Where a plan's commands run: the user's shell and the target interpreter (control characters as ``?``)."""
    return plan_render.Target(shell_of(facts), _CONTROL.sub("?", _cmd.python(facts)[0]),
                              Installer.parse(facts.platform.installer), facts.platform.torch_from_conda,
                              bool(facts.driver.version or facts.gpus))


def render_plan(facts: Facts, plan: InstallPlan) -> tuple[str, ...]:
    """The commands that carry out an install plan on the diagnosed machine, in its installer's language."""
    return plan_render.commands(plan, target(facts))


def plan_notes(facts: Facts, plan: InstallPlan) -> tuple[str, ...]:
    """What to know besides the commands for this machine's installer (a pyproject entry, why not pip)."""
    return plan_render.spoken(plan, target(facts)).notes


def one_line(facts: Facts, commands: Sequence[str]) -> str:
    """A plan's commands as one line for the user's shell (usually there is one)."""
    return plan_render.one_line(commands, shell_of(facts))


def pip_keeps(facts: Facts, requirement: str) -> bool:
    """Whether ``pip install NAME==V`` leaves the installed NAME as it is.

    pip keeps a distribution that already satisfies the pin: the very build (``==2.6.0+cu126`` over
    2.6.0+cu126), or any build of that version when the pin has no local part (``==2.6.0`` over 2.6.0+cu126).
    A pin with another local part (``==2.6.0+cu126`` over 2.6.0+cpu) replaces it without help.
    """
    name, sep, version = requirement.partition("==")
    installed = installed_version(facts, name.strip())
    if not installed:
        return False
    if not sep:
        return True  # an unpinned name is satisfied by whatever is installed
    want_public, want_local = split_version(version.strip())
    have_public, have_local = split_version(installed)
    return want_public == have_public and (want_local is None or want_local == have_local)


def force_needed(facts: Facts, requirements: Iterable[str], changing: Iterable[str] = ()) -> bool:
    """``--force-reinstall`` only where pip would otherwise keep an installed build the command means to replace.

    That is a pin without a local part over another build of that version (pip counts 2.6.0+cu126 as
    ``==2.6.0``), or a name in ``changing`` that pip would keep as installed (a broken copy to repair).
    A pin restating the installed build is kept on purpose: forcing would reinstall every dependency,
    gigabytes of nvidia wheels.
    """
    wanted = {name.lower() for name in changing}
    for requirement in requirements:
        name = re.split(r"[=<>!~\[ ]", requirement, maxsplit=1)[0].strip()
        if name.lower() in wanted and pip_keeps(facts, requirement):
            return True
        pinned, sep, version = requirement.partition("==")
        installed = installed_version(facts, name) if sep else None
        if installed and split_version(version.strip())[1] is None:
            have_public, have_local = split_version(installed)
            if have_local and have_public == version.strip():
                return True
    return False


def installed_version(facts: Facts, name: str) -> Optional[str]:
    """The installed distribution's version (keeps the ``+cu126`` tag of download.pytorch.org wheels)."""
    dist = facts.package(name)
    if dist is not None and dist.version:
        return dist.version
    companion = {"torch": facts.torch.version, "torchvision": facts.torchvision.version,
                 "torchaudio": facts.torchaudio.version}
    return companion.get(name)


def export_env(facts: Facts, name: str, value: str) -> str:
    """Set an environment variable in the user's shell (control characters in the value shown as ``?``)."""
    return set_env(name, _CONTROL.sub("?", value), shell_of(facts))


def unset_env(facts: Facts, name: str) -> str:
    return _unset_env(name, shell_of(facts))
