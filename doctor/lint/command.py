"""What ``gpudoctor lint`` does once its options are parsed: select rules, lint, print, choose the exit code."""

from __future__ import annotations

import enum
from typing import Optional, Sequence

import click

from gpudoctor.errors import UserError
from gpudoctor.exhaustive import assert_never
from gpudoctor.lint.model import LintResult


class LintFormat(enum.Enum):
    """The output formats of ``gpudoctor lint``."""

    TEXT = "text"  # one line per finding
    JSON = "json"
    SARIF = "sarif"  # SARIF 2.1.0, for GitHub code scanning


LINT_FORMATS = tuple(f.value for f in LintFormat)


def _split(values: Sequence[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _write(text: str, output: Optional[str]) -> None:
    if output in (None, "-"):
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc}") from None


def run_lint(paths: Sequence[str], fmt: str, select: Sequence[str], ignore: Sequence[str], explain: Optional[str],
             no_plugins: bool, output: Optional[str]) -> int:
    """Lint ``paths``; 0 clean, 1 findings, 2 files that could not be linted or a bad selection."""
    from gpudoctor.lint import output as out
    from gpudoctor.lint.engine import lint_paths
    from gpudoctor.lint.registry import ALL, discover

    found = discover(plugins=not no_plugins)
    for error in found.errors:
        click.echo(f"warning: lint plugin {error.name} ({error.source}) did not load: {error.error}", err=True)
    if explain is not None:
        if explain.strip().upper() == ALL:
            _write(out.rule_table(found.rules), output)
            return 0
        chosen = found.find(explain)
        if chosen is None:
            raise UserError(f"--explain {explain}: no lint rule has that code (see `gpudoctor lint --explain ALL`)")
        _write(out.explain(chosen), output)
        return 0
    rules = found.select(_split(select), _split(ignore))  # a SelectionError is a UserError: one line, exit 2
    result: LintResult = lint_paths(list(paths) or ["."], rules)
    form = LintFormat(fmt)
    if form is LintFormat.JSON:
        _write(out.render_json(result), output)
    elif form is LintFormat.SARIF:
        _write(out.render_sarif(result, rules), output)
    elif form is LintFormat.TEXT:
        _write(out.render_text(result), output)
    else:
        assert_never(form)
    for failure in result.errors:
        click.echo(str(failure), err=True)
    if form is LintFormat.TEXT:
        click.echo(out.summary(result), err=True)
    return result.exit_code
