"""Closed sets that facts spell as strings: enum members keep the strings, and unknown names pass through."""

from __future__ import annotations

import json

from gpudoctor.facts import DriverFacts, Facts, Meta, NvmlError, Source
from gpudoctor.model import Report
from gpudoctor.probes.nvml import classify, init_reason, probe_nvml
from gpudoctor.render.common import SOURCES, describe_source


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
