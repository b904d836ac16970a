"""The markdown report for GitHub and GitLab issues, with the facts embedded so it can be diagnosed again."""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, List, Optional, Sequence, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.causes import causes
from gpudoctor.facts import Facts
from gpudoctor.facts.codec import FACTS_MARKER
from gpudoctor.model import CheckResult, Finding, Report, Severity, Status
from gpudoctor.render.common import (
    GITHUB_BODY_LIMIT,
    MARKS,
    SEVERITY_MARKS,
    header,
    summary_line,
)

TITLE = "## gpudoctor report"
SHORTENED_KEY = "markdown.dropped"
_ESCAPE = re.compile(r"([\\`*_\[\]<>|~#&])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")  # @user and @org/team notify people on GitHub
_LINE_START = re.compile(r"(^|\n)([ \t]*(?:\d+)?)([-+=.)])")
_TEXT_CAP = 1_000  # characters per detail once the body is over the limit


def md_escape(text: str, multiline: bool = False) -> str:
    """Text that GitHub renders literally: no emphasis, links, tags, table breaks or @mentions.

    One line unless ``multiline``: newlines become spaces, so a value cannot end a heading or a list
    item and start a block of its own; where lines are kept, none can start a list, quote or heading.
    """
    if not multiline:
        text = " ".join(text.split("\n"))
    out = _ESCAPE.sub(r"\\\1", text)
    out = _MENTION.sub("@\u200b", out)
    return _LINE_START.sub(r"\1\2\\\3", out) if multiline else out


def code(text: str) -> str:
    """``text`` as one inline code span, whatever backticks or newlines it holds."""
    text = " ".join(text.split())
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if not text or text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(body: str, lang: str) -> str:
    """A fenced code block whose fence no line of ``body`` can close early."""
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{body.rstrip(chr(10))}\n{ticks}"


def _cell(text: str) -> str:
    return md_escape(" ".join(text.split()))


def _cap(text: str, cap: Optional[int]) -> str:
    if cap is None or len(text) <= cap:
        return text
    return text[:cap] + f" … ({len(text) - cap} characters cut)"


def _row_summary(result: CheckResult) -> str:
    if result.status in (Status.SKIP, Status.CRASH):
        return result.reason or ""
    found = [f for f in result.findings if f.severity is not Severity.INFO]
    if not found:
        return ""
    more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
    return found[0].summary + more


def _table(results: Sequence[CheckResult]) -> List[str]:
    lines = ["| check | status | summary |", "| --- | --- | --- |"]
    for r in results:
        check = f"{_cell(r.title or r.check)} ({code(r.check)})"
        status = f"{MARKS[r.status]} {r.status.value}"
        summary = _row_summary(r) or "; ".join(f.short for f in r.findings if f.short)
        lines.append(f"| {check} | {status} | {_cell(summary)} |")
    return lines


def _finding(result: CheckResult, finding: Finding, cap: Optional[int], number: int = 0) -> List[str]:
    mark = SEVERITY_MARKS[finding.severity]
    title = result.title or result.check
    out = [
        f"### {mark} {f'{number}. ' if number else ''}{finding.severity.value}: {md_escape(finding.summary)}",
        "",
        f"{code(finding.code)} from {md_escape(title)} ({code(result.check)})",
    ]
    if finding.detail:
        out += ["", md_escape(_cap(finding.detail, cap), multiline=True)]
    if finding.inferred:
        out += ["", "*Built on inferred facts, not observed ones.*"]
    if finding.fix is not None:
        if finding.fix.text:
            out += ["", f"**Fix:** {md_escape(finding.fix.text)}"]
        if finding.fix.commands:
            out += ["", fence("\n".join(finding.fix.commands), "sh")]
    if finding.links:
        out += [""] + [f"- <{link}>" for link in finding.links]
    if finding.evidence:
        out += ["", "Evidence: " + ", ".join(code(e) for e in finding.evidence)]
    return out + [""]


def _crash(result: CheckResult, cap: Optional[int]) -> List[str]:
    title = md_escape(result.title or result.check)
    return [
        f"### {MARKS[Status.CRASH]} crash: {title} ({code(result.check)})",
        "",
        f"From {md_escape(result.source)}:",
        "",
        fence(_cap(result.reason or "no reason given", cap), "text"),
        "",
    ]


def _symptom(result: CheckResult, finding: Finding) -> str:
    title = md_escape(result.title or result.check)
    return (f"- {SEVERITY_MARKS[finding.severity]} {finding.severity.value}: {md_escape(finding.summary)} "
            f"({code(finding.code)} from {title}; the fix above covers it)")


