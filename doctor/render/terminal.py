"""The terminal report in the style of ``flutter doctor``: one line per check, indented findings and fixes."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Tuple

from gpudoctor.causes import causes
from gpudoctor.model import CheckResult, Finding, Report, Severity, Status
from gpudoctor.render.common import (
    MARKS,
    SEVERITY_MARKS,
    header,
    hidden_notes,
    plural,
    problem_count,
    skipped_count,
    summary_line,
)

Span = Tuple[str, str]  # (text, rich style; "" for none)
Line = List[Span]

STATUS_STYLES = {
    Status.PASS: "green",
    Status.WARN: "yellow",
    Status.FAIL: "red",
    Status.SKIP: "dim",
    Status.CRASH: "magenta",
}
SEVERITY_STYLES = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}

FINDING = "    "
BODY = "      "
COMMAND = "        "


def _text_lines(text: str, indent: str, style: str = "") -> List[Line]:
    return [[(indent + line if line.strip() else "", style)] for line in text.splitlines()]


def fold_tracebacks(text: str) -> str:
    """Replace each Python traceback in ``text`` by its last line and a pointer to ``-v``."""
    out: List[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "Traceback (most recent call last):":
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
            j += 1
        frames = sum(1 for line in lines[i + 1:j] if line.lstrip().startswith("File "))
        out.append(f"(a traceback of {plural(frames, 'frame')} ends in the line below; -v shows it)")
        i = j
    return "\n".join(out)


def _finding_lines(finding: Finding, verbose: bool, lead_title: str = "") -> List[Line]:
    mark = SEVERITY_MARKS[finding.severity]
    style = SEVERITY_STYLES[finding.severity]
    first: Line = [(FINDING, ""), (mark, style), (" " + finding.summary, "")]
    if verbose:
        first.append((f" [{finding.code}]", "dim"))
    lines: List[Line] = [first]
    if lead_title:
        lines.append([(BODY + f"Same cause as \"{lead_title}\" above; its fix covers this.", "dim")])
        if not verbose:
            return lines
    if finding.detail:
        lines += _text_lines(finding.detail if verbose else fold_tracebacks(finding.detail), BODY)
    if finding.inferred:
        lines.append([(BODY + "(built on inferred facts, not observed ones)", "dim")])
    if finding.fix is not None:
        if finding.fix.text:
            fix_lines = finding.fix.text.splitlines() or [""]
            lines.append([(BODY, ""), ("Fix:", "bold"), (" " + fix_lines[0], "")])
            lines += _text_lines("\n".join(fix_lines[1:]), BODY)
        elif finding.fix.commands:
            lines.append([(BODY, ""), ("Fix:", "bold")])
        for command in finding.fix.commands:
            lines.append([(COMMAND, ""), (command, "bold cyan")])
    for link in finding.links:
        lines.append([(BODY + "See: ", ""), (link, "blue")])
    if verbose and finding.evidence:
        lines.append([(BODY + "Evidence: " + ", ".join(finding.evidence), "dim")])
    return lines


def _symptoms(report: Report) -> Dict[int, str]:
    """For each finding that is a symptom of a cause shown earlier: the title of the check that shows the cause."""
    titles = {id(f): r.title or r.check for r in report.results for f in r.findings}
    order = {id(f): i for i, f in enumerate(report.findings())}
    out: Dict[int, str] = {}
    for cause in causes(report):
        for symptom in cause.symptoms:
            lead = cause.lead
            if order.get(id(lead), -1) < order.get(id(symptom), -1):
                out[id(symptom)] = titles.get(id(lead), "")
    return out


def _passing_status(result: CheckResult) -> str:
    shorts = [f.short for f in result.findings if f.short]
    return f" ({'; '.join(shorts)})" if shorts else ""


_TOPIC_END = re.compile(r", so |; |: ")
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)$")


def skip_topic(reason: str) -> str:
    """The reason a skip shares with others: its first clause, without a trailing parenthesised note.

    "no GPU list from NVML, so the MIG mode is not known (NVML library not found)" -> "no GPU list from NVML".
    """
    first = _TOPIC_END.split(reason, maxsplit=1)[0]
    return _TRAILING_NOTE.sub("", first).strip() or reason


def _skip_lines(results: List[CheckResult]) -> List[Line]:
    """Skipped checks folded into one line per reason; a reason only one check gives keeps that check's row."""
    groups: Dict[str, List[CheckResult]] = {}
    for result in results:
        groups.setdefault(skip_topic(result.reason or "no reason given"), []).append(result)
    lines: List[Line] = []
    for reason, members in groups.items():
        if len(members) == 1:
            lines += _result_lines(members[0], False, {})
        else:
            mark: Line = [("[", ""), (MARKS[Status.SKIP], STATUS_STYLES[Status.SKIP]), ("] ", "")]
            lines.append(mark + [(f"{plural(len(members), 'check')} skipped: {reason}", "dim")])
    return lines


