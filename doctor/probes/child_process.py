"""Runs the torch child under the target interpreter with a time limit, and says how it ended."""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from gpudoctor.procs import ending, kill_tree

__all__ = ["CHILD", "ChildRun", "ending", "last_frame", "last_line", "spawn"]

CHILD = Path(__file__).with_name("torch_child.py")
@dataclass(frozen=True)
class ChildRun:
    """How the child process ended and what it printed."""

    stdout: str = ""
    stderr: str = ""
    returncode: Optional[int] = None
    timed_out: bool = False
    start_error: Optional[str] = None


def spawn(python: str, timeout: float, environ: Optional[Mapping[str, str]] = None) -> ChildRun:
    """Run the child by path, in an empty temporary folder, killing it (and anything it started) at ``timeout``."""
    env = dict(os.environ if environ is None else environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # never write __pycache__ into the environment being diagnosed
    with tempfile.TemporaryDirectory(prefix="gpudoctor-") as cwd:
        try:
            proc = subprocess.Popen(
                [os.path.abspath(python), str(CHILD)],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            return ChildRun(start_error=f"could not start {python}: {exc.strerror or exc}")
        try:
            out, err = proc.communicate(timeout=timeout)
            return ChildRun(out, err, proc.returncode)
        except subprocess.TimeoutExpired:
            kill_tree(proc)
            try:
                out, err = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                out, err = "", ""
            return ChildRun(out, err, proc.returncode, timed_out=True)


def last_frame(stderr: str) -> Optional[str]:
    """The innermost Python frame of a faulthandler dump: "last Python frame: File x.py, line 12 in f"."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(("Current thread", "Thread 0x")) and i + 1 < len(lines) and "File" in lines[i + 1]:
            return "last Python frame: " + lines[i + 1].strip().replace('"', "")
    return None


def last_line(stderr: str) -> Optional[str]:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:300] if lines else None
