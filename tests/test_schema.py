"""The shipped JSON Schemas: generated from the dataclasses, current, and true of real outputs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from gpudoctor import api, schema
from gpudoctor.facts import Facts, Gpu
from gpudoctor.facts.codec import to_plain

jsonschema = pytest.importorskip("jsonschema")
SCENARIOS = sorted((Path(__file__).resolve().parent / "scenarios").glob("*.json"))


def validator(kind: str) -> Any:
    return jsonschema.Draft202012Validator(schema.load(kind))


def test_shipped_schemas_are_current() -> None:
    """Fails when a dataclass changes without `python -m gpudoctor.schema`."""
    for filename, text in schema.generated().items():
        assert schema.shipped(filename) == text, f"{filename} is stale: run python -m gpudoctor.schema"


def test_every_field_is_in_the_schema() -> None:
    """A field added to a facts dataclass appears in the generated schema, so the shipped file goes stale."""

    @dataclasses.dataclass(frozen=True)
    class Wider(Gpu):
        """One physical GPU, with one more field."""

        clock_mhz: Optional[int] = None

    defs: Dict[str, Any] = {}
    schema._define(Wider, defs)
    fields = [f.name for f in dataclasses.fields(Gpu)] + ["clock_mhz"]
    assert list(defs["Wider"]["properties"]) == fields == defs["Wider"]["required"]
    assert defs["Wider"]["properties"]["clock_mhz"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    published = schema.load("facts")["$defs"]["Gpu"]["properties"]
    assert list(published) == [f.name for f in dataclasses.fields(Gpu)]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_facts_and_their_reports_validate(path: Path) -> None:
    facts = validator("facts")
    errors = [e.message for e in facts.iter_errors(json.loads(path.read_text(encoding="utf-8")))]
    assert errors == []
    report = json.loads(api.diagnose(path, plugins=False).to_json())
    assert [e.message for e in validator("report").iter_errors(report)] == []


def test_live_facts_validate() -> None:
    collected = api.facts(timeout=120.0).to_dict()
    assert [e.message for e in validator("facts").iter_errors(collected)] == []


def test_the_schema_rejects_what_gpudoctor_never_writes() -> None:
    data = Facts().to_dict()
    assert list(validator("facts").iter_errors(data)) == []
    data["gpus"] = [{**to_plain(Gpu()), "surprise": 1}]
    data["torch"]["version"] = 2
    messages = sorted(e.message for e in validator("facts").iter_errors(data))
    assert len(messages) == 2 and any("surprise" in m for m in messages)
    report = json.loads(api.diagnose(Facts(), plugins=False).to_json())
    report["results"][0]["status"] = "maybe"
    assert [e.message for e in validator("report").iter_errors(report)] == [
        "'maybe' is not one of ['pass', 'warn', 'fail', 'skip', 'crash']"]
