"""Fleet triage: reads one file at a time, runs the checks, and keeps only a small summary per node."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from gpudoctor.facts import Facts
from gpudoctor.fleet.drift import find_drift
from gpudoctor.fleet.hostlist import natural_key
from gpudoctor.fleet.model import (
    STATUS_OF_RANK,
    DrainGroup,
    FleetReport,
    Group,
    NodeResult,
    Unreadable,
)
from gpudoctor.fleet.naming import clean
from gpudoctor.app import Selection
from gpudoctor.fleet.parallel import records
from gpudoctor.fleet.summary import BadRecord, Record, Redactor, one_line, summarise_facts, summarise_path
from gpudoctor.fleet.template import Template
from gpudoctor.fleet.traits import NodeTraits
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Catalogue

MAX_DETAIL = 2_000
MAX_MODELS = 20
GroupKey = Tuple[str, str, Severity, str, Tuple[str, ...]]


@dataclass
class _Group:
    check: str
    code: str
    severity: Severity
    template: Template
    detail: str
    fix: Optional[Fix]
    members: List[int]


@dataclass(frozen=True)
class _Node:
    name: str
    file: str
    worst: int  # severity rank of its worst finding, -1 for none
    groups: Tuple[int, ...]
    traits: NodeTraits


class Triage:
    """Accumulates nodes one by one; ``report()`` judges drift and the drain list at the end."""

    def __init__(self, catalogue: Catalogue, fail_on: Optional[Severity] = Severity.ERROR,
                 redact: Optional[Redactor] = None) -> None:
        self.catalogue = catalogue
        self.fail_on = fail_on
        self.redact = redact
        self.floor = Severity.INFO.rank if fail_on is Severity.INFO else Severity.WARNING.rank
        self.files = 0
        self.nodes: List[_Node] = []
        self.names: Dict[str, str] = {}  # node name -> the file it came from
        self.groups: List[_Group] = []
        self.keys: Dict[GroupKey, int] = {}
        self.unreadable: List[Unreadable] = []
        self.models: Counter[str] = Counter()
        self.intern: Dict[str, str] = {}

    def add_file(self, path: str) -> None:
        """Read, check and summarise one file; a file that cannot be judged becomes one row."""
        self.add_record(summarise_path(path, self.catalogue, self.redact, self.floor, self.intern))

    def add_facts(self, facts: Facts, path: str) -> None:
        """Judge one node's facts (``path`` names the node when the facts do not)."""
        self.add_record(summarise_facts(facts, path, self.catalogue, self.redact, self.floor, self.intern))

    def add_record(self, record: Record) -> None:
        """Take in one judged file, in input order: a node joins its groups, a bad file becomes a row."""
        self.files += 1
        if isinstance(record, BadRecord):
            self.unreadable.append(Unreadable(record.file, record.node, record.error))
            return
        if record.name in self.names:
            first = self.names[record.name]
            self.unreadable.append(Unreadable(record.file, record.name, (
                f"node {record.name} again (first read from {first}); this file is left out")))
            return
        self.names[record.name] = record.file
        index = len(self.nodes)
        traits = record.traits.interned(self.intern)  # records from workers carry their own copies
        groups: List[int] = []
        for check, finding in record.problems:
            group = self._join(check, finding, index)
            if group not in groups:
                groups.append(group)
        if record.model is not None:
            model = record.model if record.model in self.models or len(self.models) < MAX_MODELS else "other GPUs"
            self.models[model] += 1
        self.nodes.append(_Node(record.name, record.file, record.worst, tuple(groups), traits))

    def _join(self, check: str, finding: Finding, index: int) -> int:
        fix = finding.fix
        key = (check, finding.code, finding.severity, fix.text if fix else "", fix.commands if fix else ())
        number = self.keys.get(key)
        if number is None:
            number = self.keys[key] = len(self.groups)
            self.groups.append(_Group(check, finding.code, finding.severity, Template(one_line(finding.summary)),
                                      finding.detail[:MAX_DETAIL], fix, []))
        else:
            self.groups[number].template.add(one_line(finding.summary))
        members = self.groups[number].members
        if not members or members[-1] != index:
            members.append(index)
        return number

    def report(self, expected: Sequence[str] = ()) -> FleetReport:
        """The fleet report: groups worst and largest first, drift, unreadable files, and the drain decision.

        ``expected`` names the nodes that should have sent a file; those without one are listed as missing.
        """
        order = sorted(range(len(self.groups)), key=lambda i: (
            -self.groups[i].severity.rank, -len(self.groups[i].members), self.groups[i].code,
            self.groups[i].template.text()))
        rank = {number: position for position, number in enumerate(order)}
        groups = tuple(self._group(self.groups[i]) for i in order)
        drifts, spreads, drifted = find_drift([(n.name, n.traits) for n in self.nodes])
        results: List[NodeResult] = []
        for node in sorted(self.nodes, key=lambda n: natural_key(n.name)):
            own = sorted(node.groups, key=rank.__getitem__)
            drift = tuple(drifted.get(node.name, ()))
            worst = max(node.worst, Severity.WARNING.rank if drift else -1)
            results.append(NodeResult(node.name, node.file, STATUS_OF_RANK[worst],
                                      tuple(dict.fromkeys(self.groups[g].code for g in own)), drift,
                                      self._drain_reason(node, own, drift, worst)))
        drain: Dict[str, List[str]] = {}
        for result in results:
            if result.drain is not None:
                drain.setdefault(result.drain, []).append(result.node)
        return FleetReport(
            files=self.files, nodes=tuple(results), groups=groups, drift=drifts, spread=spreads,
            unreadable=tuple(sorted(self.unreadable, key=lambda u: natural_key(u.file))),
            models=tuple(sorted(self.models.items(), key=lambda item: (-item[1], item[0]))),
            fail_on=self.fail_on,
            drain=tuple(DrainGroup(reason, tuple(nodes)) for reason, nodes in
                        sorted(drain.items(), key=lambda item: (-len(item[1]), item[0]))),
            missing=self._missing(expected),
        )

    def _missing(self, expected: Sequence[str]) -> Tuple[str, ...]:
        seen = set(self.names) | {u.node for u in self.unreadable}
        return tuple(sorted({name for name in expected if name not in seen}, key=natural_key))

    def _group(self, group: _Group) -> Group:
        names = tuple(sorted((self.nodes[i].name for i in group.members), key=natural_key))
        return Group(group.check, group.code, group.severity, group.template.text(), group.detail, group.fix, names)

    def _drain_reason(self, node: _Node, own: List[int], drift: Tuple[str, ...], worst: int) -> Optional[str]:
        if self.fail_on is None or worst < self.fail_on.rank:
            return None
        for number in own:
            if self.groups[number].severity.rank >= self.fail_on.rank:
                return f"gpudoctor: {clean(self.groups[number].code)[:60]}"
        if drift:
            return f"gpudoctor: drift {clean(drift[0])[:60]}"
        return "gpudoctor: problems found"


def triage(paths: Iterable[str], catalogue: Catalogue, fail_on: Optional[Severity] = Severity.ERROR,
           redact: Optional[Redactor] = None, expected: Sequence[str] = (), jobs: int = 1,
           selection: Selection = Selection()) -> FleetReport:
    """Judge every file of ``paths`` as one node, streaming: one file's facts in memory per process at a time."""
    state = Triage(catalogue, fail_on, redact)
    for record in records(paths, catalogue, redact, state.floor, jobs, selection):
        state.add_record(record)
    return state.report(expected)
