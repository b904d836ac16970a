"""Text from the diagnosed input made inert before it is shown or written: no control characters, no bad bytes.

A value read from a machine or a pasted report can hold terminal escape sequences (a window title, erased
or overwritten lines, hidden text) and bytes that are not UTF-8 (an ``LD_LIBRARY_PATH`` entry, kept by
Python as lone surrogates). ``visible`` spells both out as ``\\xNN`` escapes; ``scrub`` applies it to every
string of a report; ``json_text`` escapes what ``json.dumps(ensure_ascii=False)`` leaves raw.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

__all__ = ["json_text", "scrub", "visible"]

T = TypeVar("T")

# C0 but tab and newline, DEL, C1, the line and paragraph separators, bidirectional overrides, lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _spell(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as os.environ and os.fsdecode keep it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with control characters and undecodable bytes written out as escapes; tabs and newlines kept."""
    return _UNSAFE.sub(_spell, text) if _UNSAFE.search(text) else text


def json_text(text: str) -> str:
    """JSON text from ``json.dumps(..., ensure_ascii=False)`` with C1 controls and lone surrogates escaped.

    Those characters occur only inside JSON strings, where ``\\uXXXX`` is the same value: loading the
    result gives back exactly what was dumped, and writing it as UTF-8 cannot fail.
    """
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text) if _JSON_RAW.search(text) else text


def scrub(value: T) -> T:
    """``value`` (a report, facts, or anything made of dataclasses, tuples, lists and dicts) with every string visible."""
    return _scrub(value)  # type: ignore[no-any-return]


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return visible(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            if f.init:
                old = getattr(value, f.name)
                new = _scrub(old)
                if new is not old:
                    changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        items = tuple(_scrub(v) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    return value
