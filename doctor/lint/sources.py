"""Finding and reading what to lint: Python files, notebooks' code cells, directories walked for both."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import tokenize
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple, Union

from gpudoctor.lint.model import FileError
from gpudoctor.errors import UserError

SUFFIXES = (".py", ".pyi", ".ipynb")
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "env", ".tox", ".nox", "__pycache__",
                          "node_modules", "site-packages", "__pypackages__", "build", "dist", ".mypy_cache",
                          ".ruff_cache", ".pytest_cache", ".ipynb_checkpoints"})
MAX_BYTES = 10 * 1024 * 1024
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
CELL_MAGIC_PYTHON = ("%%time", "%%timeit", "%%capture", "%%prun")
IPYTHON_ONLY = re.compile(r"^\s*([%!]|[\w.,\s]+=\s*[%!]|[\w.]+\?\??\s*$)")  # %magic, !shell, x = !cmd, obj?


@dataclass(frozen=True)
class Source:
    """Python text to lint; ``cells`` maps a notebook's joined lines back to (cell number, first line)."""

    path: str
    text: str
    cells: Tuple[Tuple[int, int], ...] = ()

    def place(self, line: int) -> Tuple[Optional[int], int]:
        """(cell number or None, line within it) of a line of ``text``."""
        cell, first = None, 1
        for number, start in self.cells:
            if start <= line:
                cell, first = number, start
        return (cell, line - first + 1) if cell is not None else (None, line)

    def noqa(self) -> Dict[int, Optional[FrozenSet[str]]]:
        """Line -> the codes a ``# noqa: CODE`` comment silences there (None: a bare ``# noqa``, all)."""
        found: Dict[int, Optional[FrozenSet[str]]] = {}
        if "noqa" not in self.text and "NOQA" not in self.text.upper():
            return found
        for number, line in enumerate(self.text.splitlines(), 1):
            match = NOQA.search(line)
            if match:
                codes = match.group("codes")
                found[number] = frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c) if codes else None
        return found


def _decode(data: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding).replace("\r\n", "\n")


def _notebook(path: str, data: bytes) -> Source:
    try:
        notebook = json.loads(data.decode("utf-8"))
        cells = notebook["cells"] if isinstance(notebook, dict) else None
        if not isinstance(cells, list):
            raise ValueError("no cell list")
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        raise SourceError(FileError(path, f"not a readable notebook ({exc.__class__.__name__})")) from None
    lines: List[str] = []
    starts: List[Tuple[int, int]] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = cell.get("source", "")
        text = "".join(text) if isinstance(text, list) else str(text)
        body = text.splitlines()
        if body and body[0].startswith("%%") and not body[0].startswith(CELL_MAGIC_PYTHON):
            continue  # %%bash and other non-Python cells
        starts.append((number, len(lines) + 1))
        lines += [f"{line[:len(line) - len(line.lstrip())]}pass  # magic" if IPYTHON_ONLY.match(line) else line
                  for line in body]
    return Source(path, "\n".join(lines) + "\n", tuple(starts))


class SourceError(UserError):
    """A file that cannot be read as Python."""

    def __init__(self, error: FileError) -> None:
        super().__init__(str(error))
        self.error = error


def read_source(path: str) -> Source:
    """The Python text of ``path`` (``-`` reads stdin); raises SourceError with one line to print."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SourceError(FileError(path, exc.strerror or type(exc).__name__)) from None
    if len(data) > MAX_BYTES:
        raise SourceError(FileError(path, f"larger than {MAX_BYTES // (1024 * 1024)} MiB, not linted"))
    if path.endswith(".ipynb"):
        return _notebook(path, data)
    try:
        return Source(path, _decode(data))
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise SourceError(FileError(path, f"cannot decode ({type(exc).__name__})")) from None


def walk(paths: List[str]) -> Iterator[Union[str, FileError]]:
    """Each file named, and every .py/.ipynb under each directory named (skipping virtual envs, VCS, caches)."""
    for path in paths:
        if path == "-" or os.path.isfile(path):
            yield path
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
                for name in sorted(files):
                    if name.endswith(SUFFIXES):
                        yield os.path.normpath(os.path.join(root, name))
        else:
            yield FileError(path, "no such file or directory")
