"""Lint value types: a rule, what a rule reports (a hit) and a located finding (a diagnostic)."""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Optional, Tuple

if TYPE_CHECKING:
    from gpudoctor.lint.script import Script

CODE_PATTERN = re.compile(r"^[A-Z]{1,5}[0-9]{2,5}$")


@dataclass(frozen=True)
class Hit:
    """What a rule found at a node: the message (what is observed) and the fix (what to write instead)."""

    node: ast.AST
    message: str
    fix: str


RuleFunc = Callable[["Script"], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    """A named, pure function from a parsed script to hits; ``default`` rules run without --select."""

    code: str
    name: str
    func: RuleFunc
    default: bool = True
    source: str = ""  # filled in at discovery: "torch-gpudoctor 0.1.0"

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.func) or ""

    @property
    def summary(self) -> str:
        return self.doc.split("\n\n", 1)[0].replace("\n", " ")

    def with_source(self, source: str) -> Rule:
        return Rule(self.code, self.name, self.func, self.default, source)


def rule(code: str, name: str, default: bool = True) -> Callable[[RuleFunc], Rule]:
    """Decorator: ``@rule("GD101", "discarded-move")``; the function's docstring is what --explain prints."""
    if not CODE_PATTERN.match(code):
        raise ValueError(f"lint rule code {code!r} must be letters then digits, like GD101")

    def wrap(func: RuleFunc) -> Rule:
        return Rule(code=code, name=name, func=func, default=default)

    return wrap


@dataclass(frozen=True)
class Diagnostic:
    """One finding at a place in a file: ``path:line:col: CODE message``; ``cell`` is 1-based in notebooks."""

    path: str
    line: int
    col: int
    code: str
    message: str
    fix: str = ""
    cell: Optional[int] = None

    @property
    def location(self) -> str:
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.col}"

    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"path": self.path, "line": self.line, "column": self.col, "code": self.code,
                                "message": self.message, "fix": self.fix}
        if self.cell is not None:
            data["cell"] = self.cell
        return data


@dataclass(frozen=True)
class FileError:
    """A file that could not be linted (unreadable, not Python, a syntax error): one line, exit code 2."""

    path: str
    message: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        return f"{where}: error: {self.message}"


@dataclass(frozen=True)
class LintResult:
    """Diagnostics in path order, the files that failed, and how many files were linted."""

    diagnostics: Tuple[Diagnostic, ...]
    errors: Tuple[FileError, ...]
    files: int

    @property
    def exit_code(self) -> int:
        return 2 if self.errors else (1 if self.diagnostics else 0)
