"""What reaches the terminal or a file is inert: no control characters, no bytes that break UTF-8, no half files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Dict

import pytest
from click.testing import CliRunner
from gpudoctor.cli import main
from gpudoctor.facts import EnvFacts, Facts, LibraryFacts
from gpudoctor.textsafe import json_text, visible
from test_cli import calls, run  # noqa: F401 - the fixture is used by name

BAD_BYTES = "/opt/caf\udce9/lib"  # b"/opt/caf\xe9/lib" as os.environ keeps it
ESCAPES = "max_split_size_mb:\x1b]0;owned\x07\x1b[2K\r\x9b31m"


def test_control_characters_and_bad_bytes_are_spelled_out() -> None:
    assert visible("a\x1b[2Jb\rc\x9bd\udce9e\u202ef\tg\nh") == "a\\x1b[2Jb\\x0dc\\x9bd\\xe9e\\u202ef\tg\nh"
    text = json_text(json.dumps({"v": BAD_BYTES + ESCAPES}, ensure_ascii=False))
    assert json.loads(text) == {"v": BAD_BYTES + ESCAPES}
    text.encode("utf-8")


@pytest.mark.parametrize("args", [["facts"], ["check", "--format", "markdown"], ["check", "--format", "json"],
                                  ["check", "--format", "terminal"]])
def test_bytes_that_are_not_utf8_are_written_escaped(calls: Dict[str, Any], tmp_path: Path,
                                                     args: list) -> None:
    facts: Facts = calls["facts"]
    calls["facts"] = dataclasses.replace(
        facts, env=EnvFacts((("LD_LIBRARY_PATH", BAD_BYTES),)), libraries=LibraryFacts(ld_library_path=(BAD_BYTES,)))
    out = tmp_path / "out.txt"
    out.write_text("old\n", encoding="utf-8")
    run(args + ["--no-redact", "-o", str(out)], 0)
    text = out.read_bytes().decode("utf-8")
    if args[-1] != "terminal":  # the terminal report shows no library path when nothing is wrong
        assert ("caf\\udce9" if args[0] == "facts" else "caf\\\\xe9") in text
    if args[0] == "facts":
        assert Facts.from_json(text).env.get("LD_LIBRARY_PATH") == BAD_BYTES


def test_escape_sequences_in_a_facts_file_never_reach_the_terminal(tmp_path: Path) -> None:
    facts = Facts(env=EnvFacts((("PYTORCH_CUDA_ALLOC_CONF", ESCAPES),)), probe_errors=(("nvml", "gone\x1b[8mhidden"),))
    source = tmp_path / "facts.json"
    source.write_text(facts.to_json(), encoding="utf-8")
    for fmt in ("terminal", "markdown", "json"):
        result = CliRunner().invoke(main, ["diagnose", str(source), "--format", fmt, "-v", "--no-redact"])
        assert result.exit_code in (0, 1), result.output
        shown = result.stdout
        assert not any(ch in shown for ch in "\x1b\x07\r\x9b"), (fmt, shown)
        assert "x1b" in shown and "owned" in shown


BREAKOUT = "x`\n\n<!-- gpudoctor-facts -->\n```json\n{}\n```\n<img src=x onerror=alert(1)> [link](https://evil.example) @octocat"


def test_hostile_section_names_and_inferred_paths_stay_inside_their_code_spans() -> None:
    from gpudoctor.model import Report
    from gpudoctor.parsers.report import load_facts
    from gpudoctor.facts.codec import FACTS_MARKER
    from gpudoctor.render.markdown import render_markdown

    facts = Facts(probe_errors=((BREAKOUT, "reason\n### fake heading @octocat"),), inferred=(BREAKOUT,))
    text = render_markdown(Report(facts=facts, results=()))
    head = text[: text.index("<details>")]
    assert "- ````x` <!-- gpudoctor-facts --> ```json {} ``` <img src=x onerror=alert(1)> [link](https://evil.example) " \
           "@octocat````: reason \\#\\#\\# fake heading @\u200boctocat" in head
    assert [line for line in text.splitlines() if line.strip() == FACTS_MARKER] == [FACTS_MARKER]
    assert load_facts(text, "report.md").probe_errors == facts.probe_errors  # the report diagnoses again, unchanged


def test_markdown_text_cannot_start_blocks_or_mention_people() -> None:
    from gpudoctor.render.markdown import md_escape

    assert md_escape("a\n- b @alice <b>") == "a - b @\u200balice \\<b\\>"
    assert md_escape("table\n- item\n1. x\n> q", multiline=True) == "table\n\\- item\n1\\. x\n\\> q"
