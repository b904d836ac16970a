"""Quoting for the shells whose commands gpudoctor prints: POSIX sh, PowerShell and cmd.exe.

Every value that reaches a printed command goes through ``quote`` or ``join`` here, once, for the
shell the user will paste it into. A value that no quoting makes safe (control characters, or for
cmd.exe ``"``, ``%`` and ``!``) raises ``UnsafeValue``; callers then say what to do in words.
"""

from __future__ import annotations

import enum
import re
import shlex
from typing import Sequence

__all__ = ["CONTROL", "Shell", "UnsafeValue", "quote", "join", "has_control", "literal", "set_env", "unset_env"]

# C0 and C1 control characters, DEL, and the Unicode line and paragraph separators.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# No comma: in argument mode PowerShell reads a,b as an array.
_POWERSHELL_BARE = re.compile(r"^[A-Za-z0-9_./:\\=+-]+$")
# PowerShell treats the typographic single quotes as quote characters too.
_POWERSHELL_QUOTES = ("'", "\u2018", "\u2019", "\u201a", "\u201b")
_CMD_BARE = re.compile(r"^[A-Za-z0-9_./:\\=+,-]+$")
_CMD_UNQUOTABLE = re.compile(r'["%!^]')
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Shell(enum.Enum):
    POSIX = "posix"
    POWERSHELL = "powershell"
    CMD = "cmd"


class UnsafeValue(ValueError):
    """A value that cannot be put into a command for this shell without changing its meaning."""


def has_control(value: str) -> bool:
    return CONTROL.search(value) is not None


def quote(value: str, shell: Shell) -> str:
    """One argument, quoted so that the shell passes it through unchanged."""
    if has_control(value):
        raise UnsafeValue("contains control characters")
    if shell is Shell.POSIX:
        if value.startswith("~/"):  # keep the home directory expandable
            rest = value[2:]
            return "~/" + shlex.quote(rest) if rest else "~/"
        return shlex.quote(value)
    bare = _POWERSHELL_BARE if shell is Shell.POWERSHELL else _CMD_BARE
    if value and bare.match(value):
        return value
    return literal(value, shell)


def join(argv: Sequence[str], shell: Shell) -> str:
    """A whole command line from its words; the first word is the program."""
    if not argv:
        raise ValueError("a command needs at least one word")
    words = [quote(word, shell) for word in argv]
    if shell is Shell.POWERSHELL and words[0].startswith("'"):
        words[0] = "& " + words[0]  # PowerShell runs a quoted path only through the call operator
    return " ".join(words)


def literal(value: str, shell: Shell) -> str:
    """A string literal for an expression (the right side of an assignment): always quoted."""
    if has_control(value):
        raise UnsafeValue("contains control characters")
    if shell is Shell.POWERSHELL:
        out = value
        for mark in _POWERSHELL_QUOTES:
            out = out.replace(mark, mark + mark)
        return "'" + out + "'"
    if shell is Shell.CMD:
        if _CMD_UNQUOTABLE.search(value):
            raise UnsafeValue("contains a character cmd.exe cannot quote")
        return '"' + value + '"'
    if shell is Shell.POSIX:
        return quote(value, shell)
    raise AssertionError(shell)  # pragma: no cover - every member is handled above


def _name(name: str) -> str:
    if not _ENV_NAME.match(name):
        raise UnsafeValue("not an environment variable name")
    return name


def set_env(name: str, value: str, shell: Shell) -> str:
    """Set an environment variable for this shell session and the programs it starts."""
    if shell is Shell.POSIX:
        return f"export {_name(name)}={quote(value, shell)}"
    if shell is Shell.POWERSHELL:
        return f"$env:{_name(name)} = {literal(value, shell)}"
    literal(value, shell)  # refuses what cmd.exe cannot quote
    return f'set "{_name(name)}={value}"'


def unset_env(name: str, shell: Shell) -> str:
    if shell is Shell.POSIX:
        return f"unset {_name(name)}"
    if shell is Shell.POWERSHELL:
        return f"Remove-Item Env:{_name(name)}"
    return f'set "{_name(name)}="'
