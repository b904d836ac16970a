"""`diagnose --github-event`: recorded issues/issue_comment payloads in, the Markdown comment out, no network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.github_event import EventError, read_event

EVENTS = Path(__file__).parent / "fixtures" / "github"


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["diagnose", *args])


def test_a_new_issue_gets_the_answer_and_the_folded_report() -> None:
    result = _run("--github-event", str(EVENTS / "issue-opened.json"))
    assert result.exit_code == 0
    out = result.output
    assert out.startswith("## Diagnosis\n")
    assert "[torch.cpu-build-on-gpu\\]" in out
    assert "line 7: 2.5.1+cpu False" in out
    assert "GPU-0a1b2c3d" not in out  # redacted before the checks ran
    assert "<details><summary>All checks gpudoctor ran on this issue</summary>" in out


def test_a_comment_is_read_instead_of_the_issue_body() -> None:
    result = _run("--github-event", str(EVENTS / "comment-created.json"))
    assert result.exit_code == 0 and "paste.driver-too-old" in result.output


@pytest.mark.parametrize("name", ["issue-feature-request.json", "comment-by-bot.json"])
def test_quiet_when_there_is_nothing_to_answer(name: str, tmp_path: Path) -> None:
    out = tmp_path / "comment.md"
    result = _run("--github-event", str(EVENTS / name), "-o", str(out))
    assert result.exit_code == 0 and not out.exists()
    assert result.stdout == ""


def test_other_actions_are_ignored(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text('{"action": "labeled", "issue": {"number": 1, "body": "Torch not compiled with CUDA enabled"}}')
    assert read_event(str(event)) is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a GitHub event (invalid JSON"),
        ('{"action": "opened", "pull_request": {}}', "not an issues or issue_comment event"),
    ],
)
def test_bad_events_are_one_line_errors(tmp_path: Path, content: str, message: str) -> None:
    event = tmp_path / "event.json"
    event.write_text(content)
    with pytest.raises(EventError, match=re.escape(message)):
        read_event(str(event))
    result = _run("--github-event", str(event))
    assert result.exit_code == 2 and message in result.output


def test_file_and_event_are_exclusive() -> None:
    result = _run(str(EVENTS / "issue-opened.json"), "--github-event", str(EVENTS / "issue-opened.json"))
    assert result.exit_code == 2 and "give one of FILE" in result.output


def test_the_action_never_puts_issue_text_on_a_command_line() -> None:
    action = (Path(__file__).parent.parent / "action.yml").read_text(encoding="utf-8")
    assert "--github-event \"$GITHUB_EVENT_PATH\"" in action
    assert "github.event.issue.body" not in action and "github.event.comment.body" not in action
    assert "github.event.issue.title" not in action
    spliced = [line for line in action.splitlines()
               if "${{" in line and not re.match(r"^\s+(?!run:)[\w-]+: \$\{\{[^}]*\}\}$", line)]
    assert spliced == []  # expressions reach the shell only through env:, never spliced into a script
