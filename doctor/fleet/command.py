"""``gpudoctor diagnose DIR|GLOB|FILE...``: the fleet view, its drain list and its exit code."""

from __future__ import annotations

from typing import List, Optional, Sequence

from gpudoctor.app import Output, Selection, redacts
from gpudoctor.fleet import hostlist
from gpudoctor.fleet.model import FleetReport
from gpudoctor.fleet.parallel import default_jobs
from gpudoctor.fleet.sources import expand
from gpudoctor.fleet.triage import triage
from gpudoctor.parsers.report import InputError, read_input
from gpudoctor.registry import Catalogue
from gpudoctor.render import Format
from gpudoctor.render.console import OutputError, check_writable, deliver
from gpudoctor.render.fleet_common import summary_line

def render_fleet(report: FleetReport, fmt: Format, verbose: bool = False) -> str:
    if fmt is Format.MARKDOWN:
        from gpudoctor.render.fleet_markdown import render_fleet_markdown

        return render_fleet_markdown(report, verbose)
    if fmt is Format.JSON:
        from gpudoctor.render.fleet_json import render_fleet_json

        return render_fleet_json(report)
    from gpudoctor.render.fleet_terminal import render_fleet_terminal

    return render_fleet_terminal(report, verbose)


def drain_text(report: FleetReport) -> str:
    """One line per node to drain, ``NODE<TAB>REASON``, in node order; empty when none is."""
    return "".join(f"{n.node}\t{n.drain}\n" for n in report.nodes if n.drain is not None)


def write_drain_list(report: FleetReport, path: str) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(drain_text(report))
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def expected_nodes(expect: Optional[str]) -> List[str]:
    """The nodes of ``--expect HOSTLIST`` (or of a file holding hostlists, given as @FILE)."""
    if not expect:
        return []
    text = expect
    if expect.startswith("@"):
        text = ",".join(read_input(expect[1:])[0].split())
    try:
        return hostlist.expand(text)
    except ValueError as exc:
        raise InputError(f"--expect: {exc}") from None


def run_fleet(sources: Sequence[str], catalogue: Catalogue, output: Output, selection: Selection,
              drain_list: Optional[str] = None, expect: Optional[str] = None, jobs: Optional[int] = None) -> int:
    """Triage every input as one node and deliver the fleet report; the exit code is the drain decision."""
    chosen = Format.choose(output.fmt, output.output)
    expected = expected_nodes(expect)
    check_writable(output.output)
    check_writable(drain_list)
    redactor = None
    if redacts(output.redact, chosen):
        from gpudoctor.redact import redact as redact_facts

        redactor = redact_facts
    report = triage(expand(sources), catalogue, output.fail_on.threshold, redactor, expected,
                    default_jobs() if jobs is None else jobs, selection)
    if drain_list:
        write_drain_list(report, drain_list)
    deliver(render_fleet(report, chosen, output.verbose), output.output, None, summary_line(report))
    return report.exit_code()
