"""Wording shared by the fleet renderers: the header, the summary line, short node lists and drain commands."""

from __future__ import annotations

from typing import Dict, List, Set, Tuple

from gpudoctor import __version__
from gpudoctor.fleet.hostlist import compress
from gpudoctor.fleet.model import Drift, FleetReport, Group, NodeStatus, Spread
from gpudoctor.model import FailOn
from gpudoctor.render.common import plural
from gpudoctor.shell import Shell, UnsafeValue, join

SHOWN_ITEMS = 12
SHOWN_MODELS = 4
SHOWN_GROUPS = 40  # the rest are summed up by code; --format json lists every group


def header(report: FleetReport) -> str:
    return (f"gpudoctor {__version__} fleet triage: {plural(len(report.nodes), 'node')} from "
            f"{plural(report.files, 'file')}")


def models_line(report: FleetReport) -> str:
    """"GPUs: 9990 nodes with 8x NVIDIA H100 80GB HBM3; 10 nodes with 4x NVIDIA L40S" (the commonest few)."""
    shown = [f"{plural(count, 'node')} with {model}" for model, count in report.models[:SHOWN_MODELS]]
    more = len(report.models) - SHOWN_MODELS
    if more > 0:
        shown.append(f"{plural(more, 'other model')}")
    return "GPUs: " + ("; ".join(shown) if shown else "none reported")


def summary_line(report: FleetReport) -> str:
    """"12 nodes with errors, 3 with warnings only, 9985 fine; 1 file unreadable. 12 nodes to drain."."""
    errors, warnings = report.count(NodeStatus.ERROR), report.count(NodeStatus.WARNING)
    fine = report.count(NodeStatus.OK)
    parts = [f"{plural(errors, 'node')} with errors", f"{warnings} with warnings only", f"{fine} fine"]
    text = ", ".join(parts)
    if report.unreadable:
        text += f"; {plural(len(report.unreadable), 'file')} unreadable"
    if report.missing:
        text += f"; {plural(len(report.missing), 'expected node')} without a file"
    verdict = FailOn.at(report.fail_on).value
    drained = report.drained()
    return f"{text}. {plural(drained, 'node')} to drain (--fail-on {verdict})."


def _split(hostlist: str) -> List[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(hostlist):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            items.append(hostlist[start:i])
            start = i + 1
    return items + [hostlist[start:]] if hostlist else items


def short_nodes(nodes: Tuple[str, ...]) -> str:
    """The nodes as a hostlist, cut after a dozen items (the JSON output has them all)."""
    items = _split(compress(nodes))
    if len(items) <= SHOWN_ITEMS:
        return ",".join(items)
    return ",".join(items[:SHOWN_ITEMS]) + f" … ({len(items) - SHOWN_ITEMS} more ranges; --format json lists all)"


def drift_line(drift: Drift) -> str:
    among = f" {drift.model} nodes" if drift.model else " nodes"
    return (f"{drift.trait.label}: {drift.value} on {plural(len(drift.nodes), 'node')}; "
            f"{drift.majority_count} of {drift.compared}{among} have {drift.majority}")


def spread_line(spread: Spread) -> str:
    among = f" {spread.model} nodes" if spread.model else " nodes"
    top = ", ".join(f"{value} ({count})" for value, count in spread.top)
    return (f"{spread.trait.label}: {spread.distinct} different values over {spread.compared}{among}, none on more "
            f"than half: {top}")


def shown_groups(report: FleetReport) -> Tuple[Tuple[Group, ...], str]:
    """The groups to print in full, and a line summing up the others by code ("" when all are shown)."""
    rest = report.groups[SHOWN_GROUPS:]
    if not rest:
        return report.groups, ""
    codes: Dict[str, Set[str]] = {}
    for group in rest:
        codes.setdefault(group.code, set()).update(group.nodes)
    listed = ", ".join(f"{code} ({plural(len(nodes), 'node')})" for code, nodes in sorted(codes.items()))
    return report.groups[:SHOWN_GROUPS], (f"{plural(len(rest), 'more group')}, each with its own fix "
                                          f"(--format json lists them): {listed}")


def drain_commands(report: FleetReport) -> List[str]:
    """One `scontrol update ... State=DRAIN` per reason, every value quoted for a POSIX shell."""
    lines = []
    for group in report.drain:
        try:
            lines.append(join(("scontrol", "update", f"NodeName={compress(group.nodes)}", "State=DRAIN",
                               f"Reason={group.reason}"), Shell.POSIX))
        except UnsafeValue:
            continue
    return lines
