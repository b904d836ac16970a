"""The fleet report: root-cause groups, drift from the majority, unreadable files, and what to drain."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from gpudoctor.fleet.hostlist import compress
from gpudoctor.fleet.traits import Trait
from gpudoctor.model import FailOn, Fix, Severity

FLEET_SCHEMA = 1


class NodeStatus(enum.Enum):
    """A node's verdict: its worst finding (drift counts as a warning; notes alone leave it ok)."""

    OK = "ok"
    WARNING = "warning"
    ERROR = "error"


STATUS_OF_RANK = {-1: NodeStatus.OK, 0: NodeStatus.OK, 1: NodeStatus.WARNING, 2: NodeStatus.ERROR}


@dataclass(frozen=True)
class Group:
    """Nodes that share one root cause: the same finding with the same fix."""

    check: str
    code: str
    severity: Severity
    summary: str  # the nodes' summaries merged: "driver 535.x supports CUDA 12.2; ..."
    detail: str
    fix: Optional[Fix]
    nodes: Tuple[str, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "check": self.check, "code": self.code, "severity": self.severity.value, "summary": self.summary,
            "detail": self.detail, "fix": self.fix.to_dict() if self.fix else None, "count": len(self.nodes),
            "hostlist": compress(self.nodes), "nodes": list(self.nodes),
        }


@dataclass(frozen=True)
class Drift:
    """Nodes whose value of one trait differs from the majority of the nodes compared with them."""

    trait: Trait
    value: str
    majority: str
    majority_count: int
    compared: int  # nodes with a known value in the comparison
    model: Optional[str]  # the GPU model compared within, for hardware traits
    fix: Fix
    nodes: Tuple[str, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "trait": self.trait.value, "label": self.trait.label, "value": self.value, "majority": self.majority,
            "majority_count": self.majority_count, "compared": self.compared, "gpu_model": self.model,
            "severity": Severity.WARNING.value, "fix": self.fix.to_dict(), "count": len(self.nodes),
            "hostlist": compress(self.nodes), "nodes": list(self.nodes),
        }


@dataclass(frozen=True)
class Spread:
    """A trait that varies with no value on more than half of the nodes: no node is singled out."""

    trait: Trait
    model: Optional[str]
    top: Tuple[Tuple[str, int], ...]  # the most common values and their node counts
    distinct: int
    compared: int

    def to_dict(self) -> Dict[str, Any]:
        return {"trait": self.trait.value, "label": self.trait.label, "gpu_model": self.model,
                "distinct": self.distinct, "compared": self.compared,
                "top": [{"value": value, "nodes": count} for value, count in self.top]}


@dataclass(frozen=True)
class Unreadable:
    """A file in the set that could not be judged: one row, never a traceback."""

    file: str
    node: str
    error: str

    def to_dict(self) -> Dict[str, Any]:
        return {"file": self.file, "node": self.node, "error": self.error}


@dataclass(frozen=True)
class NodeResult:
    """One node's verdict, what it was read from, and why it is to be drained (None: keep it)."""

    node: str
    file: str
    status: NodeStatus
    codes: Tuple[str, ...]  # its problems' codes, worst group first
    drift: Tuple[str, ...]  # the traits where it differs from the majority
    drain: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"node": self.node, "file": self.file, "status": self.status.value, "codes": list(self.codes),
                "drift": list(self.drift), "drain": self.drain}


@dataclass(frozen=True)
class DrainGroup:
    """Nodes to drain for one reason (the code of their worst problem)."""

    reason: str
    nodes: Tuple[str, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {"reason": self.reason, "count": len(self.nodes), "hostlist": compress(self.nodes),
                "nodes": list(self.nodes)}


@dataclass(frozen=True)
class FleetReport:
    """Everything a fleet triage found, ready for the renderers."""

    files: int
    nodes: Tuple[NodeResult, ...]
    groups: Tuple[Group, ...]
    drift: Tuple[Drift, ...]
    spread: Tuple[Spread, ...]
    unreadable: Tuple[Unreadable, ...]
    models: Tuple[Tuple[str, int], ...]  # (GPUs of a node, nodes) most common first
    fail_on: Optional[Severity]
    drain: Tuple[DrainGroup, ...]
    missing: Tuple[str, ...] = ()  # nodes named by --expect with no file in the set

    def count(self, status: NodeStatus) -> int:
        return sum(1 for n in self.nodes if n.status is status)

    def drained(self) -> int:
        return sum(len(g.nodes) for g in self.drain)

    def exit_code(self) -> int:
        """1 when a node reaches --fail-on, a file could not be read or an expected node has no file
        (unless --fail-on never), else 0."""
        if self.fail_on is None:
            return 0
        return 1 if self.drain or self.unreadable or self.missing else 0

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": FLEET_SCHEMA,
            "kind": "fleet",
            "files": self.files,
            "fail_on": FailOn.at(self.fail_on).value,
            "summary": {"nodes": len(self.nodes), **{s.value: self.count(s) for s in NodeStatus},
                        "unreadable": len(self.unreadable), "missing": len(self.missing), "drain": self.drained()},
            "gpu_models": [{"gpus": model, "nodes": count} for model, count in self.models],
            "groups": [g.to_dict() for g in self.groups],
            "drift": [d.to_dict() for d in self.drift],
            "no_majority": [s.to_dict() for s in self.spread],
            "unreadable": [u.to_dict() for u in self.unreadable],
            "missing": {"count": len(self.missing), "hostlist": compress(self.missing), "nodes": list(self.missing)},
            "drain": [d.to_dict() for d in self.drain],
            "nodes": [n.to_dict() for n in self.nodes],
        }
