"""The policies the command line and the Python API share: fail-on levels, the redaction default, check selection."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor import app
from gpudoctor.errors import UserError
from gpudoctor.model import Severity
from gpudoctor.render import Format


def test_every_fail_on_level_names_its_severity() -> None:
    assert {level.value: level.threshold for level in app.FailOn} == {
        "error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "never": None}
    assert app.FAIL_ON == ("error", "warning", "info", "never")  # the order --help lists them in


@pytest.mark.parametrize("redact,fmt,expected", [
    (None, Format.TERMINAL, False), (None, Format.MARKDOWN, True), (None, Format.JSON, True),
    (True, Format.TERMINAL, True), (False, Format.JSON, False),
])
def test_reports_meant_to_be_shared_are_redacted_by_default(redact: object, fmt: Format, expected: bool) -> None:
    assert app.redacts(redact, fmt) is expected  # type: ignore[arg-type]


def test_the_output_format_follows_json_then_format_then_the_file_suffix() -> None:
    assert app.Output().format() is Format.TERMINAL
    assert app.Output(output="report.md").format() is Format.MARKDOWN
    assert app.Output(fmt="markdown", output="report.json").format() is Format.MARKDOWN
    assert app.Output(json_format=True, output="report.md").format() is Format.JSON


def test_a_selection_narrows_the_checks_by_id_prefix() -> None:
    chosen = app.choose_checks(app.Selection(plugins=False, select=("driver",), ignore=("driver.uvm",)))
    ids = [c.id for c in chosen.checks]
    assert ids and all(i == "driver" or i.startswith("driver.") for i in ids)
    assert "driver.uvm" not in ids and "driver.nouveau" in ids


def test_a_select_pattern_that_names_no_check_is_a_user_error() -> None:
    with pytest.raises(app.UnknownCheck) as caught:
        app.choose_checks(app.Selection(plugins=False, select=("nosuch",)))
    assert isinstance(caught.value, UserError)
    assert str(caught.value) == "--select nosuch: no check has that id or id prefix (see `gpudoctor checks`)"


def test_an_ignore_pattern_that_names_no_check_only_warns() -> None:
    warnings: List[str] = []
    chosen = app.choose_checks(app.Selection(plugins=False, ignore=("nosuch",)), warnings.append)
    assert chosen.checks
    assert warnings == ["warning: --ignore nosuch: no check has that id or id prefix"]


def test_contradicting_output_options_fail_before_any_probing() -> None:
    with pytest.raises(UserError, match="--json and --format markdown contradict"):
        app.prepare(app.Output(fmt="markdown", json_format=True), app.Selection(plugins=False))
