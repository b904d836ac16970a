"""Runs one verify worker as a child process: streams its JSON-lines records, enforces a time limit, explains failures.

Standard library only: this is the parent's side of the protocol and never imports torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Mapping, Optional, Sequence

import gpudoctor.trainers as _trainers
from gpudoctor.facts.verify import FailureKind
from gpudoctor.probes.jsonlines import Record, read_record
from gpudoctor.probes.process import MIB, crashed, ending, stream
from gpudoctor.trainers.protocol import DONE, FATAL, STAGE

# The worker is run by path; its package holds no torch import at the top, so finding it imports nothing heavy.
WORKER = Path(_trainers.__file__).resolve().parent / "worker.py"
OUTPUT_CAP = 16 * MIB  # bytes per stream; a run prints a few hundred records
LINE_CAP = MIB  # bytes per line read; a longer line arrives in pieces, none of them a record
GARBAGE_KEPT = 10
TAIL_LINE = 4096  # characters kept of one stderr line
TAIL_LINES = 40  # stderr lines kept, the last ones: only its end is ever shown
_LINE_END = re.compile(r"\r\n?|\n")


@dataclass(frozen=True)
class Outcome:
    """What one worker said and how it ended."""

    records: List[Record] = field(default_factory=list)
    returncode: Optional[int] = None
    timed_out: bool = False
    overflowed: bool = False
    garbage: List[str] = field(default_factory=list)
    stderr_tail: List[str] = field(default_factory=list)
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
            return f"printed more than {OUTPUT_CAP // MIB} MiB of output and was stopped{where_stage(self)}"
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
    records: List[Record] = []
    garbage: List[str] = []

    def on_line(line: str) -> None:
        record = read_record(line, "event")
        if record is None:
            if line.strip() and len(garbage) < GARBAGE_KEPT:
                garbage.append(line.strip()[:200])
            return
        records.append(record)
        on_record(record)

    done = stream(argv, timeout, on_line, OUTPUT_CAP, LINE_CAP, env=env)
    if done.start_error:
        records.append({"event": FATAL, "kind": FailureKind.START.value, "error": f"{argv[0]} cannot be started: {done.start_error}"})
    tail = [line[-TAIL_LINE:] for line in _LINE_END.split(done.stderr)[-TAIL_LINES:]]
    return Outcome(records, done.returncode, done.timed_out, done.overflowed, garbage, tail, timeout)


def where_stage(outcome: Outcome) -> str:
    return f" during {outcome.last_stage}" if outcome.last_stage else ""
