"""The fleet report as plain terminal text: root causes, drift, unreadable files and the drain commands."""

from __future__ import annotations

from typing import List

from gpudoctor.fleet.model import FleetReport, Group
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
from gpudoctor.shell import has_control


def _safe(text: str) -> str:
    """One line, without control characters that would move the cursor or recolour the terminal."""
    return "".join(ch if not has_control(ch) else "?" for ch in " ".join(text.split()))


def _fix(fix: Fix) -> List[str]:
    out = [f"    Fix: {_safe(fix.text)}"] if fix.text else []
    return out + [f"      {_safe(c)}" for c in fix.commands]


def _group(group: Group, verbose: bool) -> List[str]:
    mark = SEVERITY_MARKS[group.severity]
    out = [f"[{mark}] {plural(len(group.nodes), 'node')}: {_safe(group.summary)} [{_safe(group.code)}]",
           f"    nodes: {_safe(short_nodes(group.nodes))}"]
    if verbose and group.detail:
        out.append(f"    {_safe(group.detail)}")
    return out + (_fix(group.fix) if group.fix else [])


def render_fleet_terminal(report: FleetReport, verbose: bool = False) -> str:
    lines = [header(report), models_line(report), ""]
    if report.groups:
        lines.append("Root causes (nodes with the same problem and the same fix)")
        groups, rest = shown_groups(report)
        for group in groups:
            lines += _group(group, verbose)
        lines += [f"[…] {_safe(rest)}"] if rest else []
        lines.append("")
    if report.drift or report.spread:
        lines.append("Drift from the majority")
        for drift in report.drift:
            lines += [f"[!] {_safe(drift_line(drift))}", f"    nodes: {_safe(short_nodes(drift.nodes))}"]
            lines += _fix(drift.fix)
        for spread in report.spread:
            lines.append(f"[-] {_safe(spread_line(spread))}")
        lines.append("")
    if report.unreadable:
        lines.append("Unreadable files (one row each)")
        lines += [f"[☠] {_safe(u.file)}: {_safe(u.error)}" for u in report.unreadable]
        lines.append("")
    if report.missing:
        lines += ["Expected nodes without a file (--expect)", f"[?] {_safe(short_nodes(report.missing))}", ""]
    commands = drain_commands(report)
    if commands:
        lines.append("Drain (nodes whose problems reach --fail-on)")
        lines += [f"    {c}" for c in commands]
        lines.append("")
    if verbose:
        healthy = tuple(n.node for n in report.nodes if n.drain is None and not n.codes and not n.drift)
        lines += [f"Fine: {_safe(short_nodes(healthy)) if healthy else 'none'}", ""]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
