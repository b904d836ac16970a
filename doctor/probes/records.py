"""Reads the torch child's JSON lines: the last record of each kind, the last phase, and lines that were not records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

from gpudoctor.probes.jsonlines import read_record

BAD_LINE_LIMIT = 100


@dataclass(frozen=True)
class ChildRecords:
    """The records by kind (a later record of a kind replaces an earlier one)."""

    records: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    phase: Tuple[str, str] = ("python", "starting the torch probe")
    done: bool = False
    errors: Tuple[Tuple[str, str], ...] = ()

    def get(self, kind: str) -> Dict[str, Any]:
        return self.records.get(kind, {})


def _quote(line: str) -> str:
    line = line.strip()
    return repr(line if len(line) <= BAD_LINE_LIMIT else line[:BAD_LINE_LIMIT] + "...")


def read_records(stdout: str) -> ChildRecords:
    """Parse every line; a line that is not a JSON record is skipped and the first one is quoted in an error."""
    records: Dict[str, Dict[str, Any]] = {}
    phase = ("python", "starting the torch probe")
    errors: List[Tuple[str, str]] = []
    bad: List[str] = []
    done = False
    for line in stdout.splitlines():
        if not line.strip():
            continue
        record = read_record(line, "record")
        if record is None:
            bad.append(line)
            continue
        kind = record["record"]
        if kind == "phase":
            phase = (str(record.get("section", "torch")), str(record.get("doing", "running")))
        elif kind == "child_error":
            section = str(record.get("section", "torch"))
            errors.append((section, f"the torch probe failed while reading {section}: {record.get('error')}"))
        elif kind == "done":
            done = True
        else:
            records[kind] = record
    if bad:
        more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        errors.append(("torch", f"the torch probe printed lines that are not JSON records: {_quote(bad[0])}{more}"))
    return ChildRecords(records, phase, done, tuple(errors))
