"""What the check tests share: scenario facts by name, and short views of a check's result."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Tuple

from gpudoctor.facts import Facts
from gpudoctor.model import CheckResult, Finding, Severity, Status
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def load(name: str) -> Facts:
    """The facts of tests/scenarios/NAME.json."""
    return Facts.from_json((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))


def pasted_problems(text: str) -> Dict[str, Finding]:
    """The error and warning findings of every check on a pasted text, by code."""
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return {f.code: f for f in report.findings() if f.severity in (Severity.ERROR, Severity.WARNING)}


def found(result: CheckResult) -> List[Tuple[str, str]]:
    """(severity, summary) of each finding."""
    return [(f.severity.value, f.summary) for f in result.findings]


def commands(result: CheckResult) -> List[Tuple[str, ...]]:
    """The fix commands of each finding."""
    return [f.fix.commands if f.fix else () for f in result.findings]


def skipped(result: CheckResult) -> Optional[str]:
    """The skip reason; fails when the check did not skip."""
    assert result.status is Status.SKIP, (result.status, found(result))
    return result.reason
