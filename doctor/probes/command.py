"""Runs an external command the safe way: an argv list, a time limit and forgiving decoding."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence, Tuple


@dataclass(frozen=True)
class CommandResult:
    """What one command did; ``error`` is set when it could not run or did not finish."""

    argv: Tuple[str, ...]
    returncode: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0

    @property
    def output(self) -> str:
        """stdout and stderr together, stripped."""
        return "\n".join(part.strip() for part in (self.stdout, self.stderr) if part.strip())


Runner = Callable[[Sequence[str], float], CommandResult]


def run_command(argv: Sequence[str], timeout: float = 10.0) -> CommandResult:
    """Run ``argv`` (never through a shell) and capture its output; never raises."""
    args = tuple(argv)
    try:
        done = subprocess.run(
            list(args),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return CommandResult(args, error=f"{os.path.basename(args[0])} did not finish within {timeout:g} s")
    except OSError as exc:
        return CommandResult(args, error=f"{os.path.basename(args[0])} could not run: {exc.strerror or exc}")
    return CommandResult(args, done.returncode, done.stdout or "", done.stderr or "")


def find_tool(name: str, environ: Mapping[str, str], extra_dirs: Sequence[str] = ()) -> Optional[str]:
    """The executable ``name`` on the PATH of ``environ`` (then in ``extra_dirs``), or None."""
    search = os.pathsep.join([environ.get("PATH", "")] + [d for d in extra_dirs if d])
    return shutil.which(name, path=search)
