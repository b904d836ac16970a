"""What each command does once its options are read: typed options in, an exit code out.

The policies the command line and the Python API share live here: which checks a selection runs, when a
report is redacted by default, and which severity --fail-on names. Importing this module stays cheap (the
command line's --help imports it); everything heavy is imported by the function that needs it.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

from gpudoctor.errors import UserError
from gpudoctor.model import FailOn as FailOn

if TYPE_CHECKING:
    from gpudoctor.facts import Facts
    from gpudoctor.registry import Catalogue
    from gpudoctor.render import Format

DATASETS = ("synthetic", "mnist", "cifar10", "catsdogs", "folder:PATH")


FAIL_ON = tuple(level.value for level in FailOn)


def redacts(redact: Optional[bool], fmt: Format) -> bool:
    """Whether a report is redacted: as asked, else for markdown and JSON (made to be shared), not the terminal."""
    from gpudoctor.render import Format

    return redact if redact is not None else fmt is not Format.TERMINAL


@dataclass(frozen=True)
class Selection:
    """Which checks run: built-ins and plugins (unless ``plugins`` is off), narrowed by id or id prefix."""

    plugins: bool = True
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()


class UnknownCheck(UserError, ValueError):
    """A ``--select`` pattern that names no check."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"--select {pattern}: no check has that id or id prefix (see `gpudoctor checks`)")
        self.pattern = pattern


def choose_checks(selection: Selection, warn: Optional[Callable[[str], None]] = None) -> Catalogue:
    """The checks ``selection`` runs; UnknownCheck for a select pattern that names none, a warning for an ignore one."""
    from gpudoctor import registry

    catalogue = registry.discover(plugins=selection.plugins)
    for pattern in selection.select:
        if not catalogue.select([pattern]).checks:
            raise UnknownCheck(pattern)
    for pattern in selection.ignore:
        if warn is not None and not catalogue.select([pattern]).checks:
            warn(f"warning: --ignore {pattern}: no check has that id or id prefix")
    return catalogue.select(selection.select, selection.ignore)


@dataclass(frozen=True)
class Output:
    """Where and how a report goes, and what exit code it earns."""

    fmt: Optional[str] = None  # a Format value; None: from the output file's suffix
    json_format: bool = False  # --json
    output: Optional[str] = None  # a file, or None / "-" for stdout
    verbose: bool = False
    fail_on: FailOn = FailOn.ERROR
    redact: Optional[bool] = None  # None: the default policy (redacts)

    def format(self) -> Format:
        from gpudoctor.render import Format

        return Format.choose("json" if self.json_format else self.fmt, self.output)


def _note(message: str) -> None:
    from gpudoctor.render.console import note

    note(message)


def prepare(output: Output, selection: Selection) -> Catalogue:
    """Validate the output and the selection before any slow probing; the checks to run."""
    from gpudoctor.render.console import check_writable

    if output.json_format and output.fmt not in (None, "json"):
        raise UserError(f"--json and --format {output.fmt} contradict each other; give one of them")
    catalogue = choose_checks(selection, _note)
    check_writable(output.output)
    return catalogue


def collect(python: Optional[str], timeout: float, spinner: bool = True) -> Facts:
    """The facts of this machine and ``python``'s environment (default: this interpreter's)."""
    from gpudoctor import probes

    if not spinner:
        return probes.collect(python=python, timeout=timeout)
    from gpudoctor.render.console import spinner as spinning

    with spinning("Collecting facts…"):
        return probes.collect(python=python, timeout=timeout)


def finish(facts: Facts, catalogue: Catalogue, output: Output) -> int:
    """Redact if due (before the checks, so no finding quotes what was removed), check, render, deliver."""
    from gpudoctor.render import Format, render
    from gpudoctor.render.common import summary_line
    from gpudoctor.render.console import deliver
    from gpudoctor.render.diagnosis import lead_for, styled_with
    from gpudoctor.runner import run_checks
    from gpudoctor.textsafe import scrub

    chosen = output.format()
    if redacts(output.redact, chosen):
        from gpudoctor.redact import redact

        facts = redact(facts)
    report = scrub(run_checks(catalogue, facts))  # no control character or bad byte reaches the output
    text = render(report, chosen, output.verbose)
    lead = lead_for(report, chosen)
    styled = None
    if chosen is Format.TERMINAL and output.output in (None, "-"):
        from gpudoctor.render.terminal import render_rich

        styled = functools.partial(styled_with, lead, functools.partial(render_rich, report, output.verbose))
    deliver(lead + text, output.output, styled, summary_line(report))
    return report.exit_code(output.fail_on.threshold)


@dataclass(frozen=True)
class CheckOptions:
    python: Optional[str] = None
    timeout: float = 60.0
    output: Output = Output()
    selection: Selection = Selection()


def check(opts: CheckOptions) -> int:
    """Probe this machine and environment, run the checks and deliver the report."""
    catalogue = prepare(opts.output, opts.selection)
    return finish(collect(opts.python, opts.timeout), catalogue, opts.output)


@dataclass(frozen=True)
class FactsOptions:
    output: Optional[str] = None
    python: Optional[str] = None
    redact: bool = True
    node_name: Optional[str] = None
    timeout: float = 60.0


