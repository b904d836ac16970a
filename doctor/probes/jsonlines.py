"""Reads one line of a JSON-lines protocol: the records gpudoctor's children print, one JSON object a line."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

Record = Dict[str, Any]


def read_record(line: str, tag: str) -> Optional[Record]:
    """The JSON object on ``line`` when its ``tag`` field is text ("event", "record"); None for anything else."""
    if not line.lstrip().startswith("{"):
        return None
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if isinstance(record, dict) and isinstance(record.get(tag), str):
        return record
    return None
