"""The ``gpudoctor`` command line: check, facts, diagnose, checks and verify (the only module that exits)."""

from __future__ import annotations

import functools
import math
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

import click

from gpudoctor import __version__

if TYPE_CHECKING:
    from gpudoctor.facts import Facts
    from gpudoctor.registry import Catalogue

FORMATS = ("terminal", "markdown", "json")
FAIL_ON = ("error", "warning", "info", "never")
DATASETS = ("synthetic", "mnist", "cifar10")
EXIT_USAGE = 2
F = TypeVar("F", bound=Callable[..., Any])

# Exceptions that mean "bad input or options": (module, class name); looked up lazily so --help stays fast.
_USER_ERRORS = (
    ("gpudoctor.cli", "UserError"),
    ("gpudoctor.parsers.report", "InputError"),
    ("gpudoctor.probes", "PythonError"),
    ("gpudoctor.verify", "VerifyInputError"),
    ("gpudoctor.facts", "FactsError"),
    ("gpudoctor.render.console", "OutputError"),
    ("gpudoctor.inputs", "PipeError"),
)


class UserError(Exception):
    """A problem with what the user asked for; printed as one line, exit code 2."""


QUOTE_LIMIT = 500  # characters of an error message; a value quoted in it can be megabytes


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + f"… ({len(text) - QUOTE_LIMIT} characters cut)"


def _is_user_error(exc: BaseException) -> bool:
    for module, name in _USER_ERRORS:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return False


def _note(message: str) -> None:
    from gpudoctor.render.console import note

    note(message)  # lazily: importing the console helpers costs --help time


def _redacted(facts: Facts) -> Facts:
    from gpudoctor.redact import redact

    return redact(facts)


