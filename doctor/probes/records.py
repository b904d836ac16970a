"""Reads the torch child's JSON lines: the last record of each kind, the last phase, and lines that were not records."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

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
        try:
            record = json.loads(line) if line.lstrip().startswith("{") else None
        except (ValueError, RecursionError):
            record = None
        kind = record.get("record") if isinstance(record, dict) else None
        if not isinstance(kind, str) or not isinstance(record, dict):
            bad.append(line)
            continue
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
