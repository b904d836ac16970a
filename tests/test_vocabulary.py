"""Closed sets that facts spell as strings: enum members keep the strings, and unknown names pass through."""

from __future__ import annotations

import json
from typing import Any, Optional, Tuple

from gpudoctor.facts import DriverFacts, FabricManager, Facts, Meta, NvmlError, Source
from gpudoctor.model import Report
from gpudoctor.probes.nvml import classify, init_reason, probe_nvml
from gpudoctor.render.common import SOURCES, describe_source
from gpudoctor.facts.verify import FailureKind, VerifyFacts, WorkerFailure


def test_parse_finds_members_by_their_strings_and_nothing_else() -> None:
    assert Source.parse("collect_env") is Source.COLLECT_ENV
    assert NvmlError.parse("version_mismatch") is NvmlError.VERSION_MISMATCH
    assert Source.parse("COLLECT_ENV") is None
    assert Source.parse(None) is None
    assert NvmlError.parse("a-name-from-a-later-version") is None


def test_facts_keep_the_strings_and_names_this_version_does_not_know() -> None:
    data = Facts(meta=Meta(source="somewhere-new"), driver=DriverFacts(nvml_error="gpu_lost")).to_dict()
    assert data["meta"]["source"] == "somewhere-new" and data["driver"]["nvml_error"] == "gpu_lost"
    again = Facts.from_dict(json.loads(json.dumps(data)))
    assert again.to_dict() == data
    assert again.driver.nvml_failure is None
    live = Facts().to_dict()
    assert live["meta"]["source"] == "live" and type(live["meta"]["source"]) is str


def test_every_source_has_a_phrase_and_an_unknown_one_is_shown_as_it_is() -> None:
    assert set(SOURCES) == set(Source)
    assert describe_source(Report(Facts(meta=Meta(source="collect_env")), ())).startswith(
        "facts parsed from PyTorch collect_env output")
    assert describe_source(Report(Facts(meta=Meta(source="elsewhere")), ())).startswith("facts elsewhere")


class _Init(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"code {value}")
        self.value = value


class _Binding:
    def __init__(self, code: int) -> None:
        self.code = code

    def nvmlInit(self) -> None:
        raise _Init(self.code)


def test_nvml_init_failures_are_classified_into_members_and_stored_as_their_strings() -> None:
    assert classify(_Init(9)) is NvmlError.DRIVER_NOT_LOADED
    assert classify(_Init(999)) is NvmlError.OTHER
    result = probe_nvml(_Binding(18))
    assert result.driver.nvml_error == "version_mismatch" and type(result.driver.nvml_error) is str
    assert result.driver.nvml_failure is NvmlError.VERSION_MISMATCH
    reasons = {init_reason(kind, "boom") for kind in NvmlError}
    assert len(reasons) == len(NvmlError) and "NVML could not initialise: boom" in reasons


def test_every_worker_failure_kind_has_its_words_and_an_unknown_one_gets_the_general_finding() -> None:
    from gpudoctor.checks import verify as verify_checks

    assert set(verify_checks._OBSERVED) == set(FailureKind) - {FailureKind.DATA}  # data failures have their own
    assert set(verify_checks._CODES) <= set(FailureKind) and set(verify_checks._WORKER_FIXES) <= set(FailureKind)
    failures = (WorkerFailure("cuda:0", "crashed", "was killed by signal 11"),
                WorkerFailure("cuda:1", "melted", "stopped in a way this version has no name for"))
    findings = list(verify_checks.worker.run(Facts(verify=VerifyFacts(python="python", failures=failures))))
    assert [f.code for f in findings] == ["verify.worker-crashed", "verify.worker-failed"]
    assert [f.detail.partition(";")[0] for f in findings] == [
        "observed: it was killed by a signal", "observed: it stopped early"]


def test_the_launcher_names_its_verdicts_with_failure_kinds() -> None:
    from gpudoctor.probes.verify.launch import Outcome

    assert FailureKind.parse(Outcome(timed_out=True).failure_kind()) is FailureKind.TIMEOUT
    assert FailureKind.parse(Outcome(returncode=-11).failure_kind()) is FailureKind.CRASHED
    assert FailureKind.parse(Outcome(returncode=3).failure_kind()) is FailureKind.EXITED
    assert FailureKind.parse(Outcome(returncode=0, garbage=["x"]).failure_kind()) is FailureKind.GARBAGE
    assert Outcome(records=[{"event": "fatal", "kind": "data"}]).failure_kind() == "data"
    assert Outcome(records=[{"event": "done"}]).failure_kind() is None


def test_fail_on_levels_are_the_command_line_choices_and_map_to_severities() -> None:
    from gpudoctor import api, app, cli
    from gpudoctor.model import FailOn, Severity

    assert cli.FAIL_ON == tuple(level.value for level in FailOn)
    assert {level: level.threshold for level in FailOn} == {
        FailOn.ERROR: Severity.ERROR, FailOn.WARNING: Severity.WARNING, FailOn.INFO: Severity.INFO, FailOn.NEVER: None}
    assert all(FailOn.at(level.threshold) is level for level in FailOn)
    assert app.FailOn is FailOn
    assert api.FAIL_ON == {"error": Severity.ERROR, "warning": Severity.WARNING,
                                                   "info": Severity.INFO, "never": None}
    assert list(api.FAIL_ON) == list(cli.FAIL_ON)  # the order the error message lists them in


def _choices(command: Any, name: str) -> Tuple[str, ...]:
    option = next(p for p in command.params if p.name == name)
    return tuple(option.type.choices)


def test_the_command_line_offers_exactly_the_output_formats_the_code_renders() -> None:
    from gpudoctor import cli
    from gpudoctor.lint.command import LINT_FORMATS, LintFormat
    from gpudoctor.render import Format

    assert cli.FORMATS == tuple(f.value for f in Format) == _choices(cli.check, "fmt")
    assert _choices(cli.lint, "fmt") == LINT_FORMATS == tuple(f.value for f in LintFormat)


def test_tables_keyed_by_an_enum_cover_every_member() -> None:
    from gpudoctor.fleet import traits
    from gpudoctor.model import _SEVERITY_RANK, Severity, Status
    from gpudoctor.render import common, terminal

    assert set(common.MARKS) == set(terminal.STATUS_STYLES) == set(Status)
    assert set(common.SEVERITY_MARKS) == set(terminal.SEVERITY_STYLES) == set(_SEVERITY_RANK) == set(Severity)
    assert set(traits._LABELS) == set(traits.Trait)


def test_the_fabric_manager_state_is_read_into_its_members_strings() -> None:
    from gpudoctor.probes.command import CommandResult
    from gpudoctor.probes.linux import _fabric_manager

    def runner(active: str, load: str = "loaded") -> Any:
        def run(argv: Any, timeout: float) -> Any:
            return CommandResult(tuple(argv), 0, f"LoadState={load}\nActiveState={active}\n")
        return run

    def find(name: str) -> Optional[str]:
        return "/usr/bin/systemctl" if name == "systemctl" else None

    states = [_fabric_manager(runner(active, load), find)[0]
              for active, load in (("active", "loaded"), ("failed", "loaded"), ("inactive", "not-found"))]
    assert states == ["running", "stopped", "missing"]
    assert [FabricManager.parse(s) for s in states] == [FabricManager.RUNNING, FabricManager.STOPPED,
                                                         FabricManager.MISSING]
