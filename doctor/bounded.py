"""Runs a child process with a time limit and a bound on what it may print, stopping it (and all it started) beyond either.

Each output stream keeps at most ``cap`` bytes: its first half and its last half. A child that prints
more than that is stopped at once, so a runaway child can neither fill memory nor hold the run open;
Ctrl-C stops the child's whole process group before it reaches the caller.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import IO, List, Mapping, Optional, Sequence

from gpudoctor.procs import kill_tree

__all__ = ["MIB", "Outcome", "Sink", "run"]

MIB = 1024 * 1024
CHUNK = 64 * 1024


class Sink:
    """The head and tail of one stream, ``cap`` bytes in all."""

    def __init__(self, cap: int) -> None:
        self.cap = max(2, cap)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> bool:
        """Keep what fits; True once the stream has gone past its cap."""
        self.total += len(chunk)
        half = self.cap // 2
        room = half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.cap - half:
                del self.tail[: len(self.tail) - (self.cap - half)]
        return self.total > self.cap

    @property
    def overflowed(self) -> bool:
        return self.total > self.cap

    def text(self) -> str:
        if not self.overflowed:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace")
        left_out = self.total - len(self.head) - len(self.tail)
        head, tail = self.head.decode("utf-8", "replace"), self.tail.decode("utf-8", "replace")
        return f"{head}\n[... {left_out} bytes left out ...]\n{tail}"


@dataclass(frozen=True)
class Outcome:
    """How a bounded run ended and what it printed (decoded as UTF-8, bad bytes replaced)."""

    stdout: str = ""
    stderr: str = ""
    returncode: Optional[int] = None
    timed_out: bool = False
    overflowed: bool = False
    start_error: Optional[str] = None


def _pump(stream: IO[bytes], sink: Sink, stop: threading.Event, left: List[int], lock: threading.Lock) -> None:
    try:
        while True:
            chunk = os.read(stream.fileno(), CHUNK)
            if not chunk:
                break
            if sink.add(chunk):
                stop.set()
    except OSError:
        pass
    finally:
        with lock:
            left[0] -= 1
            if left[0] == 0:
                stop.set()


def run(argv: Sequence[str], timeout: float, cap: int = 16 * MIB, cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Run ``argv`` (never through a shell) with stdin closed; never raises but for KeyboardInterrupt."""
    try:
        proc = subprocess.Popen(list(argv), cwd=cwd, env=None if env is None else dict(env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=os.name == "posix")
    except (OSError, ValueError) as exc:
        return Outcome(start_error=str(getattr(exc, "strerror", None) or exc))
    sinks = (Sink(cap), Sink(cap))
    stop, lock, left = threading.Event(), threading.Lock(), [2]
    assert proc.stdout is not None and proc.stderr is not None
    threads = [threading.Thread(target=_pump, args=(s, k, stop, left, lock), daemon=True)
               for s, k in ((proc.stdout, sinks[0]), (proc.stderr, sinks[1]))]
    timed_out = False
    try:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + timeout
        finished = stop.wait(timeout)
        overflowed = any(s.overflowed for s in sinks)
        if finished and not overflowed:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                finished = False
        timed_out = not finished
        if timed_out or overflowed:
            kill_tree(proc)
    except BaseException:
        kill_tree(proc)
        raise
    finally:
        for thread in threads:
            thread.join(5)
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    return Outcome(sinks[0].text(), sinks[1].text(), proc.returncode, timed_out, any(s.overflowed for s in sinks))
