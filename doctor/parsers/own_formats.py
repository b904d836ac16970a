"""Facts from gpudoctor's own formats: a facts file, a JSON report, and the facts a markdown report embeds."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, List, Optional, Tuple

from gpudoctor.facts import Facts, FactsError, Source
from gpudoctor.facts.codec import FACTS_MARKER
from gpudoctor.parsers.decode import InputError

_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)*")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")


def with_source(facts: Facts, source: Source) -> Facts:
    return dataclasses.replace(facts, meta=dataclasses.replace(facts.meta, source=source.value))


def _facts_from(data: Any, name: str, where: str) -> Facts:
    try:
        return Facts.from_dict(data)
    except FactsError as exc:
        raise InputError(f"{name}: {where}: {exc}") from None


def _unclosed(text: str) -> bool:
    """True when a JSON text ends inside a string or with brackets still open: it was cut off."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return in_string or depth > 0


def load_json(text: str, name: str) -> Facts:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise InputError(f"{name}: more than one JSON document; diagnose one at a time") from None
        hint = "; the file looks cut off" if _unclosed(text) else ""
        raise InputError(
            f"{name}: not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno}){hint}"
        ) from None
    if not isinstance(data, dict):
        raise InputError(f"{name}: JSON {type(data).__name__}, not gpudoctor facts or a report")
    return from_data(data, name)


def _is_report(data: Any) -> bool:
    return isinstance(data, dict) and "results" in data and "facts" in data


def _is_facts(data: Any) -> bool:
    return isinstance(data, dict) and ("meta" in data or "platform" in data)


def from_data(data: Any, name: str) -> Facts:
    """Facts from a decoded JSON object: a report's facts or the facts themselves."""
    if _is_report(data):
        from gpudoctor.model import REPORT_SCHEMA

        schema = data.get("schema", 1)
        if isinstance(schema, int) and not isinstance(schema, bool) and schema > REPORT_SCHEMA:
            raise InputError(
                f"{name}: report schema {schema} is newer than this gpudoctor understands "
                f"({REPORT_SCHEMA}); upgrade gpudoctor to read it"
            )
        return with_source(_facts_from(data["facts"], name, "the report's facts"), Source.REPORT)
    if _is_facts(data):
        return with_source(_facts_from(data, name, "facts"), Source.FACTS)
    raise InputError(f"{name}: JSON without 'meta' or 'facts': not gpudoctor facts or a report")


def _unquote(lines: List[str]) -> List[str]:
    return [_QUOTE.sub("", line, count=1) for line in lines]


def _fenced_after(lines: List[str], start: int) -> Optional[Tuple[str, bool]]:
    """The body of the first fenced block at or after ``start``, and whether its closing fence was found."""
    for i in range(start, len(lines)):
        match = _FENCE.match(lines[i])
        if not match:
            if lines[i].strip():
                return None  # something other than a fence follows the marker
            continue
        ticks = match.group(1)
        body: List[str] = []
        for line in lines[i + 1 :]:
            if line.strip().startswith(ticks[0] * len(ticks)) and not line.strip().strip(ticks[0]):
                return "\n".join(body), True
            body.append(line)
        return "\n".join(body), False
    return None


def _embedded(text: str, name: str) -> List[str]:
    """The JSON texts embedded after each facts marker."""
    lines = _unquote(text.splitlines())
    found: List[str] = []
    for i, line in enumerate(lines):
        if line.strip() != FACTS_MARKER:
            continue
        block = _fenced_after(lines, i + 1)
        if block is None:
            raise InputError(f"{name}: the facts marker is not followed by a fenced JSON block")
        body, closed = block
        if not closed:
            raise InputError(f"{name}: the embedded facts are cut off (the JSON block never ends)")
        found.append(body)
    return found


def bare_json(text: str, tries: int = 8) -> Optional[Any]:
    """The first facts or report object in prose (a rendered page, a fence in an issue), trying a few openings."""
    lines = _unquote(text.splitlines())
    decoder = json.JSONDecoder()
    starts = [i for i, line in enumerate(lines) if line.strip() == "{"][:tries]
    for i in starts:
        try:
            data, _ = decoder.raw_decode("\n".join(lines[i:]).lstrip())
        except json.JSONDecodeError:
            continue
        if _is_report(data) or _is_facts(data):
            return data
    return None


def load_markdown(text: str, name: str) -> Facts:
    blocks = _embedded(text, name)
    if not blocks:
        data = bare_json(text)
        if data is None:
            raise InputError(
                f"{name}: a gpudoctor markdown report without its embedded facts; paste the whole "
                "report including the <details> facts block, or run `gpudoctor facts`"
            )
        facts = from_data(data, name)
        return with_source(facts, Source.MARKDOWN)
    if len(set(b.strip() for b in blocks)) > 1:
        raise InputError(f"{name}: holds {len(blocks)} different gpudoctor reports; diagnose one at a time")
    try:
        data = json.loads(blocks[0])
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{name}: the embedded facts are not valid JSON ({exc.msg}: line {exc.lineno} of the block)"
        ) from None
    return with_source(_facts_from(data, name, "embedded facts"), Source.MARKDOWN)
