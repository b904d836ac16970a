"""Runs the torch child under the target interpreter with a time limit, and says how it ended."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Mapping, Optional

from gpudoctor.probes.process import MIB, Outcome, ending, run

__all__ = ["CHILD", "OUTPUT_CAP", "ChildRun", "ending", "last_frame", "last_line", "spawn"]

CHILD = Path(__file__).with_name("torch_child.py")
OUTPUT_CAP = 32 * MIB  # per stream; the package list of a big environment is a few MiB

# How the child process ended and what it printed: the runner's outcome (``overflowed``: it printed more than
# the cap and was stopped).
ChildRun = Outcome


def spawn(python: str, timeout: float, environ: Optional[Mapping[str, str]] = None,
          cap: int = OUTPUT_CAP) -> ChildRun:
    """Run the child by path, in an empty temporary folder, stopping it (and anything it started) at ``timeout``
    or when it prints more than ``cap`` bytes to either stream."""
    env = dict(os.environ if environ is None else environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # never write __pycache__ into the environment being diagnosed
    with tempfile.TemporaryDirectory(prefix="gpudoctor-") as cwd:
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cwd, "torchinductor")  # torch's import would leave it in /tmp
        env["TRITON_CACHE_DIR"] = os.path.join(cwd, "triton")
        done = run([os.path.abspath(python), str(CHILD)], timeout, cap, cwd=cwd, env=env)
    if done.start_error:
        return ChildRun(start_error=f"could not start {python}: {done.start_error}")
    return done


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
