"""Fix commands built from words and rendered for the user's shell, or left out when a value is not plausible.

Checks build each command as a list of words; ``command`` renders it through ``gpudoctor.shell`` for the
shell of the diagnosed machine (PowerShell on Windows, POSIX sh elsewhere). A word that no quoting makes
safe gives ``None``: the check then leaves the command out and says what to do in words.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

from gpudoctor import plausible
from gpudoctor.facts import Facts
from gpudoctor.model import Fix
from gpudoctor.shell import CONTROL, Shell, UnsafeValue, join, set_env, unset_env

__all__ = ["command", "export", "fix", "printable", "python", "shell_of", "unset"]


def shell_of(facts: Facts) -> Shell:
    return Shell.POWERSHELL if (facts.platform.system or "").lower() == "windows" else Shell.POSIX


def printable(value: str) -> str:
    """``value`` with its control characters replaced, for helpers that must render something."""
    return CONTROL.sub("\ufffd", value)


def command(facts: Facts, argv: Sequence[str]) -> Optional[str]:
    """The words as one command line for the user's shell; None when a word cannot be put into one."""
    try:
        return join(argv, shell_of(facts))
    except UnsafeValue:
        return None


def python(facts: Facts) -> List[str]:
    """The target interpreter as the first word: its path when that is a plausible path, else ``python``."""
    exe = facts.platform.python_executable
    return [exe] if exe and plausible.path(exe) else ["python"]


def export(facts: Facts, name: str, value: str) -> Optional[str]:
    """Set an environment variable in the user's shell; None when the value is not plausible for one."""
    if not plausible.env_name(name) or not plausible.env_value(value):
        return None
    try:
        return set_env(name, value, shell_of(facts))
    except UnsafeValue:
        return None


def unset(facts: Facts, name: str) -> Optional[str]:
    if not plausible.env_name(name):
        return None
    return unset_env(name, shell_of(facts))


def fix(text: str, commands: Iterable[Optional[str]], instead: str) -> Fix:
    """A Fix with the commands that could be rendered; when one could not, ``instead`` says it in words."""
    rendered: Tuple[Optional[str], ...] = tuple(commands)
    kept = tuple(c for c in rendered if c is not None)
    if len(kept) == len(rendered):
        return Fix(text, kept)
    return Fix(f"{text} {instead}".rstrip(), kept)
