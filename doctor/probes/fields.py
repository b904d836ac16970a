"""Typed reads of the torch child's JSON records: a field of the wrong type is dropped and named, never passed on.

The child runs under an interpreter gpudoctor does not control (a ``sitecustomize`` or a patched stdlib can
change what it prints), so a record that is valid JSON can still hold a list where text belongs. Each read
checks its field's type; a bad one becomes None (or is left out of a list) and is noted for the probe error.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

__all__ = ["Fields", "dropped_error"]

MAX_INT = 2**63 - 1
MAX_TEXT = 1_000_000  # characters; a traceback is long, a version is not


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class Fields:
    """One record's fields, read by type; ``dropped`` collects ``"kind.field (a list, not text)"``."""

    def __init__(self, record: Any, kind: str, dropped: List[str]) -> None:
        self.record: Mapping[str, Any] = record if isinstance(record, dict) else {}
        self.kind = kind
        self.dropped = dropped

    def _bad(self, key: str, value: Any, wanted: str) -> None:
        self.dropped.append(f"{self.kind}.{key} ({_kind(value)}, not {wanted})")

    def raw(self, key: str) -> Any:
        return self.record.get(key)

    def text(self, key: str) -> Optional[str]:
        value = self.record.get(key)
        if value is None or (isinstance(value, str) and len(value) <= MAX_TEXT):
            return value
        self._bad(key, value, "text")
        return None

    def flag(self, key: str) -> Optional[bool]:
        value = self.record.get(key)
        if value is None or isinstance(value, bool):
            return value
        self._bad(key, value, "true/false")
        return None

    def number(self, key: str) -> Optional[int]:
        value = self.record.get(key)
        if value is None or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INT):
            return value
        self._bad(key, value, "a whole number from 0 to 2**63-1")
        return None

    def texts(self, key: str) -> Optional[Tuple[str, ...]]:
        value = self.record.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and len(v) <= MAX_TEXT for v in value):
            self._bad(key, value, "a list of text")
            return None
        return tuple(value)

    def objects(self, key: str) -> List[Dict[str, Any]]:
        value = self.record.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self._bad(key, value, "a list of objects")
            return []
        if not all(isinstance(v, dict) for v in value):
            self._bad(key, value, "a list of objects")
        return [v for v in value if isinstance(v, dict)]

    def sub(self, key: str) -> "Fields":
        return Fields(self.record.get(key) if isinstance(self.record.get(key), dict) else {}, f"{self.kind}.{key}",
                      self.dropped)


def dropped_error(dropped: List[str]) -> Optional[Tuple[str, str]]:
    """One probe error naming every dropped field, or None."""
    if not dropped:
        return None
    shown = ", ".join(dropped[:10]) + (f" and {len(dropped) - 10} more" if len(dropped) > 10 else "")
    return ("torch", f"the torch probe reported fields of the wrong type, left out: {shown}")
