"""How gpudoctor stops a child process it started, and how it describes the way one ended."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any, Optional

_WINDOWS_CRASHES = {
    0xC0000005: "access violation",
    0xC0000409: "stack buffer overrun",
    0xC000001D: "illegal instruction",
}


def kill_tree(proc: "subprocess.Popen[Any]") -> None:
    """Stop ``proc`` and anything it started (it leads its own process group on POSIX); never raises."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass


def crashed(returncode: Optional[int]) -> bool:
    """Killed by a signal (POSIX) or ended by a crash status (Windows)."""
    return returncode is not None and (returncode < 0 or returncode in _WINDOWS_CRASHES)


def ending(returncode: Optional[int]) -> str:
    """How a process that did not finish ended: "killed by signal 11 (SIGSEGV)", "exited with status 3"."""
    if returncode is None:
        return "was stopped"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {-returncode} ({name})"
    if returncode in _WINDOWS_CRASHES:
        return f"crashed with {_WINDOWS_CRASHES[returncode]} (0x{returncode:08X})"
    return f"exited with status {returncode}"
