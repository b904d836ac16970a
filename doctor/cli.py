"""The ``gpudoctor`` command line: check, facts, diagnose, checks and verify (the only module that exits)."""

from __future__ import annotations

import functools
import math
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Tuple, TypeVar

import click

from gpudoctor import __version__
from gpudoctor.distributed_cli import distributed_options
from gpudoctor.distributed_cli import run as run_distributed_cli
from gpudoctor.distributed_cli import take as take_distributed

if TYPE_CHECKING:
    from gpudoctor.facts import Facts
    from gpudoctor.registry import Catalogue

FORMATS = ("terminal", "markdown", "json")
FAIL_ON = ("error", "warning", "info", "never")
DATASETS = ("synthetic", "mnist", "cifar10", "catsdogs", "folder:PATH")
EXIT_USAGE = 2
F = TypeVar("F", bound=Callable[..., Any])

# Exceptions that mean "bad input or options": (module, class name); looked up lazily so --help stays fast.
_USER_ERRORS = (
    ("gpudoctor.cli", "UserError"),
    ("gpudoctor.parsers.report", "InputError"),
    ("gpudoctor.probes", "PythonError"),
    ("gpudoctor.verification", "VerifyInputError"),
    ("gpudoctor.distributed", "DistributedInputError"),
    ("gpudoctor.facts", "FactsError"),
    ("gpudoctor.render.console", "OutputError"),
    ("gpudoctor.examples", "UnknownExample"),
    ("gpudoctor.mcp_server", "MissingExtra"),
    ("gpudoctor.github_event", "EventError"),
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
             output: Optional[str] = None, fmt: Optional[str] = None, json_format: bool = False,
             **_: Any) -> Catalogue:
    """Validate the selection and the output target before any slow probing; the checks to run."""
    from gpudoctor.render.console import check_writable

    if json_format and fmt not in (None, "json"):
        raise UserError(f"--json and --format {fmt} contradict each other; give one of them")

    catalogue = _catalogue(select, ignore, not no_plugins)
    check_writable(output)
    return catalogue


def _finish(facts: Facts, catalogue: Catalogue, fmt: Optional[str] = None, output: Optional[str] = None,
            verbose: bool = False, fail_on: str = "error", redact: Optional[bool] = None,
            json_format: bool = False, **_: Any) -> int:
    """Redact if asked (before the checks, so no finding quotes what was removed), check, render, write."""
    from gpudoctor.model import Severity
    from gpudoctor.render import Format, render
    from gpudoctor.render.common import summary_line
    from gpudoctor.render.console import deliver
    from gpudoctor.runner import run_checks
    from gpudoctor.textsafe import scrub

    chosen = Format.choose("json" if json_format else fmt, output)
    if redact if redact is not None else chosen is not Format.TERMINAL:
        facts = _redacted(facts)
    report = scrub(run_checks(catalogue, facts))  # no control character or bad byte reaches the output
    text = render(report, chosen, verbose)
    from gpudoctor.render.diagnosis import lead_for, styled_with

    lead = lead_for(report, chosen)
    styled = None
    if chosen is Format.TERMINAL and output in (None, "-"):
        from gpudoctor.render.terminal import render_rich

        styled = functools.partial(styled_with, lead, functools.partial(render_rich, report, verbose))
    deliver(lead + text, output, styled, summary_line(report))
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
@click.option("--node-name", metavar="NAME",
              help="Record NAME as this node's name for fleet triage (kept as given; default: the file name).")
@_timeout_option(60.0, "the torch probe")
@guarded
def facts(output: Optional[str], python: Optional[str], redact: bool, node_name: Optional[str], timeout: float) -> int:
    """Print the facts gpudoctor collects, as JSON (`gpudoctor diagnose` reads them back)."""
    from gpudoctor.fleet.naming import check_node_name, with_node
    from gpudoctor.render.console import check_writable, deliver

    check_writable(output)
    if node_name is not None:
        check_node_name(node_name)
    collected = _collect(python, timeout)
    shown = _redacted(collected) if redact else collected
    shown = with_node(shown, node_name) if node_name is not None else shown
    deliver(shown.to_json() + "\n", output, None, "Facts collected.")
    return 0


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
def diagnose(sources: Tuple[str, ...], example: Optional[str], event: Optional[str], drain_list: Optional[str],
             expect: Optional[str], jobs: Optional[int], **opts: Any) -> int:
    """Diagnose a facts file, a gpudoctor report, or a pasted issue body (collect_env, nvidia-smi, pip list,
    env reports, tracebacks, all mixed in Markdown).

    Several files, a directory or a quoted glob give the fleet view: nodes grouped by root cause, drift
    from the majority, the fix per group and the nodes to drain. Its exit code is 1 when a node reaches
    --fail-on (--drain-list names it) or a file cannot be read, 2 when there is no input at all.
    """
    from gpudoctor.fleet.sources import is_fleet
    from gpudoctor import inputs
    from gpudoctor.parsers.report import load_facts

    if sum((bool(sources), example is not None, event is not None)) != 1:
        raise UserError(
            "give one of FILE (or - for standard input; several files, a directory or a glob for a fleet), "
            "--example NAME or --github-event PATH"
        )
    catalogue = _prepare(**opts)
    if example is not None:
        from gpudoctor.examples import read_text

        return _finish(load_facts(read_text(example), f"example {example}"), catalogue, **opts)
    if event is not None:
        from gpudoctor.github_event import answer_event

        return answer_event(event, catalogue, opts.get("output"), opts.get("redact"))
    if drain_list is not None or expect is not None or is_fleet(sources):
        from gpudoctor.fleet.command import run_fleet

        return run_fleet(sources, catalogue, drain_list=drain_list, expect=expect, jobs=jobs, **opts)
    source = sources[0]
    if source == "-" and sys.stdin is None:
        raise UserError("standard input is closed; give a file, or pipe the report in")
    if source == "-" and sys.stdin.isatty():
        _note("Paste the report, then press Ctrl-D (Ctrl-Z and Enter on Windows).")
    return _finish(inputs.load(str(source)), catalogue, **opts)


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
           python: Optional[str], timeout: float, **opts: Any) -> int:
    """Train the reference models on the GPU and the CPU, and check accuracy, speed-up and agreement."""
    import dataclasses

    chosen = take_distributed(opts)
    if chosen["distributed"]:
        catalogue = _prepare(**opts)
        return run_distributed_cli(chosen, python, timeout, lambda: _collect(python, 60.0),
                                   lambda facts: _finish(facts, catalogue, **opts))
    if device and all_devices:
        raise UserError("--device and --all-devices cannot be used together")
    if dataset not in DATASETS[:-1] and not dataset.startswith("folder:"):
        raise UserError(f"--train {dataset}: choose one of {', '.join(DATASETS)}")
    catalogue = _prepare(**opts)
    from gpudoctor import verification as verifier
    from gpudoctor.render.console import interactive

    collected = _collect(python, 60.0)
    result = verifier.run_verify(python=python, dataset=dataset, device=device, all_devices=all_devices,
                                 data_dir=data_dir, epochs=epochs, timeout=timeout,
                                 progress=interactive(sys.stderr))
    return _finish(dataclasses.replace(collected, verify=result), catalogue, **opts)


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
def lint(paths: Sequence[str], **opts: Any) -> int:
    """Find device mistakes in training scripts (.py, .ipynb, folders; default: this one) without running them.

    Exit codes: 0 no findings, 1 findings, 2 a file could not be linted or bad usage.
    """
    from gpudoctor.lint.command import run_lint

    return run_lint(paths, **opts)
