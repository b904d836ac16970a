"""A check that calls sys.exit or never returns becomes a CRASH row; the other checks still run."""

from __future__ import annotations

import sys
import threading
from typing import Iterator

from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Severity, Status
from gpudoctor.registry import Catalogue, check
from gpudoctor.runner import run_checks


@check("plugin.exits", "calls sys.exit")
def exits(facts: Facts) -> Iterator[Finding]:
    sys.exit(0)
    yield  # pragma: no cover


@check("plugin.fine", "finds one thing")
def fine(facts: Facts) -> Iterator[Finding]:
    yield Finding("plugin.fine", Severity.WARNING, "one thing", "")


RELEASE = threading.Event()


@check("plugin.hangs", "never returns")
def hangs(facts: Facts) -> Iterator[Finding]:
    RELEASE.wait()
    yield from ()


def _catalogue(*checks) -> Catalogue:
    return Catalogue(checks=tuple(c.with_source("a-plugin 1.0") for c in checks), errors=())


def test_a_check_that_calls_sys_exit_is_a_crash_row() -> None:
    report = run_checks(_catalogue(exits, fine), Facts())
    assert [(r.check, r.status) for r in report.results] == [("plugin.exits", Status.CRASH), ("plugin.fine", Status.WARN)]
    assert report.results[0].reason is not None and report.results[0].reason.startswith("SystemExit: 0 at ")


def test_a_check_that_never_returns_is_left_behind_at_its_time_limit() -> None:
    try:
        report = run_checks(_catalogue(fine, hangs, fine), Facts(), time_limit=5)
    finally:
        RELEASE.set()
    assert [(r.check, r.status) for r in report.results] == [
        ("plugin.fine", Status.WARN), ("plugin.hangs", Status.CRASH), ("plugin.fine", Status.WARN)]
    assert report.results[1].reason == "did not finish within 5 s and was left running (report this to a-plugin 1.0)"