def _diagnosis(report: Report, cap: Optional[int]) -> List[str]:
    """Each root cause with its fix, then the other findings it explains: the answer before the evidence."""
    owner = {id(f): r for r in report.results for f in r.findings}
    crashed = {f"crash:{r.check}": r for r in report.results if r.status is Status.CRASH}
    lines: List[str] = []
    for number, cause in enumerate(causes(report), start=1):
        if cause.lead.code in crashed:
            lines += _crash(crashed[cause.lead.code], cap)
            continue
        lines += _finding(owner[id(cause.lead)], cause.lead, cap, number)
        if cause.symptoms:
            lines += ["Also seen as:", ""] + [_symptom(owner[id(f)], f) for f in cause.symptoms] + [""]
    return lines


def _body(report: Report, verbose: bool, cap: Optional[int]) -> List[str]:
    lines = [TITLE, "", md_escape(header(report)), "", f"**{summary_line(report)}**", ""]
    lines += _diagnosis(report, cap)
    failing = [r for r in report.results if r.status not in (Status.PASS, Status.SKIP)]
    if failing:
        lines += ["#### Checks that did not pass", ""] + _table(failing) + [""]
    if report.facts.probe_errors:
        lines += ["**Missing from the facts:**", ""]
        lines += [f"- {code(section)}: {md_escape(reason)}" for section, reason in report.facts.probe_errors]
        lines.append("")
    if report.facts.inferred:
        lines += ["**Inferred, not observed:** " + ", ".join(code(p) for p in report.facts.inferred), ""]
    lines += [f"<details><summary>all {len(report.results)} checks</summary>", ""] + _table(report.results) + [""]
    notes = [(r, f) for r in report.results for f in r.findings if f.severity is Severity.INFO]
    if verbose and notes:
        lines += ["#### Notes", ""]
        for _result, finding in notes:
            lines.append(f"- {md_escape(finding.summary)} ({code(finding.code)})")
        lines.append("")
    return lines + ["</details>", ""]


def _facts_block(facts: Facts, note: str) -> List[str]:
    lines = ["<details><summary>facts</summary>", ""]
    if note:
        lines += [note, ""]
    lines += [FACTS_MARKER, fence(facts.to_json(indent=2), "json"), "", "</details>"]
    return lines


_Shrink = Tuple[str, Callable[[Facts], Facts]]


def _relevant(name: str) -> bool:
    low = canonicalize_name(name)
    return low.startswith(("torch", "nvidia-", "triton", "pytorch")) or low in ("numpy", "pillow")


def _shrinks() -> List[_Shrink]:
    r = dataclasses.replace
    return [
        ("torch.loaded_libraries", lambda f: r(f, torch=r(f.torch, loaded_libraries=()))),
        (
            "import tracebacks",
            lambda f: r(
                f,
                torch=r(f.torch, import_traceback=None),
                torchvision=r(f.torchvision, import_traceback=None),
                torchaudio=r(f.torchaudio, import_traceback=None),
            ),
        ),
        ("libraries.ldconfig_cuda", lambda f: r(f, libraries=r(f.libraries, ldconfig_cuda=()))),
        ("unrelated packages", lambda f: r(f, packages=tuple(p for p in f.packages if _relevant(p.name)))),
        ("GPU process lists", lambda f: r(f, gpus=tuple(r(g, processes=()) for g in f.gpus))),
        ("extra notes", lambda f: r(f, extra=())),
    ]


def render_markdown(report: Report, verbose: bool = False, limit: int = GITHUB_BODY_LIMIT) -> str:
    """The report as an issue body under ``limit`` characters, shrinking the embedded facts if needed."""
    body = _body(report, verbose, None)
    if len("\n".join(body)) > limit // 2:
        body = _body(report, verbose, _TEXT_CAP)
    head = "\n".join(body) + "\n"
    facts = report.facts
    dropped: List[str] = []
    steps = _shrinks()
    while True:
        note = ""
        embedded = facts
        if dropped:
            label = "; ".join(dropped)
            note = f"*Facts shortened to fit GitHub's {limit:,}-character limit: dropped {md_escape(label)}.*"
            embedded = dataclasses.replace(facts, extra=facts.extra + ((SHORTENED_KEY, label),))
        text = head + "\n".join(_facts_block(embedded, note)) + "\n"
        if len(text) <= limit:
            return text
        if not steps:
            break
        label, shrink = steps.pop(0)
        facts = shrink(facts)
        dropped.append(label)
    note = (
        f"*The facts are too large to embed within GitHub's {limit:,}-character limit; "
        "attach the output of `gpudoctor facts -o facts.json` instead.*"
    )
    text = head + note + "\n"
    if len(text) > limit:
        cut = "\n\n*Report cut to fit the limit.*\n"
        text = text[: limit - len(cut)] + cut
    return text
