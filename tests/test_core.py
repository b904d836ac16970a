"""Facts as a file format, the check registry and the runner's handling of skips and crashes."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Iterator

import pytest

from gpudoctor.facts import SCHEMA_VERSION, Facts, FactsError, Gpu, Meta, TorchFacts
from gpudoctor.model import CheckResult, Finding, Fix, Report, Severity, Status
from gpudoctor.registry import Catalogue, Check, check, discover, need, skip
from gpudoctor.runner import run_check, run_checks

# ---------------------------------------------------------------- facts


def sample_facts() -> Facts:
    return Facts(
        gpus=(Gpu(index=0, name="NVIDIA H100 80GB HBM3", compute_capability=(9, 0), memory_total_mib=81559),),
        torch=TorchFacts(installed=True, version="2.14.1+cu130", arch_flags=("sm_90", "sm_100")),
        probe_errors=(("driver", "NVML library not found"),),
        inferred=("torch.arch_flags",),
    )


def test_round_trip_is_identity() -> None:
    facts = sample_facts()
    assert Facts.from_json(facts.to_json()) == facts


def test_tuples_and_nested_dataclasses_serialise_as_json_lists_and_objects() -> None:
    data = json.loads(sample_facts().to_json())
    assert data["gpus"][0]["compute_capability"] == [9, 0]
    assert data["torch"]["arch_flags"] == ["sm_90", "sm_100"]
    assert data["probe_errors"] == [["driver", "NVML library not found"]]
    assert data["meta"]["schema"] == SCHEMA_VERSION


def test_older_file_with_missing_keys_loads_with_defaults() -> None:
    facts = Facts.from_json('{"meta": {"schema": 1}, "torch": {"version": "2.1.0+cu121"}}')
    assert facts.torch.version == "2.1.0+cu121"
    assert facts.torch.installed is None
    assert facts.gpus == ()


def test_unknown_keys_are_ignored() -> None:
    facts = Facts.from_json('{"torch": {"version": "2.1.0", "future_field": 3}, "future_section": {}}')
    assert facts.torch.version == "2.1.0"


def test_newer_schema_is_a_clear_error() -> None:
    with pytest.raises(FactsError) as err:
        Facts.from_json(json.dumps({"meta": {"schema": SCHEMA_VERSION + 1}}))
    assert str(err.value) == (
        f"facts schema {SCHEMA_VERSION + 1} is newer than this gpudoctor understands ({SCHEMA_VERSION}); "
        "upgrade gpudoctor to read it"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "not valid JSON (Expecting value at line 1 column 1)"),
        ('{"torch": {"version": ', "not valid JSON (Expecting value at line 1 column 23)"),
        ("[1, 2]", "facts must be a JSON object"),
        ('{"torch": []}', "facts.torch must be an object, got list"),
        ('{"gpus": [{"index": "zero"}]}', "facts.gpus[0].index must be an integer, got 'zero'"),
        ('{"gpus": [{"compute_capability": [8]}]}', "facts.gpus[0].compute_capability must have 2 items, got 1"),
        ('{"torch": {"installed": "yes"}}', "facts.torch.installed must be true or false, got 'yes'"),
        ('{"meta": {"schema": "1"}}', "facts schema must be an integer, got '1'"),
    ],
)
def test_malformed_facts_give_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(FactsError) as err:
        Facts.from_json(text)
    assert str(err.value) == message


def test_lookup_helpers() -> None:
    facts = sample_facts()
    assert facts.probe_error("driver") == "NVML library not found"
    assert facts.probe_error("torch") is None
    assert facts.is_inferred("torch.arch_flags")
    assert not facts.is_inferred("torch.version")
    assert Meta().source == "live"


# ---------------------------------------------------------------- runner

FINDING = Finding("demo.problem", Severity.WARNING, "observed 1, required 2", fix=Fix("do it", ("echo fix",)))


@check("demo.ok", "Demo passes")
def _ok(facts: Facts) -> Iterator[Finding]:
    yield from ()


@check("demo.warn", "Demo warns")
def _warn(facts: Facts) -> Iterator[Finding]:
    yield FINDING


@check("demo.need", "Demo needs the driver version")
def _need(facts: Facts) -> Iterator[Finding]:
    need(facts.driver.version, "driver.version")
    yield from ()


@check("demo.skip", "Demo skips")
def _skip(facts: Facts) -> Iterator[Finding]:
    raise skip("no NVIDIA GPU on this machine")
    yield  # pragma: no cover


@check("demo.crash", "Demo crashes")
def _crash(facts: Facts) -> Iterator[Finding]:
    raise KeyError("gpus")
    yield  # pragma: no cover


@check("demo.bad-yield", "Demo yields junk")
def _bad_yield(facts: Facts) -> Iterator[Any]:
    yield "not a finding"


def _run(c: Check) -> CheckResult:
    return run_check(c.with_source("demo-plugin 1.0"), sample_facts())


def test_statuses_from_findings_skips_and_crashes() -> None:
    assert _run(_ok).status is Status.PASS
    assert _run(_warn) == CheckResult("demo.warn", "Demo warns", "demo-plugin 1.0", Status.WARN, (FINDING,))
    assert _run(_skip).reason == "no NVIDIA GPU on this machine"
    assert _run(_skip).status is Status.SKIP


def test_need_skips_with_the_probes_reason() -> None:
    result = _run(_need)
    assert result.status is Status.SKIP
    assert result.reason == "driver.version is not known (NVML library not found)"


def test_a_crashing_check_is_a_row_naming_its_source() -> None:
    result = _run(_crash)
    assert result.status is Status.CRASH
    assert result.reason is not None
    assert result.reason.startswith("KeyError: 'gpus' at test_core.py:")
    assert result.reason.endswith("(report this to demo-plugin 1.0)")
    junk = _run(_bad_yield)
    assert junk.status is Status.CRASH
    assert junk.reason is not None and junk.reason.startswith("TypeError: yielded str, not a Finding")


def test_exit_codes_follow_fail_on() -> None:
    warn_report = run_checks(Catalogue((_ok, _warn)), sample_facts())
    assert warn_report.exit_code(Severity.ERROR) == 0
    assert warn_report.exit_code(Severity.WARNING) == 1
    assert warn_report.exit_code(None) == 0
    crash_report = run_checks(Catalogue((_crash,)), sample_facts())
    assert crash_report.exit_code(Severity.ERROR) == 1


def test_report_json_shape() -> None:
    report = run_checks(Catalogue((_warn,)), sample_facts())
    data = report.to_dict()
    assert sorted(data) == ["facts", "results", "schema"]
    assert data["results"] == [
        {
            "check": "demo.warn",
            "title": "Demo warns",
            "source": "",
            "status": "warn",
            "reason": None,
            "findings": [
                {
                    "code": "demo.problem",
                    "severity": "warning",
                    "summary": "observed 1, required 2",
                    "detail": "",
                    "fix": {"text": "do it", "commands": ["echo fix"]},
                    "links": [],
                    "evidence": [],
                    "inferred": False,
                    "short": "",
                    "cause": "",
                }
            ],
        }
    ]
    assert isinstance(report, Report)


# ---------------------------------------------------------------- registry


class FakeDist:
    def __init__(self, name: str, version: str) -> None:
        self.metadata = {"Name": name}
        self.version = version


class FakeEntryPoint:
    def __init__(self, name: str, loader: Any, dist: FakeDist) -> None:
        self.name = name
        self._loader = loader
        self.dist = dist

    def load(self) -> Any:
        return self._loader()


def _raise_import() -> Any:
    raise ImportError("No module named 'missing_dep'")


def test_plugins_load_and_broken_plugins_become_rows() -> None:
    eps = [
        FakeEntryPoint("good", lambda: [_ok], FakeDist("gpudoctor-demo", "1.2")),
        FakeEntryPoint("broken", _raise_import, FakeDist("gpudoctor-broken", "0.1")),
        FakeEntryPoint("junk", lambda: 42, FakeDist("gpudoctor-junk", "0.1")),
        FakeEntryPoint("builtin", lambda: [_warn], FakeDist("torch-gpudoctor", "0.1.0")),
    ]
    catalogue = discover(plugins=True, entry_points=eps)
    plugin_checks = [c for c in catalogue.checks if c.id.startswith("demo.")]
    # gpudoctor's own entry point is where the built-ins come from, and they load first
    assert [(c.id, c.source) for c in plugin_checks] == [("demo.warn", "torch-gpudoctor 0.1.0"),
                                                          ("demo.ok", "gpudoctor-demo 1.2")]
    assert [(e.name, e.source, e.error) for e in catalogue.errors] == [
        ("broken", "gpudoctor-broken 0.1", "ImportError: No module named 'missing_dep'"),
        ("junk", "gpudoctor-junk 0.1", "TypeError: expected a Check or a list of Checks, got int"),
    ]
    report = run_checks(Catalogue((), catalogue.errors), sample_facts())
    assert [(r.check, r.status) for r in report.results] == [
        ("plugin:broken", Status.CRASH),
        ("plugin:junk", Status.CRASH),
    ]


def test_duplicate_check_ids_from_plugins_are_refused() -> None:
    builtin_ids = [c.id for c in discover(plugins=False).checks]
    if not builtin_ids:
        pytest.skip("no built-in checks registered")
    clash = replace(_ok, id=builtin_ids[0])
    from gpudoctor.checks.builtin import CHECKS

    eps = [FakeEntryPoint("builtin", lambda: CHECKS, FakeDist("torch-gpudoctor", "0.1.0")),
           FakeEntryPoint("clash", lambda: [clash], FakeDist("gpudoctor-clash", "1.0"))]
    catalogue = discover(plugins=True, entry_points=eps)
    assert [c.id for c in catalogue.checks] == builtin_ids
    assert catalogue.errors[0].error == f"check id {builtin_ids[0]!r} is already taken"


def test_no_plugins_gives_builtins_only_and_select_ignore_filter_by_prefix() -> None:
    catalogue = Catalogue((_ok, _warn, _need))
    assert [c.id for c in catalogue.select(["demo.ok", "demo.need"]).checks] == ["demo.ok", "demo.need"]
    assert [c.id for c in catalogue.select(["demo"], ["demo.warn"]).checks] == ["demo.ok", "demo.need"]
    assert [c.id for c in catalogue.select([], ["demo"]).checks] == []
    assert all(c.source.startswith("torch-gpudoctor ") for c in discover(plugins=False).checks)