def guarded(func: F) -> F:
    """Run a command body: its return value is the exit code; errors become one line on stderr."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = func(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            _note("error: interrupted")
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - nothing may end in a traceback
            if _is_user_error(exc):
                _note(f"error: {_one_line(exc)}")
                sys.exit(EXIT_USAGE)
            if os.environ.get("GPUDOCTOR_DEBUG"):
                raise
            _note(
                f"error: gpudoctor {__version__} failed unexpectedly ({type(exc).__name__}: {_one_line(exc)}); "
                "please report this, with the traceback from GPUDOCTOR_DEBUG=1"
            )
            sys.exit(EXIT_USAGE)
        sys.exit(code or 0)

    return wrapper  # type: ignore[return-value]


def _with(*options: Callable[[F], F]) -> Callable[[F], F]:
    """Apply several click options, in the order listed."""

    def apply(func: F) -> F:
        for option in reversed(options):
            func = option(func)
        return func

    return apply


_output_options = _with(
    click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                 help="Output format [default: from the -o suffix (.md, .json), else terminal]."),
    click.option("-o", "--output", metavar="FILE", help="Write the report to FILE instead of stdout."),
    click.option("-v", "--verbose", is_flag=True, help="Also show notes (info findings) and evidence."),
    click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
                 help="Exit 1 when a finding reaches this severity."),
    click.option("--redact/--no-redact", default=None,
                 help="Remove personal data and secrets [default: on for markdown and JSON, off for the terminal]."),
)
_selection_options = _with(
    click.option("--select", multiple=True, metavar="ID", help="Run only checks with this id or id prefix."),
    click.option("--ignore", multiple=True, metavar="ID", help="Skip checks with this id or id prefix."),
    click.option("--no-plugins", is_flag=True, help="Run only the built-in checks."),
)


def _finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds")
    return value


def _not_empty(ctx: click.Context, param: click.Parameter, value: Optional[str]) -> Optional[str]:
    if value is not None and not value.strip():
        raise click.BadParameter("is empty; give the path of a Python interpreter")
    return value


def _timeout_option(default: float, what: str) -> Callable[[F], F]:
    return click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=default, callback=_finite,
                        show_default=True, metavar="SECONDS", help=f"Time limit for {what}.")


_python_option = click.option("--python", metavar="PATH", callback=_not_empty,
                              help="Diagnose this interpreter's environment.")


def _catalogue(select: Sequence[str], ignore: Sequence[str], plugins: bool) -> Catalogue:
    from gpudoctor import registry

    catalogue = registry.discover(plugins=plugins)
    for pattern in select:
        if not catalogue.select([pattern]).checks:
            raise UserError(f"--select {pattern}: no check has that id or id prefix (see `gpudoctor checks`)")
    for pattern in ignore:
        if not catalogue.select([pattern]).checks:
            _note(f"warning: --ignore {pattern}: no check has that id or id prefix")
    return catalogue.select(select, ignore)


def _collect(python: Optional[str], timeout: float) -> Facts:
    from gpudoctor import probes
    from gpudoctor.render.console import spinner

    with spinner("Collecting facts…"):
        return probes.collect(python=python, timeout=timeout)


def _prepare(select: Sequence[str] = (), ignore: Sequence[str] = (), no_plugins: bool = False,
             output: Optional[str] = None, **_: Any) -> Catalogue:
    """Validate the selection and the output target before any slow probing; the checks to run."""
    from gpudoctor.render.console import check_writable

    catalogue = _catalogue(select, ignore, not no_plugins)
    check_writable(output)
    return catalogue


def _finish(facts: Facts, catalogue: Catalogue, fmt: Optional[str] = None, output: Optional[str] = None,
            verbose: bool = False, fail_on: str = "error", redact: Optional[bool] = None, **_: Any) -> int:
    """Redact if asked (before the checks, so no finding quotes what was removed), check, render, write."""
    from gpudoctor.model import Severity
    from gpudoctor.render import Format, render
    from gpudoctor.render.common import summary_line
    from gpudoctor.render.console import deliver
    from gpudoctor.runner import run_checks
    from gpudoctor.textsafe import scrub

    chosen = Format.choose(fmt, output)
    if redact if redact is not None else chosen is not Format.TERMINAL:
        facts = _redacted(facts)
    report = scrub(run_checks(catalogue, facts))  # no control character or bad byte reaches the output
    text = render(report, chosen, verbose)
    styled = None
    if chosen is Format.TERMINAL and output in (None, "-"):
        from gpudoctor.render.terminal import render_rich

        styled = functools.partial(render_rich, report, verbose)
    deliver(text, output, styled, summary_line(report))
    levels = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "never": None}
    return report.exit_code(levels[fail_on])


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="gpudoctor")
def main() -> None:
    """Finds out why PyTorch will not use your NVIDIA GPU, names the cause and prints the fix.

    Exit codes: 0 nothing reached --fail-on, 1 something did, 2 bad usage or input.
    """


@main.command()
@_python_option
@_output_options
@_selection_options
@_timeout_option(60.0, "the torch probe")
@guarded
def check(python: Optional[str], timeout: float, **opts: Any) -> int:
    """Probe this machine and environment, run every check and print the verdicts with fixes."""
    catalogue = _prepare(**opts)
    return _finish(_collect(python, timeout), catalogue, **opts)


@main.command()
@click.option("-o", "--output", metavar="FILE", help="Write the facts to FILE instead of stdout.")
@_python_option
@click.option("--redact/--no-redact", default=True, show_default=True,
              help="Remove personal data and secrets.")
@_timeout_option(60.0, "the torch probe")
@guarded
def facts(output: Optional[str], python: Optional[str], redact: bool, timeout: float) -> int:
    """Print the facts gpudoctor collects, as JSON (`gpudoctor diagnose` reads them back)."""
    from gpudoctor.render.console import check_writable, deliver

    check_writable(output)
    collected = _collect(python, timeout)
    deliver((_redacted(collected) if redact else collected).to_json() + "\n", output, None, "Facts collected.")
    return 0


@main.command()
@click.argument("source", metavar="FILE|-")
@_output_options
@_selection_options
@guarded
def diagnose(source: str, **opts: Any) -> int:
    """Diagnose a facts file, a gpudoctor report (JSON or markdown) or pasted collect_env output."""
    from gpudoctor import inputs

    catalogue = _prepare(**opts)
    if source == "-" and sys.stdin is None:
        raise UserError("standard input is closed; give a file, or pipe the report in")
    if source == "-" and sys.stdin.isatty():
        _note("Paste the report, then press Ctrl-D (Ctrl-Z and Enter on Windows).")
    return _finish(inputs.load(source), catalogue, **opts)


@main.command("checks")
@click.option("--no-plugins", is_flag=True, help="List only the built-in checks.")
@guarded
def list_checks(no_plugins: bool) -> int:
    """List every check: id, title and the package it comes from."""
    from gpudoctor import registry
    from gpudoctor.render.catalogue import render_catalogue
    from gpudoctor.render.console import emit

    emit(render_catalogue(registry.discover(plugins=not no_plugins)))
    return 0


@main.command()
@click.option("--train", "dataset", type=click.Choice(DATASETS), default="synthetic", show_default=True,
              help="What to train the reference models on.")
@click.option("--device", metavar="cuda:N", help="The GPU to verify [default: the first].")
@click.option("--all-devices", is_flag=True, help="Verify every visible GPU.")
@click.option("--data-dir", metavar="DIR", help="Where datasets are found or downloaded.")
@click.option("--epochs", type=click.IntRange(min=1), metavar="N", help="Training epochs per model.")
@_python_option
@_output_options
@_timeout_option(1800.0, "the training run")
@guarded
def verify(dataset: str, device: Optional[str], all_devices: bool, data_dir: Optional[str], epochs: Optional[int],
           python: Optional[str], timeout: float, **opts: Any) -> int:
    """Train the reference models on the GPU and the CPU, and check accuracy, speed-up and agreement."""
    import dataclasses

    if device and all_devices:
        raise UserError("--device and --all-devices cannot be used together")
    catalogue = _prepare(**opts)
    from gpudoctor import verify as verifier
    from gpudoctor.render.console import interactive

    collected = _collect(python, 60.0)
    result = verifier.run_verify(python=python, dataset=dataset, device=device, all_devices=all_devices,
                                 data_dir=data_dir, epochs=epochs, timeout=timeout,
                                 progress=interactive(sys.stderr))
    return _finish(dataclasses.replace(collected, verify=result), catalogue, **opts)
