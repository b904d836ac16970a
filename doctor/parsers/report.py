"""Loads the input of ``gpudoctor diagnose``: facts JSON, a JSON report, a markdown report or collect_env text."""

from __future__ import annotations

import codecs
import dataclasses
import importlib
import json
import os
import re
import sys
from typing import Any, List, Optional, Tuple

from gpudoctor.facts import Facts, FactsError, Source
from gpudoctor.facts.codec import FACTS_MARKER
from gpudoctor.errors import UserError
from gpudoctor.parsers.partial import partial_facts

MAX_BYTES = 10 * 1024 * 1024
REPORT_TITLE = re.compile(r"^[\s>]*#+\s*gpudoctor report\s*$", re.M)
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)*")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")
_JSON_ARRAY = re.compile(r"\[\s*(?:[\[{\"\]\d-]|$)")  # not "[Bug]: ..." or "[pip3] torch"


class InputError(UserError, ValueError):
    """Input that cannot be diagnosed; the message is one line for the user."""


_UTF16_RUN = re.compile(rb"(?:\xff\xfe)?(?:[\t\n\r\x20-\x7e]\x00){4,}")


def _utf16_runs(data: bytes) -> bytes:
    """UTF-8 text with UTF-16-LE stretches in it (a file appended to by another shell): each stretch re-encoded."""
    return _UTF16_RUN.sub(lambda m: m.group().removeprefix(b"\xff\xfe").decode("utf-16-le").encode(), data)


