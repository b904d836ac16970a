"""The ``gpudoctor`` command line: check, facts, diagnose, checks and verify (the only module that exits)."""

from __future__ import annotations

import functools
import math
import os
import sys
from typing import Any, Callable, Optional, Sequence, Tuple, TypeVar

import click

from gpudoctor import __version__, app
from gpudoctor.errors import EXIT_USAGE, UserError
from gpudoctor.distributed_cli import distributed_options
from gpudoctor.distributed_cli import take as take_distributed

FORMATS = ("terminal", "markdown", "json")
FAIL_ON = app.FAIL_ON
DATASETS = app.DATASETS
F = TypeVar("F", bound=Callable[..., Any])

QUOTE_LIMIT = 500  # characters of an error message; a value quoted in it can be megabytes


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + f"… ({len(text) - QUOTE_LIMIT} characters cut)"


def _note(message: str) -> None:
    from gpudoctor.render.console import note

    note(message)  # lazily: importing the console helpers costs --help time


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
            if isinstance(exc, UserError):
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
    click.option("--json", "json_format", is_flag=True, help="Shorthand for --format json."),
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


def _output(fmt: Optional[str], json_format: bool, output: Optional[str], verbose: bool, fail_on: str,
            redact: Optional[bool]) -> app.Output:
    return app.Output(fmt, json_format, output, verbose, app.FailOn(fail_on), redact)


def _selection(select: Sequence[str], ignore: Sequence[str], no_plugins: bool) -> app.Selection:
    return app.Selection(not no_plugins, tuple(select), tuple(ignore))


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
def check(python: Optional[str], timeout: float, fmt: Optional[str], json_format: bool, output: Optional[str],
          verbose: bool, fail_on: str, redact: Optional[bool], select: Tuple[str, ...], ignore: Tuple[str, ...],
          no_plugins: bool) -> int:
    """Probe this machine and environment, run every check and print the verdicts with fixes."""
    return app.check(app.CheckOptions(python, timeout, _output(fmt, json_format, output, verbose, fail_on, redact),
                                      _selection(select, ignore, no_plugins)))


@main.command()
@click.option("-o", "--output", metavar="FILE", help="Write the facts to FILE instead of stdout.")
@_python_option
@click.option("--redact/--no-redact", default=True, show_default=True,
              help="Remove personal data and secrets.")
@click.option("--node-name", metavar="NAME",
              help="Record NAME as this node's name for fleet triage (kept as given; default: the file name).")
@_timeout_option(60.0, "the torch probe")
@guarded
def facts(output: Optional[str], python: Optional[str], redact: bool, node_name: Optional[str], timeout: float) -> int:
    """Print the facts gpudoctor collects, as JSON (`gpudoctor diagnose` reads them back)."""
    return app.facts(app.FactsOptions(output, python, redact, node_name, timeout))


def _example_names(start: str) -> list[str]:
    from gpudoctor.examples import EXAMPLES

    return [e.name for e in EXAMPLES if e.name.startswith(start)]


@main.command()
@click.argument("sources", metavar="FILE|-|DIR|GLOB...", nargs=-1)
@click.option("--example", metavar="NAME", shell_complete=lambda _c, _p, start: _example_names(start),
              help="Diagnose a recorded machine shipped with gpudoctor (see `gpudoctor examples`).")
@click.option("--github-event", "event", metavar="PATH",
              help="Read a GitHub issues/issue_comment event and write the comment to post (quiet when the "
                   "issue holds no environment information).")
@_output_options
@_selection_options
@click.option("--drain-list", metavar="FILE", help="Fleet view: write NODE<TAB>REASON for each node to drain to FILE.")
@click.option("--expect", metavar="HOSTLIST|@FILE",
              help="Fleet view: the nodes that should have a file, e.g. n[001-128].")
@click.option("--jobs", type=click.IntRange(min=1), metavar="N",
              help="Fleet view: processes that read and check files [default: the usable CPUs, at most 8].")
@guarded
def diagnose(sources: Tuple[str, ...], example: Optional[str], event: Optional[str], fmt: Optional[str],
             json_format: bool, output: Optional[str], verbose: bool, fail_on: str, redact: Optional[bool],
             select: Tuple[str, ...], ignore: Tuple[str, ...], no_plugins: bool, drain_list: Optional[str],
             expect: Optional[str], jobs: Optional[int]) -> int:
    """Diagnose a facts file, a gpudoctor report, or a pasted issue body (collect_env, nvidia-smi, pip list,
    env reports, tracebacks, all mixed in Markdown).

    Several files, a directory or a quoted glob give the fleet view: nodes grouped by root cause, drift
    from the majority, the fix per group and the nodes to drain. Its exit code is 1 when a node reaches
    --fail-on (--drain-list names it) or a file cannot be read, 2 when there is no input at all.
    """
    return app.diagnose(app.DiagnoseOptions(
        tuple(sources), example, event, drain_list, expect, jobs,
        _output(fmt, json_format, output, verbose, fail_on, redact), _selection(select, ignore, no_plugins)))


