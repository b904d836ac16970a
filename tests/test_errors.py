"""Every error that means "bad input or options" derives from one UserError, which the CLI prints as one line, exit 2."""

from __future__ import annotations

import importlib

import pytest
from click.testing import CliRunner

from gpudoctor.errors import EXIT_USAGE, UserError

USER_ERRORS = (
    ("gpudoctor.parsers.report", "InputError"),
    ("gpudoctor.parsers.collect_env", "ParseError"),
    ("gpudoctor.probes.python", "PythonError"),
    ("gpudoctor.probes.verify.runner", "VerifyInputError"),
    ("gpudoctor.probes.verify.fetch", "DataUnavailable"),
    ("gpudoctor.facts.codec", "FactsError"),
    ("gpudoctor.facts", "FactsError"),
    ("gpudoctor.render.console", "OutputError"),
    ("gpudoctor.examples", "UnknownExample"),
    ("gpudoctor.mcp_server", "MissingExtra"),
    ("gpudoctor.github_event", "EventError"),
    ("gpudoctor.inputs", "PipeError"),
    ("gpudoctor.fleet.naming", "NodeNameError"),
    ("gpudoctor.lint.registry", "SelectionError"),
    ("gpudoctor.lint.sources", "SourceError"),
    ("gpudoctor.api", "SelectionError"),
    ("gpudoctor.compat.refresh", "RefreshError"),
)
STILL_VALUE_ERRORS = {"InputError", "ParseError", "VerifyInputError", "FactsError", "OutputError", "UnknownExample",
                      "EventError", "PipeError", "NodeNameError", "SelectionError"}


@pytest.mark.parametrize("module,name", USER_ERRORS)
def test_each_user_facing_error_is_a_user_error(module: str, name: str) -> None:
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, UserError)
    if name in STILL_VALUE_ERRORS:
        assert issubclass(cls, ValueError)  # callers that caught ValueError still do


def test_the_cli_prints_any_user_error_as_one_line_and_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor import cli, registry

    class Odd(UserError):
        pass

    def refuse(**_: object) -> None:
        raise Odd("first line\n   second   line")

    monkeypatch.setattr(registry, "discover", refuse)
    result = CliRunner().invoke(cli.main, ["checks"])
    assert result.exit_code == EXIT_USAGE
    assert result.output.strip().splitlines()[-1] == "error: first line second line"
    assert "Traceback" not in result.output


def test_an_unexpected_error_is_not_taken_for_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor import cli, registry

    def crash(**_: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(registry, "discover", crash)
    monkeypatch.delenv("GPUDOCTOR_DEBUG", raising=False)
    result = CliRunner().invoke(cli.main, ["checks"])
    assert result.exit_code == EXIT_USAGE
    assert "failed unexpectedly (KeyError" in result.output
