"""Reading the notes a pasted report left in ``Facts.extra``: a note's values, and the pasted line a value came from."""

from __future__ import annotations

from typing import Optional, Tuple

from gpudoctor.facts import Facts


def extras(facts: Facts, key: str) -> Tuple[str, ...]:
    """The distinct values of the note ``key`` ("paste.signature", "paste.amd_gpu"...), first seen first."""
    return tuple(dict.fromkeys(value for name, value in facts.extra if name == key))


def inferred_why(facts: Facts, path: str) -> str:
    """What the fact at ``path`` was inferred from, as the parsers said it; "" when it was observed or not said."""
    if not facts.is_inferred(path):
        return ""
    return next((v for k, v in facts.extra if k == f"inferred.{path}"), "")


def pasted_line(facts: Facts, path: str) -> Optional[str]:
    """The pasted line the value at ``path`` was read from, as 'line N: text'; None when the paste did not say."""
    value = next((v for k, v in facts.extra if k == f"paste.line.{path}"), None)
    if value is None:
        return None
    number, _, text = value.partition(": ")
    return f"line {number}: {text}"


def quoted(facts: Facts, code: str) -> Optional[str]:
    """The pasted line a recognised message (signature ``code``) was read from: 'line N: text'."""
    return pasted_line(facts, f"signature.{code}")
