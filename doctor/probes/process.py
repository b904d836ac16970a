"""The one way gpudoctor runs a child process: bounded in time and in output, stopped with all it started.

A child gets an argv list (never a shell), its stdin closed and, on POSIX, a process group of its own. Each
output stream keeps at most ``cap`` bytes, its first half and its last half; a child that prints more, that
outlives its time limit, or whose parent is interrupted (Ctrl-C) is stopped together with everything it
started, so a runaway child can neither fill memory nor hold the run open. ``run`` collects both streams;
``stream`` hands each line of stdout to a callback as it arrives (in the caller's thread) and keeps stderr.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import IO, Callable, List, Mapping, Optional, Sequence

__all__ = ["MIB", "Outcome", "Sink", "crashed", "ending", "kill_tree", "run", "stream"]

MIB = 1024 * 1024
CHUNK = 64 * 1024
JOIN_SECONDS = 5.0  # how long to wait for the reader threads and the reaped child once the run is over

_WINDOWS_CRASHES = {
    0xC0000005: "access violation",
    0xC0000409: "stack buffer overrun",
    0xC000001D: "illegal instruction",
}
_NEWLINE = re.compile(rb"\r\n?|\n")  # what Python's universal newlines mode splits on


class Sink:
    """The head and tail of one stream, ``cap`` bytes in all (with ``keep=False``: only counted)."""

    def __init__(self, cap: int, keep: bool = True) -> None:
        self.cap = max(2, cap)
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> bool:
        """Keep what fits; True once the stream has gone past its cap."""
        self.total += len(chunk)
        if not self.keep:
            return self.overflowed
        half = self.cap // 2
        room = half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.cap - half:
                del self.tail[: len(self.tail) - (self.cap - half)]
        return self.overflowed

    @property
    def overflowed(self) -> bool:
        return self.total > self.cap

    def text(self) -> str:
        if not self.overflowed:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace")
        left_out = self.total - len(self.head) - len(self.tail)
        head, tail = self.head.decode("utf-8", "replace"), self.tail.decode("utf-8", "replace")
        return f"{head}\n[... {left_out} bytes left out ...]\n{tail}"


class _Lines:
    """Cuts a byte stream into lines as universal newlines mode does; a line longer than ``cap`` comes in pieces."""

    def __init__(self, cap: int) -> None:
        self.cap = max(1, cap)
        self.buf = bytearray()

    def feed(self, chunk: bytes, final: bool = False) -> List[str]:
        buf, start, out = self.buf, 0, []
        buf += chunk
        while start < len(buf):
            match = _NEWLINE.search(buf, start, start + self.cap + 2)
            if match is None or match.start() - start > self.cap:
                if len(buf) - start <= self.cap and not final:
                    break
                end = min(len(buf), start + self.cap)
                out.append(bytes(buf[start:end]))
                start = end
                continue
            if match.group() == b"\r" and match.end() == len(buf) and not final:
                break  # the "\n" of a "\r\n" may be in the next chunk
            out.append(bytes(buf[start : match.start()]))
            start = match.end()
        del buf[:start]
        return [line.decode("utf-8", "replace") for line in out]


@dataclass(frozen=True)
class Outcome:
    """How a child ended and what it printed (decoded as UTF-8, bad bytes replaced; a streamed stdout is not kept).

    ``overflowed``: it printed more than the cap to a stream and was stopped; ``start_error``: why it could not
    be started at all (the system's words).
    """

    stdout: str = ""
    stderr: str = ""
    returncode: Optional[int] = None
    timed_out: bool = False
    overflowed: bool = False
    start_error: Optional[str] = None

    @property
    def crashed(self) -> bool:
        return crashed(self.returncode)

    def ending(self) -> str:
        return ending(self.returncode)


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
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


_END, _OVER = object(), object()  # a reader reached the end of its stream; a stream went past its cap
Event = object  # a line (str), _END or _OVER


def _pump(stream: IO[bytes], sink: Sink, events: queue.Queue[Event], lines: Optional[_Lines]) -> None:
    """Read ``stream`` to its end into ``sink`` (and, when streaming, as lines into ``events``)."""
    over = False
    try:
        while True:
            chunk = os.read(stream.fileno(), CHUNK)
            if not chunk:
                break
            if sink.add(chunk) and not over:
                over = True
                events.put(_OVER)
            if lines is not None and not over:
                for line in lines.feed(chunk):
                    events.put(line)
        if lines is not None and not over:
            for line in lines.feed(b"", final=True):
                events.put(line)
    except OSError:
        pass
    finally:
        events.put(_END)


def _wait(proc: subprocess.Popen[bytes], events: queue.Queue[Event], timeout: float,
          on_line: Optional[Callable[[str], None]]) -> bool:
    """Hand over lines until both streams end and the child exits, or a stream overflows; False at the time limit."""
    deadline = time.monotonic() + timeout
    ended = 0
    while ended < 2:
        try:
            event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return False
        if event is _END:
            ended += 1
        elif event is _OVER:
            return True
        elif on_line is not None and isinstance(event, str):
            on_line(event)
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _start(argv: Sequence[str], cwd: Optional[str], env: Optional[Mapping[str, str]]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(list(argv), cwd=cwd, env=None if env is None else dict(env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=os.name == "posix")


def _run(argv: Sequence[str], timeout: float, cap: int, cwd: Optional[str], env: Optional[Mapping[str, str]],
         on_line: Optional[Callable[[str], None]], line_cap: int) -> Outcome:
    try:
        proc = _start(argv, cwd, env)
    except (OSError, ValueError) as exc:
        return Outcome(start_error=str(getattr(exc, "strerror", None) or exc))
    streaming = on_line is not None
    sinks = (Sink(cap, keep=not streaming), Sink(cap))
    events: queue.Queue[Event] = queue.Queue()
    assert proc.stdout is not None and proc.stderr is not None
    threads = [
        threading.Thread(target=_pump, args=(proc.stdout, sinks[0], events, _Lines(line_cap) if streaming else None),
                         daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, sinks[1], events, None), daemon=True),
    ]
    timed_out = False
    try:
        for thread in threads:
            thread.start()
        timed_out = not _wait(proc, events, timeout, on_line)
        if timed_out or any(s.overflowed for s in sinks):
            kill_tree(proc)
    except BaseException:
        kill_tree(proc)
        raise
    finally:
        for thread in threads:
            thread.join(JOIN_SECONDS)
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()
        try:
            proc.wait(timeout=JOIN_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    stdout = "" if streaming else sinks[0].text()
    return Outcome(stdout, sinks[1].text(), proc.returncode, timed_out, any(s.overflowed for s in sinks))


def run(argv: Sequence[str], timeout: float, cap: int = 16 * MIB, cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Run ``argv`` and collect both streams; never raises but for KeyboardInterrupt."""
    return _run(argv, timeout, cap, cwd, env, None, MIB)


def stream(argv: Sequence[str], timeout: float, on_line: Callable[[str], None], cap: int = 16 * MIB,
           line_cap: int = MIB, cwd: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Run ``argv``, calling ``on_line`` with each line of its stdout (without its newline; a line longer than
    ``line_cap`` bytes comes in pieces) as it arrives; ``cap`` counts stdout too. Raises what ``on_line`` raises
    (the child is stopped first), and KeyboardInterrupt; nothing else."""
    return _run(argv, timeout, cap, cwd, env, on_line, line_cap)
