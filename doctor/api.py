"""The typed Python API: ``check``, ``facts``, ``diagnose``, ``verify`` return report objects that notebooks render.

Every function here calls the same probes, runner and renderers as the command line; none installs anything.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple, Union

from gpudoctor.facts import Facts
from gpudoctor.model import CheckResult, FailOn, Finding, Report, Severity
from gpudoctor.causes import Cause
from gpudoctor import app
from gpudoctor.errors import UserError

if TYPE_CHECKING:
    from gpudoctor.examples import Example
    from gpudoctor.registry import Catalogue

FAIL_ON: Dict[str, Optional[Severity]] = {level.value: level.threshold for level in FailOn}


class SelectionError(UserError, ValueError):
    """A ``select`` pattern that names no check; the message is one line."""


@dataclass(frozen=True)
class Diagnosis:
    """A finished report: every check's verdict on one set of facts, renderable as text, markdown, HTML or JSON."""

    report: Report
    verbose: bool = False

    @property
    def facts(self) -> Facts:
        return self.report.facts

    @property
    def results(self) -> Tuple[CheckResult, ...]:
        return self.report.results

    @property
    def problems(self) -> Tuple[Finding, ...]:
        """Warning and error findings, in report order."""
        from gpudoctor.render.common import problems

        return tuple(problems(self.report))

    @property
    def causes(self) -> Tuple[Cause, ...]:
        """The problems grouped by root cause: one cause seen by several checks counts once."""
        from gpudoctor.causes import causes

        return causes(self.report)

    @property
    def ok(self) -> bool:
        """True when no check found a warning or an error and none crashed."""
        from gpudoctor.render.common import problem_count

        return problem_count(self.report) == 0

    @property
    def summary(self) -> str:
        """The closing line of the report, e.g. "1 problem found: 1 error. 7 checks skipped."."""
        from gpudoctor.render.common import summary_line

        return summary_line(self.report)

    def exit_code(self, fail_on: str = "error") -> int:
        """What the command line would exit with under ``--fail-on fail_on``: 0 or 1."""
        if fail_on not in FAIL_ON:
            raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
        return self.report.exit_code(FAIL_ON[fail_on])

    def detailed(self) -> Diagnosis:
        """The same report showing notes (info findings) and evidence, like ``-v``."""
        return dataclasses.replace(self, verbose=True)

    def text(self) -> str:
        from gpudoctor.render.terminal import render_terminal

        return render_terminal(self.report, verbose=self.verbose)

    def markdown(self) -> str:
        """The bug-tracker report, with the facts embedded so ``diagnose`` can read it back."""
        from gpudoctor.render.markdown import render_markdown

        return render_markdown(self.report, verbose=self.verbose)

    def html(self) -> str:
        from gpudoctor.render.html import render_html

        return render_html(self.report, verbose=self.verbose)

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report as data (see ``gpudoctor/schema/report.schema.json``)."""
        return self.report.to_dict()

    def to_json(self) -> str:
        from gpudoctor.render.json import render_json

        return render_json(self.report)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_markdown_(self) -> str:
        return self.markdown()


@dataclass(frozen=True)
class FactsView:
    """Collected facts with notebook renderings; ``.facts`` is the typed ``gpudoctor.facts.Facts``."""

    facts: Facts

    def to_dict(self) -> Dict[str, Any]:
        return self.facts.to_dict()

    def to_json(self) -> str:
        return self.facts.to_json() + "\n"

    def __str__(self) -> str:
        return self.to_json()

    def __repr__(self) -> str:
        return self.to_json()

    def _repr_html_(self) -> str:
        from gpudoctor.render.html import facts_details

        meta = self.facts.meta
        label = f"gpudoctor facts ({meta.source}{', redacted' if meta.redacted else ''})"
        return f'<div class="gpudoctor-facts">{facts_details(self.facts, label, open_=True)}</div>'

    def _repr_markdown_(self) -> str:
        from gpudoctor.render.markdown import fence

        return fence(self.facts.to_json(indent=2), "json") + "\n"


Source = Union[str, "os.PathLike[str]", Facts, FactsView]


def _catalogue(select: Sequence[str], ignore: Sequence[str], plugins: bool) -> Catalogue:
    if isinstance(select, str) or isinstance(ignore, str):
        raise TypeError("select and ignore take a list of check ids, not a single string")
    try:
        return app.choose_checks(app.Selection(plugins, tuple(select), tuple(ignore)))
    except app.UnknownCheck as exc:
        raise SelectionError(f"select {exc.pattern!r}: no check has that id or id prefix") from None


def _run(facts: Facts, select: Sequence[str], ignore: Sequence[str], plugins: bool, redact: bool,
         verbose: bool) -> Diagnosis:
    from gpudoctor.runner import run_checks

    catalogue = _catalogue(select, ignore, plugins)
    if redact:
        from gpudoctor.redact import redact as redacted

        facts = redacted(facts)
    return Diagnosis(run_checks(catalogue, facts), verbose)


def _collect(python: Optional[str], timeout: float) -> Facts:
    return app.collect(python, timeout, spinner=False)


def check(python: Optional[str] = None, *, timeout: float = 60.0, select: Sequence[str] = (),
          ignore: Sequence[str] = (), plugins: bool = True, redact: bool = False,
          verbose: bool = False) -> Diagnosis:
    """Probe this machine and ``python``'s environment (default: this interpreter's) and run every check."""
    _catalogue(select, ignore, plugins)  # a bad selection fails before the slow probes
    return _run(_collect(python, timeout), select, ignore, plugins, redact, verbose)


def facts(python: Optional[str] = None, *, timeout: float = 60.0, redact: bool = True) -> FactsView:
    """The facts ``gpudoctor facts`` would print, redacted unless ``redact=False``."""
    from gpudoctor.redact import redact as redacted

    collected = _collect(python, timeout)
    return FactsView(redacted(collected) if redact else collected)


def _load(source: Source) -> Facts:
    from gpudoctor.parsers.report import load_facts, read_input

    if isinstance(source, FactsView):
        return source.facts
    if isinstance(source, Facts):
        return source
    if isinstance(source, os.PathLike):
        return load_facts(*read_input(os.fspath(source)))
    if not isinstance(source, str):
        raise TypeError(f"diagnose takes report text, a path or facts, not {type(source).__name__}")
    text = source.strip()
    if "\n" not in text and not text.startswith(("{", "#", "<")):
        return load_facts(*read_input(source))  # a path; a missing file is a one-line InputError
    return load_facts(source, "the text given")


def diagnose(source: Source, *, select: Sequence[str] = (), ignore: Sequence[str] = (), plugins: bool = True,
             redact: bool = False, verbose: bool = False) -> Diagnosis:
    """Diagnose a facts file, a gpudoctor report (JSON or markdown) or collect_env output: text or a path."""
    return _run(_load(source), select, ignore, plugins, redact, verbose)


def verify(dataset: str = "synthetic", *, device: Optional[str] = None, all_devices: bool = False,
           data_dir: Optional[str] = None, epochs: Optional[int] = None, python: Optional[str] = None,
           timeout: float = 1800.0, select: Sequence[str] = (), ignore: Sequence[str] = (), plugins: bool = True,
           redact: bool = False, verbose: bool = False) -> Diagnosis:
    """Train the reference models on the GPU and the CPU (each in a child process) and run every check."""
    if device and all_devices:
        raise ValueError("device and all_devices cannot be used together")
    _catalogue(select, ignore, plugins)
    options = app.VerifyOptions(dataset, device, all_devices, data_dir, epochs, python, timeout)
    return _run(app.verified(options, progress=False, spinner=False), select, ignore, plugins, redact, verbose)


def examples() -> Tuple[Example, ...]:
    """The recorded machines shipped with gpudoctor (``gpudoctor examples``)."""
    from gpudoctor.examples import EXAMPLES

    return EXAMPLES


def example(name: str, *, verbose: bool = False) -> Diagnosis:
    """The diagnosis of a shipped recorded machine, e.g. ``example("rtx5090-cu126")``."""
    from gpudoctor.examples import read_text

    return diagnose(read_text(name), verbose=verbose)