def facts(opts: FactsOptions) -> int:
    """Collect the facts and deliver them as JSON (redacted unless asked not to)."""
    from gpudoctor.fleet.naming import check_node_name, with_node
    from gpudoctor.render.console import check_writable, deliver

    check_writable(opts.output)
    if opts.node_name is not None:
        check_node_name(opts.node_name)
    collected = collect(opts.python, opts.timeout)
    if opts.redact:
        from gpudoctor.redact import redact

        collected = redact(collected)
    shown = with_node(collected, opts.node_name) if opts.node_name is not None else collected
    deliver(shown.to_json() + "\n", opts.output, None, "Facts collected.")
    return 0


@dataclass(frozen=True)
class DiagnoseOptions:
    sources: Tuple[str, ...] = ()
    example: Optional[str] = None
    event: Optional[str] = None
    drain_list: Optional[str] = None
    expect: Optional[str] = None
    jobs: Optional[int] = None
    output: Output = Output()
    selection: Selection = Selection()


def diagnose(opts: DiagnoseOptions) -> int:
    """Diagnose one input (a file, stdin, a shipped example or a GitHub event), or several as a fleet."""
    from gpudoctor import inputs
    from gpudoctor.fleet.sources import is_fleet
    from gpudoctor.parsers.report import load_facts

    if sum((bool(opts.sources), opts.example is not None, opts.event is not None)) != 1:
        raise UserError(
            "give one of FILE (or - for standard input; several files, a directory or a glob for a fleet), "
            "--example NAME or --github-event PATH"
        )
    catalogue = prepare(opts.output, opts.selection)
    if opts.example is not None:
        from gpudoctor.examples import read_text

        return finish(load_facts(read_text(opts.example), f"example {opts.example}"), catalogue, opts.output)
    if opts.event is not None:
        from gpudoctor.github_event import answer_event

        return answer_event(opts.event, catalogue, opts.output.output, opts.output.redact)
    if opts.drain_list is not None or opts.expect is not None or is_fleet(opts.sources):
        from gpudoctor.fleet.command import run_fleet

        return run_fleet(opts.sources, catalogue, opts.output, opts.selection, opts.drain_list, opts.expect, opts.jobs)
    source = opts.sources[0]
    if source == "-" and sys.stdin is None:
        raise UserError("standard input is closed; give a file, or pipe the report in")
    if source == "-" and sys.stdin.isatty():
        _note("Paste the report, then press Ctrl-D (Ctrl-Z and Enter on Windows).")
    return finish(inputs.load(str(source)), catalogue, opts.output)


@dataclass(frozen=True)
class VerifyOptions:
    dataset: str = "synthetic"
    device: Optional[str] = None
    all_devices: bool = False
    data_dir: Optional[str] = None
    epochs: Optional[int] = None
    python: Optional[str] = None
    timeout: float = 1800.0
    output: Output = Output()
    selection: Selection = Selection()


def verified(opts: VerifyOptions, progress: bool, spinner: bool = True) -> Facts:
    """The facts of this machine with the verify section: the reference models trained on each device."""
    from gpudoctor.probes.verify import runner as verifier
    from gpudoctor.probes.verify.progress import QUIET
    from gpudoctor.render.progress import VerifyProgress

    collected = collect(opts.python, 60.0, spinner)
    result = verifier.run_verify(python=opts.python, dataset=opts.dataset, device=opts.device,
                                 all_devices=opts.all_devices, data_dir=opts.data_dir, epochs=opts.epochs,
                                 timeout=opts.timeout, progress=VerifyProgress() if progress else QUIET)
    return dataclasses.replace(collected, verify=result)


def verify(opts: VerifyOptions) -> int:
    """Train the reference models on the GPU and the CPU, run the checks and deliver the report."""
    from gpudoctor.render.console import interactive

    if opts.device and opts.all_devices:
        raise UserError("--device and --all-devices cannot be used together")
    if opts.dataset not in DATASETS[:-1] and not opts.dataset.startswith("folder:"):
        raise UserError(f"--train {opts.dataset}: choose one of {', '.join(DATASETS)}")
    catalogue = prepare(opts.output, opts.selection)
    facts_ = verified(opts, interactive(sys.stderr))
    return finish(facts_, catalogue, opts.output)


def verify_distributed(opts: VerifyOptions, chosen: Dict[str, Any]) -> int:
    """``verify --distributed``: every local GPU as one rank under torchrun, or this process as one rank of the
    user's own job; rank 0 checks and reports the gathered results like any verify."""
    from gpudoctor.distributed_cli import run

    catalogue = prepare(opts.output, opts.selection)
    return run(chosen, opts.python, opts.timeout, lambda: collect(opts.python, 60.0),
               lambda facts_: finish(facts_, catalogue, opts.output))


@dataclass(frozen=True)
class LintOptions:
    paths: Tuple[str, ...] = ()
    fmt: str = "text"
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    explain: Optional[str] = None
    plugins: bool = True
    output: Optional[str] = None


def lint(opts: LintOptions) -> int:
    """Lint training scripts without running them; 0 clean, 1 findings, 2 unreadable files or a bad selection."""
    from gpudoctor.lint.command import run_lint

    return run_lint(opts.paths, opts.fmt, opts.select, opts.ignore, opts.explain, not opts.plugins, opts.output)


def plan(installers: Tuple[str, ...], facts_file: Optional[str], fmt: str, output: Optional[str],
         python: Optional[str], timeout: float) -> int:
    """Print the install plan for a fresh environment, for each installer; nothing is installed or run."""
    from gpudoctor.plan_command import facts_for_plan, run_plan

    return run_plan(facts_for_plan(facts_file, python, timeout), installers, fmt, output)
