"""Checks that the target interpreter is a Python 3.6+ before anything is run under it."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass

from gpudoctor.probes.process import MIB, run
from gpudoctor.errors import UserError

MIN_VERSION = (3, 6)  # the oldest Python that torch 1.x wheels, and so real broken environments, still use
VALIDATE_TIMEOUT = 15.0
OUTPUT_CAP = MIB

# Python 2 can parse this too, so an old interpreter gets a clear message rather than a SyntaxError.
_PROBE = (
    "import sys;sys.stdout.write('GPUDOCTOR' + '-PY %d.%d.%d\\n%s\\n' % "
    "(tuple(sys.version_info[:3]) + (sys.executable,)))"
)
_MARKER = re.compile(r"^GPUDOCTOR-PY (\d+)\.(\d+)\.(\d+)$")


class PythonError(UserError):
    """The target interpreter is missing or is not a usable Python; the message is one line."""


@dataclass(frozen=True)
class PythonTarget:
    """A validated target interpreter."""

    path: str  # what to run
    version: str  # "3.11.9"
    executable: str  # its own sys.executable


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def resolve(python: str) -> str:
    """The path to run for ``python``: a path as given, or a bare name looked up on PATH."""
    if os.sep in python or (os.altsep and os.altsep in python):
        path = python
    else:
        found = shutil.which(python)
        if found is None:
            raise PythonError(f"{python}: not found on PATH")
        path = found
    if not os.path.exists(path):
        raise PythonError(f"{python}: no such file")
    if os.path.isdir(path):
        raise PythonError(f"{python}: is a directory, not a Python interpreter")
    if not os.access(path, os.X_OK):
        raise PythonError(f"{python}: not executable")
    return path


def validate(python: str, timeout: float = VALIDATE_TIMEOUT) -> PythonTarget:
    """Run ``python`` with a one-line program and return its version, or raise PythonError."""
    path = resolve(python)
    done = run([path, "-S", "-c", _PROBE], timeout, OUTPUT_CAP)
    if done.start_error:
        raise PythonError(f"{python}: cannot be run ({done.start_error})")
    if done.overflowed:
        raise PythonError(f"{python}: printed more than {OUTPUT_CAP // MIB} MiB without answering; is it a Python interpreter?")
    if done.timed_out:
        raise PythonError(f"{python}: did not answer within {timeout:g} s; is it a Python interpreter?")
    lines = done.stdout.splitlines()
    for i, line in enumerate(lines):
        match = _MARKER.match(line.strip())
        if match:
            version = tuple(int(part) for part in match.groups())
            text = ".".join(match.groups())
            if version[:2] < MIN_VERSION:
                raise PythonError(f"{python}: is Python {text}; gpudoctor needs Python 3.6 or newer there")
            executable = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return PythonTarget(path, text, executable or path)
    printed = done.stdout.strip() or done.stderr.strip()
    head, echoed, _ = printed.partition(_PROBE[:11])  # a program that echoes its arguments prints the probe back
    said = _short(head + "<program>" if echoed else printed)
    if said:
        what = f"it printed {said!r}"
    else:
        what = f"it exited with status {done.returncode} and printed nothing"
    raise PythonError(f"{python}: is not a Python interpreter ({what})")

