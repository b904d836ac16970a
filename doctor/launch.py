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

# The worker is run by path; its package holds no torch import at the top, so finding it imports nothing heavy.
WORKER = Path(_trainers.__file__).resolve().parent / "worker.py"
Record = Dict[str, Any]


@dataclass
class Outcome:
    """What one worker said and how it ended."""

    records: List[Record] = field(default_factory=list)
    returncode: Optional[int] = None
    timed_out: bool = False
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
        """crashed | timeout | garbage | exited, or the FATAL record's kind; None when the worker finished."""
        if self.finished:
            return None
        fatal = self.first(FATAL)
        if self.timed_out:
            return "timeout"
        if fatal is not None:
            return str(fatal.get("kind") or "internal")
        if crashed(self.returncode):
            return "crashed"
        return "garbage" if self.garbage else "exited"

    def failure(self) -> Optional[str]:
        """Why the worker did not finish, as a phrase that completes "the worker ..."; None when it finished."""
        if self.finished:
            return None
        fatal = self.first(FATAL)
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
        outcome.records.append({"event": FATAL, "kind": "start", "error": f"{argv[0]} cannot be started: {exc}"})
        return outcome
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    threads = [
        threading.Thread(target=_pump, args=(proc.stdout, lines.put, lines.put), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, outcome.stderr_tail.append), daemon=True),
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
                if line.strip():
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


def _pump(stream: Any, put: Callable[[Any], None], end: Optional[Callable[[Any], None]] = None) -> None:
    """Hand each line of ``stream`` to ``put``; at its end call ``end(None)``."""
    try:
        for line in stream:
            put(line.rstrip("\n"))
    except (OSError, ValueError):
        pass
    finally:
        if end is not None:
            end(None)


def _parse(line: str) -> Optional[Record]:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if isinstance(record, dict) and isinstance(record.get("event"), str):
        return record
    return None