def _decode(data: bytes, name: str) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # PowerShell's `>` writes UTF-16
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(f"{name}: not readable text (broken UTF-16)") from None
    if b"\x00" in data and len(data) >= 4 and data[1::2].count(0) * 10 > len(data) * 4:  # UTF-16-LE, no BOM
        try:
            return data.decode("utf-16-le")
        except UnicodeDecodeError:
            pass
    if b"\x00" in data:
        data = _utf16_runs(data)  # PowerShell's `>>` appends UTF-16 to a UTF-8 file
    if b"\x00" in data:
        raise InputError(f"{name}: binary data, not a report (it contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    bad = text.count("\ufffd")
    ascii_bytes = len(data) - sum(1 for byte in data if byte >= 0x80)
    if bad > max(8, len(text) // 100) and ascii_bytes * 10 < len(data) * 9:  # mostly ASCII: mixed encodings
        raise InputError(f"{name}: binary data or an unknown encoding, not a report ({bad} undecodable bytes)")
    return text


def read_input(path: str) -> Tuple[str, str]:
    """The text of ``path`` (or standard input for ``-``) and a name for messages."""
    if path == "-":
        name = "standard input"
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read(MAX_BYTES + 1) if stream is not None else sys.stdin.read(MAX_BYTES + 1).encode()
    else:
        name = path
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a file")
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as exc:
            raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{name}: larger than {MAX_BYTES // (1024 * 1024)} MB, too large for a report")
    return _decode(data, name), name


def _with_source(facts: Facts, source: Source) -> Facts:
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


def _load_json(text: str, name: str) -> Facts:
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
    return _from_data(data, name)


def _is_report(data: Any) -> bool:
    return isinstance(data, dict) and "results" in data and "facts" in data


def _is_facts(data: Any) -> bool:
    return isinstance(data, dict) and ("meta" in data or "platform" in data)


def _from_data(data: Any, name: str) -> Facts:
    """Facts from a decoded JSON object: a report's facts or the facts themselves."""
    if _is_report(data):
        from gpudoctor.model import REPORT_SCHEMA

        schema = data.get("schema", 1)
        if isinstance(schema, int) and not isinstance(schema, bool) and schema > REPORT_SCHEMA:
            raise InputError(
                f"{name}: report schema {schema} is newer than this gpudoctor understands "
                f"({REPORT_SCHEMA}); upgrade gpudoctor to read it"
            )
        return _with_source(_facts_from(data["facts"], name, "the report's facts"), Source.REPORT)
    if _is_facts(data):
        return _with_source(_facts_from(data, name, "facts"), Source.FACTS)
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


def _bare_json(text: str, tries: int = 8) -> Optional[Any]:
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


def _load_markdown(text: str, name: str) -> Facts:
    blocks = _embedded(text, name)
    if not blocks:
        data = _bare_json(text)
        if data is None:
            raise InputError(
                f"{name}: a gpudoctor markdown report without its embedded facts; paste the whole "
                "report including the <details> facts block, or run `gpudoctor facts`"
            )
        facts = _from_data(data, name)
        return _with_source(facts, Source.MARKDOWN)
    if len(set(b.strip() for b in blocks)) > 1:
        raise InputError(f"{name}: holds {len(blocks)} different gpudoctor reports; diagnose one at a time")
    try:
        data = json.loads(blocks[0])
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{name}: the embedded facts are not valid JSON ({exc.msg}: line {exc.lineno} of the block)"
        ) from None
    return _with_source(_facts_from(data, name, "embedded facts"), Source.MARKDOWN)


def _describe_unknown(text: str) -> str:
    if re.search(r"^[\s>]*gpudoctor \d+\.\d+\S* \(facts ", text, re.M):
        return "gpudoctor's terminal output, which carries no facts; paste `gpudoctor check --format markdown` instead"
    if "Traceback (most recent call last)" in text:
        return "a Python traceback, not an environment report"
    if re.search(r"^(Collecting|Requirement already satisfied|Successfully installed|ERROR: )", text, re.M):
        return "a pip log, not an environment report"
    return "not gpudoctor facts, a gpudoctor report or PyTorch collect_env output"


def _load_collect_env(text: str, name: str) -> Optional[Facts]:
    """Facts parsed from collect_env text, or None when the text is not that (or no parser is installed)."""
    try:
        collect_env = importlib.import_module("gpudoctor.parsers.collect_env")
    except ImportError:
        return None
    looks = getattr(collect_env, "looks_like_collect_env", None)
    if looks is None or not looks(text):
        return None
    error = getattr(collect_env, "ParseError", ValueError)
    try:
        facts = collect_env.parse(text)
    except error as exc:
        raise InputError(f"{name}: {exc}") from None
    return _with_source(facts, Source.COLLECT_ENV)


def _parses(text: str) -> bool:
    """A text starting with '[' is JSON only when it parses: kernel logs start with '[   21.09]' too."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _load_paste(text: str, base: Optional[Facts]) -> Optional[Facts]:
    """Facts from every recognisable part of an issue body, over the collect_env report found in it."""
    try:
        paste = importlib.import_module("gpudoctor.parsers.paste")
    except ImportError:
        return None
    result = paste.read_paste(text, base, "collect_env")
    if not result.recognised:
        return None
    facts: Optional[Facts] = result.facts
    return facts


def load_facts(text: str, name: str, allow_partial: bool = True) -> Facts:
    """Facts from any input ``diagnose`` accepts, with ``meta.source`` saying which kind it was. A paste that
    speaks of the GPU stack but holds nothing readable gives facts holding only a note (``parsers.partial``),
    unless ``allow_partial`` is False (a fleet of facts files, an issue the bot would comment on): then it is
    refused like any other unreadable text."""
    text = text.lstrip("\ufeff")
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{name}: empty")
    if "\x00" in stripped:
        raise InputError(f"{name}: binary data, not a report (it contains NUL bytes)")
    if stripped.startswith("{") or (_JSON_ARRAY.match(stripped) and _parses(stripped)):
        return _load_json(text, name)
    if FACTS_MARKER in text or REPORT_TITLE.search(text):
        return _load_markdown(text, name)
    data = _bare_json(text)
    if data is not None:
        return _from_data(data, name)
    try:
        facts = _load_collect_env(text, name)
    except InputError:
        pasted = _load_paste(text, None)  # collect_env refuses (too large, cut off): read what else is there
        if pasted is None:
            raise
        return pasted
    pasted = _load_paste(text, facts)
    if pasted is not None:
        return pasted
    if facts is not None:
        return facts
    what = _describe_unknown(text)
    if what.startswith("gpudoctor's"):
        raise InputError(f"{name}: {what}")
    partial = partial_facts(text) if allow_partial else None
    if partial is not None:
        return partial
    raise InputError(f"{name}: {what}; run `python -m torch.utils.collect_env` or `gpudoctor facts` and diagnose that")
