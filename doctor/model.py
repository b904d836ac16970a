"""Verdict types: findings, fixes, per-check results and the report."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

from gpudoctor.facts import Facts


class Severity(enum.Enum):
    """How bad a finding is; ordered info < warning < error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


class FailOn(enum.Enum):
    """``--fail-on``: the least severe finding that makes a command exit 1; NEVER: none does."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    NEVER = "never"

    @property
    def threshold(self) -> Optional[Severity]:
        """The Severity the exit code is judged against; None for NEVER."""
        return None if self is FailOn.NEVER else Severity(self.value)

    @classmethod
    def at(cls, threshold: Optional[Severity]) -> FailOn:
        """The level whose threshold is ``threshold``."""
        return cls.NEVER if threshold is None else cls(threshold.value)


class Status(enum.Enum):
    """The verdict of one check."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"
    CRASH = "crash"


@dataclass(frozen=True)
class Fix:
    """What to do: a sentence and the commands to paste."""

    text: str
    commands: Tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "commands": list(self.commands)}


@dataclass(frozen=True)
class Finding:
    """One problem (or note) a check found, with observed versus required and the fix."""

    code: str
    severity: Severity
    summary: str
    detail: str = ""
    fix: Optional[Fix] = None
    links: Tuple[str, ...] = ()
    evidence: Tuple[str, ...] = ()  # fact paths the finding was built on
    inferred: bool = False  # built on facts that were inferred rather than observed
    short: str = ""  # a passing check's one-line status, e.g. "570.133.07, CUDA 12.8"
    cause: str = ""  # the root cause this finding shows; findings sharing one count as one problem

    def cause_key(self) -> str:
        """The root cause this finding belongs to: its declared ``cause``, else its own code."""
        return self.cause or self.code

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "summary": self.summary,
            "detail": self.detail,
            "fix": self.fix.to_dict() if self.fix else None,
            "links": list(self.links),
            "evidence": list(self.evidence),
            "inferred": self.inferred,
            "short": self.short,
            "cause": self.cause,
        }


@dataclass(frozen=True)
class CheckResult:
    """The outcome of running one check."""

    check: str
    title: str
    source: str  # "torch-gpudoctor 0.1.0" or the plugin's distribution
    status: Status
    findings: Tuple[Finding, ...] = ()
    reason: Optional[str] = None  # why it was skipped, or the crash text

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "title": self.title,
            "source": self.source,
            "status": self.status.value,
            "reason": self.reason,
            "findings": [f.to_dict() for f in self.findings],
        }


def status_for(findings: Tuple[Finding, ...]) -> Status:
    """PASS when nothing above info, WARN for warnings, FAIL for errors."""
    worst = max((f.severity.rank for f in findings), default=0)
    return {0: Status.PASS, 1: Status.WARN, 2: Status.FAIL}[worst]


REPORT_SCHEMA = 1


@dataclass(frozen=True)
class Report:
    """Facts plus one result per check."""

    facts: Facts
    results: Tuple[CheckResult, ...] = field(default_factory=tuple)

    def findings(self) -> Tuple[Finding, ...]:
        return tuple(f for r in self.results for f in r.findings)

    def counts(self) -> dict[Status, int]:
        counts = {s: 0 for s in Status}
        for result in self.results:
            counts[result.status] += 1
        return counts

    def exit_code(self, fail_on: Optional[Severity] = Severity.ERROR) -> int:
        """0 when nothing reaches ``fail_on`` (None: never fail), 1 when something does.

        A crashed check counts as an error: the doctor could not vouch for that part.
        """
        if fail_on is None:
            return 0
        for result in self.results:
            if result.status is Status.CRASH and fail_on.rank <= Severity.ERROR.rank:
                return 1
            if any(f.severity.rank >= fail_on.rank for f in result.findings):
                return 1
        return 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "facts": self.facts.to_dict(),
            "results": [r.to_dict() for r in self.results],
        }