@main.command("examples")
@guarded
def list_examples() -> int:
    """List the recorded machines that `gpudoctor diagnose --example NAME` diagnoses."""
    from gpudoctor.examples import render_examples
    from gpudoctor.render.console import emit

    emit(render_examples())
    return 0


@main.command("mcp")
@guarded
def mcp_serve() -> int:
    """Serve check, facts, diagnose and verify as Model Context Protocol tools over stdio."""
    from gpudoctor.mcp_server import serve

    return serve()


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
@click.option("--train", "dataset", default="synthetic", show_default=True, metavar="|".join(DATASETS),
              help="What to train the reference models on: generated digits, MNIST, CIFAR-10, generated two-class "
                   "images for seed 002's Dogs-vs-Cats CNN, or your own images (PATH/<class>/<image>).")
@click.option("--device", metavar="cuda:N", help="The GPU to verify [default: the first].")
@click.option("--all-devices", is_flag=True, help="Verify every visible GPU.")
@click.option("--data-dir", metavar="DIR", help="Where datasets are found or downloaded.")
@click.option("--epochs", type=click.IntRange(min=1), metavar="N", help="Training epochs per model.")
@_python_option
@_output_options
@_timeout_option(1800.0, "the training run")
@distributed_options
@guarded
def verify(dataset: str, device: Optional[str], all_devices: bool, data_dir: Optional[str], epochs: Optional[int],
           python: Optional[str], fmt: Optional[str], json_format: bool, output: Optional[str], verbose: bool,
           fail_on: str, redact: Optional[bool], timeout: float, **distributed: Any) -> int:
    """Train the reference models on the GPU and the CPU, and check accuracy, speed-up and agreement."""
    options = app.VerifyOptions(dataset, device, all_devices, data_dir, epochs, python, timeout,
                                _output(fmt, json_format, output, verbose, fail_on, redact))
    chosen = take_distributed(distributed)
    if chosen["distributed"]:
        return app.verify_distributed(options, chosen)
    return app.verify(options)


@main.command()
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option("--format", "fmt", type=click.Choice(("text", "json", "sarif")), default="text", show_default=True,
              help="One line per finding, JSON, or SARIF 2.1.0 (GitHub code scanning).")
@click.option("--select", multiple=True, metavar="CODE", help="Run only these rules (code, prefix or ALL).")
@click.option("--ignore", multiple=True, metavar="CODE", help="Skip these rules (code or prefix).")
@click.option("--explain", metavar="CODE", help="Print what a rule finds and why (ALL lists every rule).")
@click.option("--no-plugins", is_flag=True, help="Run only the built-in rules.")
@click.option("-o", "--output", metavar="FILE", help="Write the findings to FILE instead of stdout.")
@guarded
def lint(paths: Tuple[str, ...], fmt: str, select: Tuple[str, ...], ignore: Tuple[str, ...], explain: Optional[str],
         no_plugins: bool, output: Optional[str]) -> int:
    """Find device mistakes in training scripts (.py, .ipynb, folders; default: this one) without running them.

    Exit codes: 0 no findings, 1 findings, 2 a file could not be linted or bad usage.
    """
    return app.lint(app.LintOptions(tuple(paths), fmt, tuple(select), tuple(ignore), explain, not no_plugins, output))


@main.command("plan")
@click.option("--installer", "installers", multiple=True, type=click.Choice(("pip", "uv", "uv-project", "conda", "pixi",
                                                                          "poetry")),
              help="Only this installer's commands (repeatable) [default: every installer].")
@click.option("--facts", "facts_file", metavar="FILE|-",
              help="Plan for the machine a facts file (or a pasted report) describes instead of this one.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("-o", "--output", metavar="FILE", help="Write the plan to FILE instead of stdout.")
@_python_option
@_timeout_option(60.0, "the torch probe")
@guarded
def plan(installers: Tuple[str, ...], facts_file: Optional[str], fmt: str, output: Optional[str],
         python: Optional[str], timeout: float) -> int:
    """Print the install plan for torch, torchvision and torchaudio in a fresh environment, for each installer.

    Nothing is installed or run: the commands are for you to read and run.
    """
    return app.plan(installers, facts_file, fmt, output, python, timeout)
