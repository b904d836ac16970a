"""Runs one verify worker as a child process: streams its JSON-lines records, enforces a time limit, explains failures.

Standard library only: this is the parent's side of the protocol and never imports torch.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Sequence

import gpudoctor.trainers as _trainers
from gpudoctor.procs import crashed, ending, kill_tree
from gpudoctor.trainers.protocol import DONE, FATAL, STAGE
from gpudoctor.verify_facts import FailureKind

# The worker is run by path; its package holds no torch import at the top, so finding it imports nothing heavy.
WORKER = Path(_trainers.__file__).resolve().parent / "worker.py"
Record = Dict[str, Any]
OUTPUT_CAP = 16 * 1024 * 1024  # characters from both streams; a run prints a few hundred records
LINE_CAP = 1024 * 1024  # characters per line read; a longer line arrives in pieces, none of them a record
GARBAGE_KEPT = 10
CHUNK = 64 * 1024
TAIL_LINE = 4096  # characters kept of one stderr line


class _Budget:
    """Characters both streams may still print; shared by the two pumps."""

    def __init__(self, cap: int) -> None:
        self.left = cap
        self.lock = threading.Lock()

    def spend(self, size: int) -> bool:
        """True once the budget is spent."""
        with self.lock:
            self.left -= size
            return self.left < 0


@dataclass
class Outcome:
    """What one worker said and how it ended."""

    records: List[Record] = field(default_factory=list)
    returncode: Optional[int] = None
    timed_out: bool = False
    overflowed: bool = False
    garbage: List[str] = field(default_factory=list)
    stderr_tail: Deque[str] = field(default_factory=lambda: deque(maxlen=40))
    timeout: float = 0.0

    def events(self, name: str) -> List[Record]:
        return [r for r in self.records if r.get("event") == name]

    def first(self, name: str) -> Optional[Record]:
        found = self.events(name)
        return found[0] if found else None

    @property
    def finished(self) -> bool:
        return self.first(DONE) is not None

    @property
    def last_stage(self) -> Optional[str]:
        stages = self.events(STAGE)
        if not stages:
            return None
        last = stages[-1]
        return " ".join(str(last[k]) for k in ("stage", "model") if last.get(k))

    def failure_kind(self) -> Optional[str]:
        """A FailureKind value: the launcher's verdict or the FATAL record's kind; None when the worker finished."""
        if self.finished:
            return None
        fatal = self.first(FATAL)
        if self.timed_out:
            return FailureKind.TIMEOUT.value
        if self.overflowed:
            return FailureKind.GARBAGE.value
        if fatal is not None:
            return str(fatal.get("kind") or FailureKind.INTERNAL.value)
        if crashed(self.returncode):
            return FailureKind.CRASHED.value
        if self.garbage:
            return FailureKind.GARBAGE.value
        return FailureKind.EXITED.value

    def failure(self) -> Optional[str]:
        """Why the worker did not finish, as a phrase that completes "the worker ..."; None when it finished."""
        if self.finished:
            return None
        fatal = self.first(FATAL)
        if self.overflowed:
            return f"printed more than {OUTPUT_CAP // (1024 * 1024)} MiB of output and was stopped{where_stage(self)}"
        if fatal is not None and not self.timed_out:
            return f"failed: {fatal.get('error') or 'no reason given'}"
        where = f" during {self.last_stage}" if self.last_stage else ""
        if self.timed_out:
            return f"did not finish within {self.timeout:g} s and was stopped (it hung{where})"
        rc = self.returncode
        if crashed(rc):
            return f"was {ending(rc)}{where}{self._stderr_hint()}"
        if self.garbage:
            shown = "; ".join(repr(g) for g in self.garbage[:2])
            return f"printed output that is not gpudoctor's protocol ({shown}) and stopped{where}"
        return f"exited with status {rc} before finishing{where}{self._stderr_hint()}"

    def _stderr_hint(self) -> str:
        lines = [line.strip() for line in self.stderr_tail if line.strip()]
        return f"; its last words: {lines[-1][:300]}" if lines else ""


def run(
    argv: Sequence[str],
    timeout: float,
    on_record: Callable[[Record], None],
    env: Optional[Mapping[str, str]] = None,
) -> Outcome:
    """Start ``argv``, hand each record to ``on_record`` as it arrives, kill the worker after ``timeout`` seconds."""
    outcome = Outcome(timeout=timeout)
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=dict(env) if env is not None else None,
            start_new_session=os.name == "posix",
        )
    except OSError as exc:
        outcome.records.append({"event": FATAL, "kind": FailureKind.START.value, "error": f"{argv[0]} cannot be started: {exc}"})
        return outcome
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    budget = _Budget(OUTPUT_CAP)

    def overflow() -> None:
        outcome.overflowed = True
        kill_tree(proc)

    threads = [
        threading.Thread(target=_pump, args=(proc.stdout, lines.put, lines.put, budget, overflow), daemon=True),
        threading.Thread(target=_tail, args=(proc.stderr, outcome.stderr_tail, budget, overflow), daemon=True),
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise queue.Empty
            line = lines.get(timeout=remaining)
            if line is None:
                break
            record = _parse(line)
            if record is None:
                if line.strip() and len(outcome.garbage) < GARBAGE_KEPT:
                    outcome.garbage.append(line.strip()[:200])
                continue
            outcome.records.append(record)
            on_record(record)
        outcome.returncode = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except (queue.Empty, subprocess.TimeoutExpired):
        outcome.timed_out = True
        kill_tree(proc)
        outcome.returncode = proc.wait()
    except BaseException:
        kill_tree(proc)
        proc.wait()
        raise
    for thread in threads:
        thread.join(timeout=2.0)
    return outcome


def where_stage(outcome: Outcome) -> str:
    return f" during {outcome.last_stage}" if outcome.last_stage else ""


def _pump(stream: Any, put: Callable[[Any], None], end: Optional[Callable[[Any], None]] = None,
          budget: Optional[_Budget] = None, alarm: Optional[Callable[[], None]] = None) -> None:
    """Hand each line of ``stream`` (at most LINE_CAP characters at a time) to ``put``; at its end call ``end(None)``.

    Past the shared ``budget`` it stops reading and calls ``alarm()``, which stops the worker.
    """
    try:
        while True:
            line = stream.readline(LINE_CAP)
            if not line:
                break
            if budget is not None and budget.spend(len(line)):
                if alarm is not None:
                    alarm()
                break
            put(line.rstrip("\n"))
    except (OSError, ValueError):
        pass
    finally:
        if end is not None:
            end(None)


def _tail(stream: Any, tail: Deque[str], budget: _Budget, alarm: Callable[[], None]) -> None:
    """Keep the last lines of ``stream`` (read in large pieces: only its end is ever shown); alarm past the budget."""
    partial = ""
    try:
        while True:
            chunk = stream.read(CHUNK)
            if not chunk:
                break
            if budget.spend(len(chunk)):
                alarm()
                break
            *whole, partial = (partial + chunk).split("\n")
            tail.extend(line[-TAIL_LINE:] for line in whole[-(tail.maxlen or 40):])
            partial = partial[-TAIL_LINE:]
    except (OSError, ValueError):
        pass
    finally:
        if partial:
            tail.append(partial)


def _parse(line: str) -> Optional[Record]:
    if not line.lstrip().startswith("{"):
        return None
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if isinstance(record, dict) and isinstance(record.get("event"), str):
        return record
    return None
