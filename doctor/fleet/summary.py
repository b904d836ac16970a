"""One node's summary: read, redact if asked and check its facts, keep only what the fleet view needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple, Union

from gpudoctor.facts import Facts
from gpudoctor.fleet.naming import clean, node_from_facts, node_from_path
from gpudoctor.fleet.traits import NodeTraits, describe_model, node_traits
from gpudoctor.model import Finding, Severity, Status
from gpudoctor.parsers.report import InputError, load_facts, read_input
from gpudoctor.facts.codec import FactsError
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks

Redactor = Callable[[Facts], Facts]


def one_line(text: str, limit: int = 500) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True)
class NodeRecord:
    """A judged node: its worst severity rank (-1: none), the findings worth grouping, and its traits."""

    name: str
    file: str
    worst: int
    problems: Tuple[Tuple[str, Finding], ...]  # (check id, finding) at or above the grouping floor
    traits: NodeTraits
    model: Optional[str]  # its GPUs, for the overview


@dataclass(frozen=True)
class BadRecord:
    """A file that could not be judged, and why (one line)."""

    file: str
    node: str
    error: str


Record = Union[NodeRecord, BadRecord]


def bad(path: str, node: str, error: str) -> BadRecord:
    prefix = f"{path}: "
    message = error[len(prefix):] if error.startswith(prefix) else error
    return BadRecord(clean(path), node, one_line(message))


def summarise_facts(facts: Facts, path: str, catalogue: Catalogue, redact: Optional[Redactor], floor: int,
                    intern: Dict[str, str]) -> NodeRecord:
    """Check one node's facts (``path`` names the node when the facts do not); the facts can then be dropped."""
    name = node_from_facts(facts) or node_from_path(path)
    if redact is not None and not facts.meta.redacted:
        facts = redact(facts)  # facts redacted on their own node keep that node's redaction
    worst = -1
    problems = []
    for result in run_checks(catalogue, facts).results:
        if result.status is Status.CRASH:
            reason = one_line(result.reason or "no reason given", 300)
            findings: Tuple[Finding, ...] = (
                Finding(f"crash:{result.check}", Severity.ERROR, f"check {result.check} crashed: {reason}"),)
        else:
            findings = result.findings
        for finding in findings:
            worst = max(worst, finding.severity.rank)
            if finding.severity.rank >= floor:
                problems.append((result.check, finding))
    return NodeRecord(name, clean(path), worst, tuple(problems), node_traits(facts, intern), describe_model(facts))


def summarise_path(path: str, catalogue: Catalogue, redact: Optional[Redactor], floor: int,
                   intern: Dict[str, str]) -> Record:
    """Read and judge one file; a file that cannot be judged becomes a BadRecord, never an exception."""
    try:
        facts = load_facts(*read_input(path), allow_partial=False)
    except (InputError, FactsError) as exc:
        return bad(path, node_from_path(path), str(exc))
    except Exception as exc:  # noqa: BLE001 - one bad file must not end the triage
        return bad(path, node_from_path(path), f"unexpected {type(exc).__name__}: {exc}")
    try:
        return summarise_facts(facts, path, catalogue, redact, floor, intern)
    except Exception as exc:  # noqa: BLE001 - the checks already catch their own crashes; this is a last guard
        return bad(path, node_from_path(path), f"unexpected {type(exc).__name__}: {exc}")
