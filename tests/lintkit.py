"""Helpers for the lint tests: lint a snippet with chosen rules and get (line, code) pairs back."""

from __future__ import annotations

import textwrap
from typing import List, Sequence, Tuple

from gpudoctor.lint.engine import lint_text
from gpudoctor.lint.model import Diagnostic
from gpudoctor.lint.registry import discover


def diagnostics(source: str, select: Sequence[str] = ("ALL",), ignore: Sequence[str] = ()) -> List[Diagnostic]:
    rules = discover(plugins=False).select(select, ignore)
    return lint_text(textwrap.dedent(source).lstrip("\n"), rules)


def found(source: str, select: Sequence[str] = ("ALL",), ignore: Sequence[str] = ()) -> List[Tuple[int, str]]:
    """(line, code) of every finding in ``source``, in order."""
    return [(d.line, d.code) for d in diagnostics(source, select, ignore)]


def defaults(source: str) -> List[Tuple[int, str]]:
    """(line, code) of the findings of the rules that run without --select."""
    return found(source, select=())
