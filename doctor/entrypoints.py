"""Entry points of one group, read straight from the installed distributions' entry_points.txt files.

`importlib.metadata` parses every distribution's metadata through the `email` package, which costs more than
the rest of `gpudoctor checks`; plugin discovery needs only the entry-point files and the names in the
dist-info folder names.
"""

from __future__ import annotations

import configparser
import importlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Set

_INFO = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+?)(?:-py[\d.]+)?\.(?:dist|egg)-info$", re.IGNORECASE)


def canonical(name: str) -> str:
    """PEP 503 normal form: "Torch_GPUDoctor" -> "torch-gpudoctor"."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Dist:
    """The distribution an entry point comes from, as named by its metadata folder."""

    name: str
    version: str

    @property
    def metadata(self) -> dict:
        return {"Name": self.name}


@dataclass(frozen=True)
class EntryPoint:
    """``name = module:attr.path`` from an entry_points.txt."""

    name: str
    value: str
    dist: Dist

    def load(self) -> Any:
        module, _, attrs = self.value.partition(":")
        obj: Any = importlib.import_module(module.strip())
        for attr in filter(None, attrs.strip().split(".")):
            obj = getattr(obj, attr)
        return obj


def _read(folder: str, group: str) -> List[tuple]:
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as handle:
            parser.read_file(handle)
    except (OSError, configparser.Error, UnicodeDecodeError):
        return []
    return list(parser.items(group)) if parser.has_section(group) else []


def entry_points(group: str, path: Optional[Iterable[str]] = None) -> List[EntryPoint]:
    """The group's entry points of every distribution on ``path`` (sys.path), the first copy of each distribution."""
    found: List[EntryPoint] = []
    seen: Set[str] = set()
    for entry in list(sys.path if path is None else path):
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for folder in names:
            match = _INFO.match(folder)
            if not match:
                continue
            dist = Dist(match.group("name").replace("_", "-"), match.group("version"))
            key = canonical(dist.name)
            if key in seen:
                continue
            seen.add(key)
            found += [EntryPoint(name, value, dist) for name, value in _read(os.path.join(entry or ".", folder), group)]
    return found
