"""The exhaustiveness guard for branches over an enum: mypy rejects a call it can reach."""

from __future__ import annotations

from typing import NoReturn


def assert_never(value: NoReturn) -> NoReturn:
    """Mark the end of an if/elif chain that has covered every member; mypy reports a member left out."""
    raise AssertionError(f"unhandled value: {value!r}")
