"""Runs a catalogue of checks over facts and collects one result per check."""

from __future__ import annotations

import traceback
from typing import List

from gpudoctor.facts import Facts
from gpudoctor.model import CheckResult, Finding, Report, Status, status_for
from gpudoctor.registry import Catalogue, Check, Skip


def _skip_reason(facts: Facts, exc: Skip) -> str:
    if exc.path:
        section = exc.path.split(".", 1)[0]
        probe_reason = facts.probe_error(section)
        if probe_reason:
            return f"{exc.reason} ({probe_reason})"
    return exc.reason


def run_check(check: Check, facts: Facts) -> CheckResult:
    """Run one check; a Skip becomes SKIP and any other exception a CRASH row naming its source."""
    findings: List[Finding] = []
    try:
        for finding in check.run(facts):
            if not isinstance(finding, Finding):
                raise TypeError(f"yielded {type(finding).__name__}, not a Finding")
            findings.append(finding)
    except Skip as exc:
        return CheckResult(check.id, check.title, check.source, Status.SKIP, tuple(findings), _skip_reason(facts, exc))
    except Exception as exc:  # noqa: BLE001 - a broken check must not stop the report
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
        reason = f"{type(exc).__name__}: {exc}{where} (report this to {check.source})"
        return CheckResult(check.id, check.title, check.source, Status.CRASH, (), reason)
    found = tuple(findings)
    return CheckResult(check.id, check.title, check.source, status_for(found), found)


def run_checks(catalogue: Catalogue, facts: Facts) -> Report:
    """Every check in catalogue order, then a CRASH row per plugin that failed to load."""
    results = [run_check(c, facts) for c in catalogue.checks]
    for err in catalogue.errors:
        results.append(
            CheckResult(f"plugin:{err.name}", f"plugin {err.name}", err.source, Status.CRASH, (), err.error)
        )
    return Report(facts=facts, results=tuple(results))
