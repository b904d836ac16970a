"""The fleet report as Markdown for an issue or a wiki page: tables, then each group's fix as a code block."""

from __future__ import annotations

from typing import List

from gpudoctor.fleet.model import FleetReport
from gpudoctor.model import Fix
from gpudoctor.render.common import SEVERITY_MARKS, plural
from gpudoctor.render.fleet_common import (
    drain_commands,
    drift_line,
    header,
    models_line,
    short_nodes,
    shown_groups,
    spread_line,
    summary_line,
)
from gpudoctor.render.markdown import fence, md_escape

TITLE = "## gpudoctor fleet report"


def _text(text: str) -> str:
    return md_escape(" ".join(text.split()))


def _fix(fix: Fix) -> List[str]:
    out = ["", f"Fix: {_text(fix.text)}"] if fix.text else []
    if fix.commands:
        out += ["", fence("\n".join(" ".join(c.split("\n")) for c in fix.commands), "sh")]
    return out


def render_fleet_markdown(report: FleetReport, verbose: bool = False) -> str:
    lines = [TITLE, "", _text(header(report)), "", _text(models_line(report)), "", f"**{_text(summary_line(report))}**"]
    if report.groups:
        lines += ["", "### Root causes", "", "| | nodes | problem | code |", "| --- | --- | --- | --- |"]
        groups, rest = shown_groups(report)
        for g in groups:
            lines.append(f"| {SEVERITY_MARKS[g.severity]} {g.severity.value} | {len(g.nodes)}: "
                         f"{_text(short_nodes(g.nodes))} | {_text(g.summary)} | {_text(g.code)} |")
        lines += ["", _text(rest)] if rest else []
        for g in groups:
            lines += ["", f"#### {SEVERITY_MARKS[g.severity]} {plural(len(g.nodes), 'node')}: {_text(g.summary)}",
                      "", f"{_text(g.code)} on {_text(short_nodes(g.nodes))}"]
            if verbose and g.detail:
                lines += ["", _text(g.detail)]
            lines += _fix(g.fix) if g.fix else []
    if report.drift or report.spread:
        lines += ["", "### Drift from the majority"]
        for d in report.drift:
            lines += ["", f"#### ! {_text(drift_line(d))}", "", f"Nodes: {_text(short_nodes(d.nodes))}"]
            lines += _fix(d.fix)
        if report.spread:
            lines += ["", "No majority:", ""] + [f"- {_text(spread_line(s))}" for s in report.spread]
    if report.unreadable:
        lines += ["", "### Unreadable files", "", "| file | node | error |", "| --- | --- | --- |"]
        lines += [f"| {_text(u.file)} | {_text(u.node)} | {_text(u.error)} |" for u in report.unreadable]
    if report.missing:
        lines += ["", "### Expected nodes without a file", "", _text(short_nodes(report.missing))]
    commands = drain_commands(report)
    if commands:
        lines += ["", "### Drain", "", "Nodes whose problems reach --fail-on:", "", fence("\n".join(commands), "sh")]
    return "\n".join(lines) + "\n"
