"""Fleet triage: reads one file at a time, runs the checks, and keeps only a small summary per node."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

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
from gpudoctor.fleet.naming import clean, node_from_facts, node_from_path
from gpudoctor.fleet.template import Template
from gpudoctor.fleet.traits import NodeTraits, describe_model, node_traits
from gpudoctor.model import Finding, Fix, Severity, Status
from gpudoctor.parsers.report import InputError, load_facts, read_input
from gpudoctor.plain import FactsError
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks

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


def _one_line(text: str, limit: int = 500) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class Triage:
    """Accumulates nodes one by one; ``report()`` judges drift and the drain list at the end."""

    def __init__(self, catalogue: Catalogue, fail_on: Optional[Severity] = Severity.ERROR,
                 redact: Optional[Callable[[Facts], Facts]] = None) -> None:
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
        self.files += 1
        try:
            facts = load_facts(*read_input(path))
        except (InputError, FactsError) as exc:
            self._bad(path, node_from_path(path), str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - one bad file must not end the triage
            self._bad(path, node_from_path(path), f"unexpected {type(exc).__name__}: {exc}")
            return
        self.add_facts(facts, path)

    def _bad(self, path: str, node: str, error: str) -> None:
        prefix = f"{path}: "
        message = error[len(prefix):] if error.startswith(prefix) else error
        self.unreadable.append(Unreadable(clean(path), node, _one_line(message)))

    def add_facts(self, facts: Facts, path: str) -> None:
        """Judge one node's facts (``path`` names the node when the facts do not)."""
        name = node_from_facts(facts) or node_from_path(path)
        if name in self.names:
            first = clean(self.names[name])
            self._bad(path, name, f"node {name} again (first read from {first}); this file is left out")
            return
        self.names[name] = path
        if self.redact is not None and not facts.meta.redacted:
            facts = self.redact(facts)  # facts redacted on their own node keep that node's redaction
        index = len(self.nodes)
        worst = -1
        groups: List[int] = []
        for result in run_checks(self.catalogue, facts).results:
            if result.status is Status.CRASH:
                crash = Finding(f"crash:{result.check}", Severity.ERROR, f"check {result.check} crashed: "
                                f"{_one_line(result.reason or 'no reason given', 300)}")
                findings: Tuple[Finding, ...] = (crash,)
            else:
                findings = result.findings
            for finding in findings:
                worst = max(worst, finding.severity.rank)
                if finding.severity.rank >= self.floor:
                    group = self._join(result.check, finding, index)
                    if group not in groups:
                        groups.append(group)
        model = describe_model(facts)
        if model is not None:
            self.models[model if model in self.models or len(self.models) < MAX_MODELS else "other GPUs"] += 1
        self.nodes.append(_Node(clean(name), clean(path), worst, tuple(groups), node_traits(facts, self.intern)))

    def _join(self, check: str, finding: Finding, index: int) -> int:
        fix = finding.fix
        key = (check, finding.code, finding.severity, fix.text if fix else "", fix.commands if fix else ())
        number = self.keys.get(key)
        if number is None:
            number = self.keys[key] = len(self.groups)
            self.groups.append(_Group(check, finding.code, finding.severity, Template(_one_line(finding.summary)),
                                      finding.detail[:MAX_DETAIL], fix, []))
        else:
            self.groups[number].template.add(_one_line(finding.summary))
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
           redact: Optional[Callable[[Facts], Facts]] = None, expected: Sequence[str] = ()) -> FleetReport:
    """Judge every file of ``paths`` as one node, streaming: one file's facts in memory at a time."""
    state = Triage(catalogue, fail_on, redact)
    for path in paths:
        state.add_file(path)
    return state.report(expected)
