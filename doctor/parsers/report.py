"""Loads the input of ``gpudoctor diagnose``: facts JSON, a JSON report, a markdown report or collect_env text."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from typing import Optional, Tuple

from gpudoctor.facts import Facts, Source
from gpudoctor.facts.codec import FACTS_MARKER
from gpudoctor.parsers.decode import InputError as InputError
from gpudoctor.parsers.decode import decode_text
from gpudoctor.parsers.own_formats import bare_json, from_data, load_json, load_markdown, with_source
from gpudoctor.parsers.partial import partial_facts

MAX_BYTES = 10 * 1024 * 1024
REPORT_TITLE = re.compile(r"^[\s>]*#+\s*gpudoctor report\s*$", re.M)
_JSON_ARRAY = re.compile(r"\[\s*(?:[\[{\"\]\d-]|$)")  # not "[Bug]: ..." or "[pip3] torch"
_decode = decode_text  # the pipe reader (gpudoctor.inputs) decodes through this module too


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
    return with_source(facts, Source.COLLECT_ENV)


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
        return load_json(text, name)
    if FACTS_MARKER in text or REPORT_TITLE.search(text):
        return load_markdown(text, name)
    data = bare_json(text)
    if data is not None:
        return from_data(data, name)
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
