"""Report input: every format diagnose reads, and every kind of bad input as a one-line InputError."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import sys
import types
from pathlib import Path

import pytest

from gpudoctor.facts import Facts, Meta, PlatformFacts
from gpudoctor.model import Report
from gpudoctor.parsers import report as loader
from gpudoctor.parsers.report import InputError, load_facts, read_input
from gpudoctor.render.json import render_json
from gpudoctor.render.markdown import render_markdown

FACTS = Facts(
    meta=Meta(gpudoctor_version="0.1.0", created="2025-06-01T12:00:00Z"),
    platform=PlatformFacts(system="Linux", python_version="3.11.9", python_executable="/opt/venv/bin/python"),
    extra=(("note", "a ``` fence and a > quote inside a value"),),
)


def as_source(source: str) -> Facts:
    return dataclasses.replace(FACTS, meta=dataclasses.replace(FACTS.meta, source=source))


def markdown() -> str:
    return render_markdown(Report(facts=FACTS))


def error(text: str, name: str = "in.txt") -> str:
    with pytest.raises(InputError) as info:
        load_facts(text, name)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_facts_json() -> None:
    assert load_facts(FACTS.to_json(), "f.json") == as_source("facts")


def test_json_report() -> None:
    assert load_facts(render_json(Report(facts=FACTS)), "r.json") == as_source("report")


def test_markdown_report() -> None:
    assert load_facts(markdown(), "r.md") == as_source("markdown")


def test_markdown_with_windows_line_endings() -> None:
    assert load_facts(markdown().replace("\n", "\r\n"), "r.md") == as_source("markdown")


@pytest.mark.parametrize("prefix", ["> ", ">", "> > ", "    "], ids=["quoted", "tight", "nested", "indented"])
def test_markdown_quoted_or_indented(prefix: str) -> None:
    text = "".join(prefix + line + "\n" for line in markdown().splitlines())
    assert load_facts(text, "r.md") == as_source("markdown")


def test_markdown_wrapped_in_another_fence() -> None:
    text = "My report:\n\n```markdown\n" + markdown() + "```\n\nthanks!\n"
    assert load_facts(text, "issue.md") == as_source("markdown")


def test_markdown_copied_from_the_rendered_page() -> None:
    rendered = re.sub(r"^(`{3,}\w*|<!-- gpudoctor-facts -->|</details>)\n", "", markdown(), flags=re.M)
    rendered = rendered.replace("<details><summary>facts</summary>", "facts")
    assert rendered.endswith('    ]\n  ],\n  "probe_errors": [],\n  "inferred": []\n}\n\n')
    assert load_facts(rendered, "issue.md") == as_source("markdown")


def test_the_same_report_pasted_twice_is_read_once() -> None:
    assert load_facts(markdown() + "\n" + markdown(), "r.md") == as_source("markdown")


def test_two_different_reports() -> None:
    other = render_markdown(Report(facts=Facts()))
    assert error(markdown() + other) == "in.txt: holds 2 different gpudoctor reports; diagnose one at a time"


def test_markdown_without_facts() -> None:
    body = markdown().split("<details>", 1)[0]
    assert error(body) == (
        "in.txt: a gpudoctor markdown report without its embedded facts; paste the whole report including "
        "the <details> facts block, or run `gpudoctor facts`"
    )


def test_markdown_cut_off_inside_the_facts() -> None:
    text = markdown()
    assert error(text[: len(text) // 2 + 600]) == (
        "in.txt: the embedded facts are cut off (the JSON block never ends)"
    )


def test_markdown_marker_without_a_block() -> None:
    assert error("## gpudoctor report\n\n<!-- gpudoctor-facts -->\nnothing here\n") == (
        "in.txt: the facts marker is not followed by a fenced JSON block"
    )


def test_markdown_with_broken_embedded_json() -> None:
    text = markdown().replace('"schema": 1,', '"schema": 1', 1)
    assert error(text) == (
        "in.txt: the embedded facts are not valid JSON (Expecting ',' delimiter: line 4 of the block)"
    )


@pytest.mark.parametrize("text", ["", "   \n\t\n", "\ufeff"], ids=["empty", "blank", "bom"])
def test_empty(text: str) -> None:
    assert error(text) == "in.txt: empty"


def test_nul_bytes() -> None:
    assert error("abc\x00def") == "in.txt: binary data, not a report (it contains NUL bytes)"


def test_truncated_json() -> None:
    cut = '{\n  "meta": {\n    "schema": 1,\n    "gpudoctor_version": "0.'
    assert error(cut) == (
        "in.txt: not valid JSON (Unterminated string starting at: line 4 column 26); the file looks cut off"
    )


def test_truncated_json_at_a_line_end() -> None:
    assert error('{\n  "meta": {\n') == (
        "in.txt: not valid JSON (Expecting property name enclosed in double quotes: line 3 column 1); "
        "the file looks cut off"
    )


def test_malformed_json() -> None:
    assert error('{"meta": {}, oops}') == (
        "in.txt: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 14)"
    )


def test_two_json_documents() -> None:
    assert error(FACTS.to_json() + FACTS.to_json()) == (
        "in.txt: more than one JSON document; diagnose one at a time"
    )


def test_json_of_another_shape() -> None:
    assert error("[1, 2]") == "in.txt: JSON list, not gpudoctor facts or a report"
    assert error('{"name": "x"}') == "in.txt: JSON without 'meta' or 'facts': not gpudoctor facts or a report"


def test_facts_of_the_wrong_types() -> None:
    assert error('{"meta": {}, "gpus": 3}') == "in.txt: facts: facts.gpus must be a list, got int"


def test_newer_facts_schema() -> None:
    assert error('{"meta": {"schema": 99}}') == (
        "in.txt: facts: facts schema 99 is newer than this gpudoctor understands (1); upgrade gpudoctor to read it"
    )


def test_newer_report_schema() -> None:
    text = json.dumps({"schema": 7, "facts": {}, "results": []})
    assert error(text) == (
        "in.txt: report schema 7 is newer than this gpudoctor understands (1); upgrade gpudoctor to read it"
    )


def test_newer_facts_inside_a_markdown_report() -> None:
    text = markdown().replace('"schema": 1,', '"schema": 2,', 1)
    assert error(text) == (
        "in.txt: embedded facts: facts schema 2 is newer than this gpudoctor understands (1); "
        "upgrade gpudoctor to read it"
    )


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Collecting requests\n  Downloading requests-2.32.3-py3-none-any.whl\nSuccessfully installed requests-2.32.3\n",
         "a pip log, not an environment report"),
        ("hello, the soup is cold\n", "not gpudoctor facts, a gpudoctor report or PyTorch collect_env output"),
    ],
    ids=["pip-log", "prose"],
)
def test_unknown_text(monkeypatch: pytest.MonkeyPatch, text: str, what: str) -> None:
    monkeypatch.setitem(sys.modules, "gpudoctor.parsers.collect_env", None)
    assert error(text) == f"in.txt: {what}; run `python -m torch.utils.collect_env` or `gpudoctor facts` and diagnose that"


def test_terminal_output_carries_no_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor.render.terminal import render_terminal

    monkeypatch.setitem(sys.modules, "gpudoctor.parsers.collect_env", None)
    assert error(render_terminal(Report(facts=FACTS))) == (
        "in.txt: gpudoctor's terminal output, which carries no facts; paste `gpudoctor check --format markdown` "
        "instead"
    )


class FakeParseError(ValueError):
    pass


def _fake_collect_env(monkeypatch: pytest.MonkeyPatch, parse) -> None:
    module = types.ModuleType("gpudoctor.parsers.collect_env")
    module.looks_like_collect_env = lambda text: text.startswith("Collecting environment information")
    module.parse = parse
    module.ParseError = FakeParseError
    monkeypatch.setitem(sys.modules, "gpudoctor.parsers.collect_env", module)


def test_collect_env_is_delegated(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_collect_env(monkeypatch, lambda text: Facts(platform=PlatformFacts(system="Linux")))
    facts = load_facts("Collecting environment information...\nPyTorch version: 2.6.0\n", "paste.txt")
    assert facts == Facts(meta=Meta(source="collect_env"), platform=PlatformFacts(system="Linux"))


def test_collect_env_parse_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse(text: str) -> Facts:
        raise FakeParseError("no field could be read")

    _fake_collect_env(monkeypatch, parse)
    assert error("Collecting environment information...\n") == "in.txt: no field could be read"


def test_collect_env_is_not_asked_about_gpudoctor_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_collect_env(monkeypatch, lambda text: pytest.fail("parsed a gpudoctor report as collect_env"))
    assert load_facts(markdown(), "r.md") == as_source("markdown")


# read_input


def test_read_file(tmp_path: Path) -> None:
    path = tmp_path / "r.md"
    path.write_text(markdown(), encoding="utf-8")
    assert read_input(str(path)) == (markdown(), str(path))


def test_read_utf16_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "ps.txt"
    path.write_bytes("PyTorch version: 2.6.0\n".encode("utf-16"))
    assert read_input(str(path)) == ("PyTorch version: 2.6.0\n", str(path))


def test_read_utf16_without_bom(tmp_path: Path) -> None:
    path = tmp_path / "ps.txt"
    path.write_bytes("PyTorch version: 2.6.0\n".encode("utf-16-le"))
    assert read_input(str(path)) == ("PyTorch version: 2.6.0\n", str(path))


def test_read_utf8_with_bom_and_a_stray_latin1_byte(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"\xef\xbb\xbfcaf\xe9 ok\n")
    assert read_input(str(path)) == ("caf\ufffd ok\n", str(path))


def test_read_missing_file() -> None:
    with pytest.raises(InputError, match=r"^nope\.json: no such file$"):
        read_input("nope.json")


def test_read_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_input(str(tmp_path))
    assert str(info.value) == f"{tmp_path}: is a directory, not a file"


def test_read_binary_garbage(tmp_path: Path) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InputError) as info:
        read_input(str(path))
    assert str(info.value) == f"{path}: binary data, not a report (it contains NUL bytes)"


def test_read_undecodable_bytes_without_nul(tmp_path: Path) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(128, 256)) * 4)
    with pytest.raises(InputError) as info:
        read_input(str(path))
    assert str(info.value) == f"{path}: binary data or an unknown encoding, not a report (512 undecodable bytes)"


def test_read_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "MAX_BYTES", 1024 * 1024)
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * (1024 * 1024 + 1))
    with pytest.raises(InputError) as info:
        read_input(str(path))
    assert str(info.value) == f"{path}: larger than 1 MB, too large for a report"


def test_read_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.json"
    path.write_text("{}")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(loader, "open", denied, raising=False)
    with pytest.raises(InputError) as info:
        read_input(str(path))
    assert str(info.value) == f"{path}: cannot read it (Permission denied)"


def test_read_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FACTS.to_json().encode())))
    assert read_input("-") == (FACTS.to_json(), "standard input")


SCENARIOS = sorted((Path(__file__).resolve().parent / "scenarios").glob("*.json"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_markdown_round_trip_gives_the_same_results_with_the_builtin_checks(path: Path) -> None:
    from gpudoctor.redact import Identity, redact
    from gpudoctor.registry import discover
    from gpudoctor.runner import run_checks

    catalogue = discover(plugins=False)
    facts = redact(load_facts(path.read_text(encoding="utf-8"), path.name), Identity())
    report = run_checks(catalogue, facts)
    again = load_facts(render_markdown(report), "pasted.md")
    assert again == dataclasses.replace(facts, meta=dataclasses.replace(facts.meta, source="markdown"))
    assert run_checks(catalogue, again).results == report.results


def test_facts_pasted_in_a_fence_inside_an_issue() -> None:
    text = "My setup:\n\n```json\n" + FACTS.to_json() + "\n```\n\nAny idea?\n"
    assert load_facts(text, "issue.md") == as_source("facts")


def test_json_report_quoted_in_a_reply() -> None:
    text = "> Here is the report:\n> ```json\n" + "".join(
        "> " + line + "\n" for line in render_json(Report(facts=FACTS)).splitlines()
    ) + "> ```\n"
    assert load_facts(text, "reply.md") == as_source("report")
