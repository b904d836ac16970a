"""Reads a GitHub `issues` or `issue_comment` event and writes the comment a maintainer would post."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from gpudoctor.model import Report
from gpudoctor.registry import Catalogue
from gpudoctor.render.diagnosis import render_answer
from gpudoctor.render.markdown import md_escape, render_markdown
from gpudoctor.errors import UserError

MAX_EVENT_BYTES = 25 * 1024 * 1024
MAX_BODY_CHARS = 262_144  # GitHub caps bodies at 65,536; anything longer is not a real issue body
ACTIONS = ("opened", "edited", "reopened", "created")


class EventError(UserError, ValueError):
    """An event file that cannot be read; the message is one line for the user."""


@dataclass(frozen=True)
class Event:
    """The text to diagnose and where it came from."""

    text: str
    kind: str  # "issue" or "comment"
    number: Optional[int]


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def read_event(path: str) -> Optional[Event]:
    """The issue or comment body of the event at ``path``; None when there is nothing to answer (a bot's own
    comment, a closed or labelled issue, an empty body)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_EVENT_BYTES + 1)
    except OSError as exc:
        raise EventError(f"{path}: cannot read the event ({exc.strerror or exc})") from None
    if len(raw) > MAX_EVENT_BYTES:
        raise EventError(f"{path}: larger than {MAX_EVENT_BYTES // (1024 * 1024)} MB, not a GitHub event")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise EventError(f"{path}: not a GitHub event (invalid JSON: {exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("issue"), dict):
        raise EventError(f"{path}: not an issues or issue_comment event (no 'issue' object)")
    action = data.get("action")
    if isinstance(action, str) and action not in ACTIONS:
        return None
    number = _get(data, "issue", "number")
    number = number if isinstance(number, int) and not isinstance(number, bool) else None
    if isinstance(data.get("comment"), dict):
        if _get(data, "comment", "user", "type") == "Bot":
            return None  # never answer a bot, this one included
        body, kind = _get(data, "comment", "body"), "comment"
    else:
        body, kind = _get(data, "issue", "body"), "issue"
    if not isinstance(body, str) or not body.strip():
        return None
    return Event(body[:MAX_BODY_CHARS], kind, number)


def comment(report: Report, kind: str) -> str:
    """The Markdown comment: the answer first, the full report folded away below it."""
    from gpudoctor import __version__

    where = "this comment" if kind == "comment" else "this issue"
    parts = [
        render_answer(report, markdown=True).rstrip("\n"),
        "",
        f"<details><summary>All checks gpudoctor ran on {md_escape(where)}</summary>",
        "",
        render_markdown(report).rstrip("\n"),
        "",
        "</details>",
        "",
        f"<sub>gpudoctor {md_escape(__version__)} read the text of {md_escape(where)}; for a complete report run "
        "`gpudoctor check --format markdown` on the machine and paste it here.</sub>",
    ]
    return "\n".join(parts) + "\n"


def answer_event(path: str, catalogue: Catalogue, output: Optional[str], redact: Optional[bool]) -> int:
    """Write the comment for the event at ``path`` (redacted unless ``redact`` is False); write nothing at all
    when there is nothing to answer. Always 0: a found problem is the comment's business, not the job's."""
    from gpudoctor.parsers.report import InputError, load_facts
    from gpudoctor.redact import redact as redacted
    from gpudoctor.render.console import deliver, note
    from gpudoctor.runner import run_checks

    event = read_event(path)
    if event is None:
        note("gpudoctor: nothing to answer in this event")
        return 0
    try:
        facts = load_facts(event.text, f"the {event.kind}", allow_partial=False)
    except InputError:
        note(f"gpudoctor: the {event.kind} holds no environment information; no comment")
        return 0
    report = run_checks(catalogue, facts if redact is False else redacted(facts))
    deliver(comment(report, event.kind), output, None, "Comment written.")
    return 0
