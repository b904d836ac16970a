"""Running rules over sources: parse once, run each selected rule, place and filter what they report."""

from __future__ import annotations

import ast
import warnings
from typing import List, Sequence, Tuple

from gpudoctor.lint.model import Diagnostic, FileError, LintResult, Rule
from gpudoctor.lint.script import Script
from gpudoctor.lint.sources import Source, SourceError, read_source, walk


def lint_source(source: Source, rules: Sequence[Rule]) -> Tuple[List[Diagnostic], List[FileError]]:
    """Diagnostics of one source, sorted by place, minus those a ``# noqa`` silences."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not ours to report
            tree = ast.parse(source.text, filename=source.path)
        script = Script(tree, source.path)
    except SyntaxError as exc:
        cell, line = source.place(exc.lineno or 0)
        where = f"cell {cell}: " if cell is not None else ""
        return [], [FileError(source.path, f"{where}syntax error: {exc.msg}", line, exc.offset or 0)]
    except (ValueError, RecursionError, MemoryError) as exc:
        return [], [FileError(source.path, f"cannot parse ({type(exc).__name__}: {exc})")]
    silenced = source.noqa()
    found: List[Diagnostic] = []
    errors: List[FileError] = []
    for rule in rules:
        try:
            hits = list(rule.func(script))
        except Exception as exc:  # noqa: BLE001 - one broken rule must not hide the others' findings
            errors.append(FileError(source.path, f"lint rule {rule.code} failed: {type(exc).__name__}: {exc}"))
            continue
        for hit in hits:
            line = getattr(hit.node, "lineno", 1)
            codes = silenced.get(line, frozenset())
            if line in silenced and (codes is None or rule.code in codes):
                continue
            cell, shown_line = source.place(line)
            found.append(Diagnostic(source.path, shown_line, getattr(hit.node, "col_offset", 0) + 1, rule.code,
                                    hit.message, hit.fix, cell))
    found.sort(key=lambda d: (d.cell or 0, d.line, d.col, d.code))
    return found, errors


def lint_text(text: str, rules: Sequence[Rule], path: str = "<script>") -> List[Diagnostic]:
    """Diagnostics of Python ``text``; raises SourceError for text that does not parse."""
    found, errors = lint_source(Source(path, text), rules)
    if errors:
        raise SourceError(errors[0])
    return found


def lint_paths(paths: Sequence[str], rules: Sequence[Rule]) -> LintResult:
    """Lint every file named or found under the directories named."""
    diagnostics: List[Diagnostic] = []
    errors: List[FileError] = []
    files = 0
    for item in walk(list(paths)):
        if isinstance(item, FileError):
            errors.append(item)
            continue
        try:
            source = read_source(item)
        except SourceError as exc:
            errors.append(exc.error)
            continue
        files += 1
        found, failed = lint_source(source, rules)
        diagnostics += found
        errors += failed
    return LintResult(tuple(diagnostics), tuple(errors), files)
