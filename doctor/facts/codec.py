"""The facts file format: frozen dataclasses to JSON-ready data and back, typed by their annotations, and the
marker that embeds a facts document in a Markdown report."""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from typing import Any, Optional, Tuple, Type, TypeVar, Union

from gpudoctor.errors import UserError

INT_LIMIT = 2**63
FACTS_MARKER = "<!-- gpudoctor-facts -->"  # the line before the JSON block of facts in a Markdown report


class FactsError(UserError, ValueError):
    """A facts document that cannot be read; the message is one line for the user."""


_V = TypeVar("_V", bound="Vocabulary")


class Vocabulary(enum.Enum):
    """A closed set of names that facts spell as strings: each member's value is its string in the file.

    The facts fields keep the strings, so a file from another version, with a name this one does not
    know, still reads and writes unchanged; code decides by the member ``parse`` finds.
    """

    @classmethod
    def parse(cls: Type[_V], value: object) -> Optional[_V]:
        """The member spelled ``value``, or None for anything else (None, or a name from another version)."""
        for member in cls:
            if member.value == value:
                return member
        return None


def to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


# Fields whose integers have a range no real machine leaves; a value outside it is an input error.
_BOUNDS = {"compute_capability": (0, 99)}


def _within_bounds(name: str, value: Any, path: str) -> None:
    bounds = _BOUNDS.get(name)
    if bounds is None or value is None:
        return
    low, high = bounds
    items = value if isinstance(value, tuple) else (value,)
    if not all(low <= item <= high for item in items):
        raise FactsError(f"{path} must hold numbers from {low} to {high}, got {list(items)!r}")


def from_plain(tp: Any, value: Any, path: str) -> Any:
    """Build a value of type ``tp`` from JSON data: missing keys take defaults, unknown keys are ignored."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Union or (hasattr(types, "UnionType") and isinstance(tp, types.UnionType)):
        if value is None:
            return None
        inner = [a for a in args if a is not type(None)]
        return from_plain(inner[0], value, path)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise FactsError(f"{path} must be an object, got {type(value).__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in value:
                kwargs[f.name] = from_plain(hints[f.name], value[f.name], f"{path}.{f.name}")
                _within_bounds(f.name, kwargs[f.name], f"{path}.{f.name}")
        return tp(**kwargs)
    if origin in (tuple, Tuple):
        if not isinstance(value, (list, tuple)):
            raise FactsError(f"{path} must be a list, got {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], item, f"{path}[{i}]") for i, item in enumerate(value))
        if len(args) != len(value):
            raise FactsError(f"{path} must have {len(args)} items, got {len(value)}")
        return tuple(from_plain(a, item, f"{path}[{i}]") for i, (a, item) in enumerate(zip(args, value)))
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise FactsError(f"{path} must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise FactsError(f"{path} must be an integer, got {value!r}")
        if not -INT_LIMIT <= value < INT_LIMIT:
            raise FactsError(f"{path} is out of range ({len(str(abs(value)))} digits); facts hold 64-bit integers")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise FactsError(f"{path} must be a number, got {value!r}")
        if not math.isfinite(float(value)):
            raise FactsError(f"{path} must be a finite number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise FactsError(f"{path} must be a string, got {value!r}")
        return value
    raise FactsError(f"{path}: unsupported type {tp!r}")  # pragma: no cover
