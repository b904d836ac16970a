"""Node names: natural ordering and Slurm hostlist compression ("n[001-012,015]")."""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Tuple

_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")
_PLAIN = re.compile(r"^[A-Za-z0-9._-]+$")
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> Tuple[object, ...]:
    """A sort key that puts n2 before n10."""
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(name))


def _ranges(numbers: List[int], width: int) -> str:
    parts: List[str] = []
    start = prev = numbers[0]
    for number in numbers[1:] + [-2]:
        if number == prev + 1:
            prev = number
            continue
        first, last = str(start).zfill(width), str(prev).zfill(width)
        parts.append(first if start == prev else f"{first}-{last}")
        start = prev = number
    return ",".join(parts)


def compress(names: Iterable[str]) -> str:
    """The names as one Slurm hostlist expression, in natural order; names Slurm cannot bracket stay whole.

    Zero-padded numbers keep their width ("n[001-012]"); unpadded ones of any length share a bracket
    ("n[9-10]"), as Slurm expands both.
    """
    parsed: List[Tuple[str, str, str]] = []
    whole: List[str] = []
    for name in set(names):
        match = _NUMBERED.match(name) if _PLAIN.match(name) else None
        if match is None:
            whole.append(name)
        else:
            parsed.append((match.group(1), match.group(2), match.group(3)))
    padded = {(p, s, len(d)) for p, d, s in parsed if d.startswith("0") and len(d) > 1}
    buckets: Dict[Tuple[str, str, int], List[int]] = {}
    for prefix, digits, suffix in parsed:
        width = len(digits) if (prefix, suffix, len(digits)) in padded else 0
        buckets.setdefault((prefix, suffix, width), []).append(int(digits))
    items: List[Tuple[Tuple[object, ...], str]] = [(natural_key(n), n) for n in whole]
    for (prefix, suffix, width), numbers in buckets.items():
        numbers.sort()
        first = f"{prefix}{str(numbers[0]).zfill(width)}{suffix}"
        text = first if len(numbers) == 1 else f"{prefix}[{_ranges(numbers, width)}]{suffix}"
        items.append((natural_key(first), text))
    return ",".join(text for _, text in sorted(items))


MAX_EXPANDED = 1_000_000
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def _expand_one(item: str, out: List[str]) -> None:
    match = _BRACKET.search(item)
    if match is None:
        if "[" in item or "]" in item:
            raise ValueError(f"unbalanced brackets in {item!r}")
        out.append(item)
        return
    head, tail = item[: match.start()], item[match.end():]
    for part in match.group(1).split(","):
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise ValueError(f"{part!r} in {item!r} is not a number or a range of numbers")
        width = len(first) if first.startswith("0") else 0
        stop = int(last) if last else int(first)
        if stop < int(first) or len(out) + stop - int(first) >= MAX_EXPANDED:
            raise ValueError(f"{part!r} in {item!r} is an empty or too large range")
        for number in range(int(first), stop + 1):
            _expand_one(f"{head}{str(number).zfill(width)}{tail}", out)


def expand(hostlist: str) -> List[str]:
    """``n[001-003],login`` -> n001, n002, n003, login (Slurm's syntax); ValueError when malformed."""
    out: List[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(hostlist + ","):
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            item = hostlist[start:i].strip()
            if item:
                _expand_one(item, out)
            start = i + 1
    if depth != 0:
        raise ValueError(f"unbalanced brackets in {hostlist!r}")
    return out
