"""The inputs of a fleet triage: files, directories and glob patterns, expanded lazily, in a stable order."""

from __future__ import annotations

import glob
import os
from typing import Iterator, List, Sequence, Set

from gpudoctor.fleet.hostlist import natural_key
from gpudoctor.parsers.report import InputError

SUFFIXES = (".json", ".md", ".markdown", ".txt")
_MAGIC = ("*", "?", "[")


class EmptyFleet(InputError):
    """No input file at all; the message is one line for the user."""


def is_pattern(source: str) -> bool:
    return any(ch in source for ch in _MAGIC) and not os.path.exists(source)


def is_fleet(sources: Sequence[str]) -> bool:
    """More than one source, a directory or a glob pattern: the fleet view rather than one report."""
    return len(sources) > 1 or any(s != "-" and (os.path.isdir(s) or is_pattern(s)) for s in sources)


def _directory(path: str) -> List[str]:
    try:
        with os.scandir(path) as entries:
            names = [e.name for e in entries if not e.name.startswith(".") and e.name.lower().endswith(SUFFIXES)
                     and e.is_file()]
    except OSError:
        return []
    return [os.path.join(path, name) for name in sorted(names, key=natural_key)]


def expand(sources: Sequence[str]) -> Iterator[str]:
    """Every input file once: a directory gives its .json, .md, .markdown and .txt files (not recursing),
    a pattern its matches; a path that does not exist is yielded as is, so that it becomes a row."""
    seen: Set[str] = set()
    found = 0
    for source in sources:
        if source == "-":
            raise EmptyFleet("'-' (standard input) cannot be one of several inputs; save it to a file")
        if is_pattern(source):
            paths = sorted(glob.iglob(source, recursive=True), key=natural_key)
        else:
            paths = [source]
        for path in paths:
            for item in _directory(path) if os.path.isdir(path) else [path]:
                key = os.path.normcase(os.path.abspath(item))
                if key not in seen:
                    seen.add(key)
                    found += 1
                    yield item
    if not found:
        shown = " ".join(sources) if len(sources) <= 3 else f"{' '.join(sources[:3])} …"
        raise EmptyFleet(f"no input files in {shown} (looked for {', '.join(SUFFIXES)} files)")
