"""Runs a catalogue of checks over facts and collects one result per check, each within a time limit."""

from __future__ import annotations

import queue
import threading
import traceback
from typing import List, Sequence

from gpudoctor.facts import Facts
from gpudoctor.model import CheckResult, Finding, Report, Status, status_for
from gpudoctor.registry import Catalogue, Check, Skip

CHECK_TIME_LIMIT = 30.0  # seconds; a built-in check takes milliseconds


def _skip_reason(facts: Facts, exc: Skip) -> str:
    if exc.path:
        section = exc.path.split(".", 1)[0]
        probe_reason = facts.probe_error(section)
        if probe_reason:
            return f"{exc.reason} ({probe_reason})"
    return exc.reason


def run_check(check: Check, facts: Facts) -> CheckResult:
    """Run one check; a Skip becomes SKIP and anything else raised (sys.exit too) a CRASH row naming its source."""
    findings: List[Finding] = []
    try:
        for finding in check.run(facts):
            if not isinstance(finding, Finding):
                raise TypeError(f"yielded {type(finding).__name__}, not a Finding")
            findings.append(finding)
    except Skip as exc:
        return CheckResult(check.id, check.title, check.source, Status.SKIP, tuple(findings), _skip_reason(facts, exc))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a broken check (even one calling sys.exit) must not stop the report
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
        reason = f"{type(exc).__name__}: {exc}{where} (report this to {check.source})"
        return CheckResult(check.id, check.title, check.source, Status.CRASH, (), reason)
    found = tuple(findings)
    return CheckResult(check.id, check.title, check.source, status_for(found), found)


def _worker(checks: Sequence[Check], facts: Facts, out: "queue.Queue[CheckResult]") -> None:
    for one in checks:
        out.put(run_check(one, facts))


def _run_all(checks: Sequence[Check], facts: Facts, time_limit: float) -> List[CheckResult]:
    """Each check in order on a worker thread; a check past ``time_limit`` is left behind as a CRASH row."""
    results: List[CheckResult] = []
    while len(results) < len(checks):
        rest = checks[len(results):]
        out: "queue.Queue[CheckResult]" = queue.Queue()
        threading.Thread(target=_worker, args=(rest, facts, out), daemon=True, name="gpudoctor-checks").start()
        for one in rest:
            try:
                results.append(out.get(timeout=time_limit))
            except queue.Empty:
                reason = f"did not finish within {time_limit:g} s and was left running (report this to {one.source})"
                results.append(CheckResult(one.id, one.title, one.source, Status.CRASH, (), reason))
                break
    return results


def run_checks(catalogue: Catalogue, facts: Facts, time_limit: float = CHECK_TIME_LIMIT) -> Report:
    """Every check in catalogue order, then a CRASH row per plugin that failed to load."""
    results = _run_all(list(catalogue.checks), facts, time_limit)
    for err in catalogue.errors:
        results.append(
            CheckResult(f"plugin:{err.name}", f"plugin {err.name}", err.source, Status.CRASH, (), err.error)
        )
    return Report(facts=facts, results=tuple(results))