def _result_lines(result: CheckResult, verbose: bool, symptoms: Dict[int, str]) -> List[Line]:
    mark = [("[", ""), (MARKS[result.status], STATUS_STYLES[result.status]), ("] ", "")]
    title = result.title or result.check
    suffix = f" [{result.check}]" if verbose else ""
    if result.status is Status.SKIP:
        reason = f" (skipped: {result.reason})" if result.reason else " (skipped)"
        lines: List[Line] = [mark + [(title, "dim"), (reason + suffix, "dim")]]
    elif result.status is Status.CRASH:
        lines = [mark + [(title, "bold"), (f" (crashed; from {result.source})" + suffix, "magenta")]]
        lines += _text_lines(result.reason or "no reason given", FINDING, "magenta")
    else:
        status = _passing_status(result) if result.status is Status.PASS else ""
        lines = [mark + [(title, "bold" if result.status is not Status.PASS else ""), (status, ""), (suffix, "dim")]]
    for finding in result.findings:
        if verbose or finding.severity is not Severity.INFO:
            lines += _finding_lines(finding, verbose, symptoms.get(id(finding), ""))
    return lines


def terminal_lines(report: Report, verbose: bool = False) -> List[Line]:
    """The report as lines of styled spans; ``render_terminal`` and ``render_rich`` both build on it."""
    lines: List[Line] = [[(header(report), "dim")], []]
    symptoms = _symptoms(report)
    for result in report.results:
        if verbose or result.status is not Status.SKIP:
            lines += _result_lines(result, verbose, symptoms)
    if not verbose:
        lines += _skip_lines([r for r in report.results if r.status is Status.SKIP])
    lines.append([])
    facts = report.facts
    if facts.probe_errors:
        lines.append([("Missing from the facts:", "bold")])
        lines += [[(f"{FINDING}{section}: {reason}", "")] for section, reason in facts.probe_errors]
    if verbose and facts.inferred:
        lines.append([("Inferred, not observed: " + ", ".join(facts.inferred), "dim")])
    if facts.probe_errors or (verbose and facts.inferred):
        lines.append([])
    style = "bold red" if problem_count(report) else "bold yellow" if skipped_count(report) else "bold green"
    lines.append([(summary_line(report), style)])
    notes = hidden_notes(report)
    skipped = [r for r in report.results if r.status is Status.SKIP]
    folded = len({skip_topic(r.reason or "no reason given") for r in skipped}) < len(skipped)
    if (notes or folded) and not verbose:
        shown = ([plural(notes, "more note")] if notes else []) + (["each skipped check"] if folded else [])
        lines.append([(f"Run with -v to see {', '.join(shown)} and the evidence.", "dim")])
    return lines


def render_terminal(report: Report, verbose: bool = False) -> str:
    """The report as plain text, exactly what a non-colour terminal shows."""
    return "".join("".join(text for text, _ in line) + "\n" for line in terminal_lines(report, verbose))


def render_rich(report: Report, verbose: bool = False) -> Any:
    """The report as a ``rich.text.Text`` with colours, for a terminal that wants them."""
    from rich.text import Text

    text = Text()
    for line in terminal_lines(report, verbose):
        for chunk, style in line:
            text.append(chunk, style=style or None)
        text.append("\n")
    return text
