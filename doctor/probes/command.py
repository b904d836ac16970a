"""Runs an external command the safe way: an argv list, a time limit and forgiving decoding."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence, Tuple

from gpudoctor.probes.process import MIB, run

OUTPUT_CAP = 4 * MIB  # nvidia-smi -q of eight GPUs is well under 1 MiB


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
    done = run(args, timeout, OUTPUT_CAP)
    name = os.path.basename(args[0]) if args else "command"
    if done.start_error:
        return CommandResult(args, error=f"{name} could not run: {done.start_error}")
    if done.overflowed:
        return CommandResult(args, error=f"{name} printed more than {OUTPUT_CAP // MIB} MiB and was stopped")
    if done.timed_out:
        return CommandResult(args, error=f"{name} did not finish within {timeout:g} s")
    return CommandResult(args, done.returncode, done.stdout, done.stderr)


def find_tool(name: str, environ: Mapping[str, str], extra_dirs: Sequence[str] = ()) -> Optional[str]:
    """The executable ``name`` on the PATH of ``environ`` (then in ``extra_dirs``), or None."""
    search = os.pathsep.join([environ.get("PATH", "")] + [d for d in extra_dirs if d])
    return shutil.which(name, path=search)
