"""Wording shared by the renderers: status marks, the header line and the closing summary."""

from __future__ import annotations

from typing import List, Tuple

from gpudoctor import __version__
from gpudoctor.causes import causes
from gpudoctor.facts import Source
from gpudoctor.model import Finding, Report, Severity, Status

MARKS = {
    Status.PASS: "✓",
    Status.WARN: "!",
    Status.FAIL: "✗",
    Status.SKIP: "-",
    Status.CRASH: "☠",
}

SEVERITY_MARKS = {Severity.ERROR: "✗", Severity.WARNING: "!", Severity.INFO: "•"}

# How the header names each Source (tests keep every member here); a name from another version is shown as it is.
SOURCES = {
    Source.LIVE: "collected live",
    Source.FACTS: "loaded from a facts file",
    Source.REPORT: "loaded from a JSON report",
    Source.MARKDOWN: "loaded from a markdown report",
    Source.COLLECT_ENV: "parsed from PyTorch collect_env output",
    Source.PASTE: Source.PASTE.value,  # an issue body without collect_env: no phrase of its own, shown as its name
}

GITHUB_BODY_LIMIT = 65_536


def plural(count: int, word: str) -> str:
    """``plural(1, "error")`` -> "1 error"; ``plural(2, "error")`` -> "2 errors"."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def describe_source(report: Report) -> str:
    """Where the facts came from and when, e.g. "facts collected live, 2025-06-01T12:00:00Z"."""
    meta = report.facts.meta
    known = Source.parse(meta.source)
    parts = [f"facts {meta.source if known is None else SOURCES[known]}"]
    if meta.created:
        parts.append(meta.created)
    if meta.gpudoctor_version and meta.gpudoctor_version != __version__:
        parts.append(f"by gpudoctor {meta.gpudoctor_version}")
    if meta.redacted:
        parts.append("redacted")
    return ", ".join(parts)


def header(report: Report) -> str:
    """The first line of every rendering: this gpudoctor's version, the facts' origin and how far its data reaches."""
    return f"gpudoctor {__version__} ({describe_source(report)}; {data_reach()})"


def data_reach() -> str:
    """How far the compatibility data behind the verdicts reaches: "data to torch 2.15.0 of 2026-11-24"."""
    from gpudoctor.compat import DATA_DATE, newest_torch

    return f"data to torch {newest_torch()} of {DATA_DATE}"


def problems(report: Report) -> List[Finding]:
    """Warning and error findings, in report order."""
    return [f for f in report.findings() if f.severity is not Severity.INFO]


def problem_count(report: Report) -> int:
    """Root causes of warnings, errors and crashed checks: everything that keeps a report from being healthy."""
    return len(causes(report))


def skipped_count(report: Report) -> int:
    """How many checks could not judge these facts."""
    return report.counts()[Status.SKIP]


def summary_line(report: Report) -> str:
    """"2 problems found: 1 error, 1 warning." or a sentence saying nothing was found and why."""
    found = [c for c in causes(report) if not c.lead.code.startswith("crash:")]
    errors = sum(1 for c in found if c.severity is Severity.ERROR)
    warnings = len(found) - errors
    counts = report.counts()
    crashed = counts[Status.CRASH]
    skipped = counts[Status.SKIP]
    total = errors + warnings + crashed
    skipped_note = f" {plural(skipped, 'check')} skipped." if skipped else ""
    if total:
        parts: List[Tuple[int, str]] = [(errors, "error"), (warnings, "warning"), (crashed, "crashed check")]
        listed = ", ".join(plural(n, word) for n, word in parts if n)
        seen = len(problems(report)) + crashed
        grouped = f" ({plural(total, 'cause')}, seen in {plural(seen, 'finding')})" if seen > total else ""
        return f"{plural(total, 'problem')}{grouped} found: {listed}.{skipped_note}"
    if not report.results:
        return "No checks ran."
    if skipped == len(report.results):
        return f"Nothing could be checked: all {plural(skipped, 'check')} were skipped."
    if skipped:
        ran = len(report.results) - skipped
        return f"No problems found in the {plural(ran, 'check')} that ran;{skipped_note}"
    return "No problems found."


def hidden_notes(report: Report) -> int:
    """How many info findings a non-verbose rendering leaves out."""
    return sum(1 for f in report.findings() if f.severity is Severity.INFO)
