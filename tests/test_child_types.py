"""Valid JSON of the wrong type from the torch child: the bad field is dropped and named, the rest kept."""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List

import pytest
from gpudoctor.facts import Facts, PlatformFacts
from gpudoctor.model import Report
from gpudoctor.probes.child_process import ChildRun, spawn
from gpudoctor.probes.torch import interpret
from gpudoctor.redact import Identity, redact
from gpudoctor.render.json import render_json
from gpudoctor.render.markdown import render_markdown

WRONG = ([["a list"]], {"an": "object"}, 123456, True, "text", 2**70, -1)


def _records() -> List[Dict[str, Any]]:
    """What the real torch child prints under this interpreter."""
    run = spawn(sys.executable, timeout=600)
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


RECORDS = _records()


def _facts(run: ChildRun) -> Facts:
    result = interpret(run, 60)
    python = result.python
    return Facts(platform=PlatformFacts(python_executable=python.executable if python else None),
                 torch=result.torch, torchvision=result.torchvision, torchaudio=result.torchaudio,
                 packages=result.packages, probe_errors=result.errors)


def _mutations() -> List[tuple]:
    out = []
    for i, record in enumerate(RECORDS):
        for key in record:
            if key != "record":
                out.append((i, key))
    return out


@pytest.mark.parametrize("index, key", _mutations(), ids=lambda v: str(v))
def test_a_wrong_typed_field_is_dropped_named_and_harmless(index: int, key: str) -> None:
    identity = Identity(homes=("/home/ana",), users=("ana",), hosts=("box",))
    for wrong in WRONG:
        if type(wrong) is type(RECORDS[index][key]) and not isinstance(wrong, int):
            continue
        lines = [dict(r) for r in RECORDS]
        lines[index][key] = wrong
        facts = _facts(ChildRun("\n".join(json.dumps(r) for r in lines) + "\n", "", 0))
        report = Report(facts=redact(facts, identity), results=())
        render_markdown(report)
        render_json(report)
        Facts.from_json(facts.to_json())


def test_the_probe_error_names_the_field() -> None:
    lines = [dict(r) for r in RECORDS]
    torch = [r for r in lines if r["record"] == "torch"][-1]
    torch["version"] = ["2.6.0"]
    facts = _facts(ChildRun("\n".join(json.dumps(r) for r in lines) + "\n", "", 0))
    assert facts.torch.version is None
    assert ("torch", "the torch probe reported fields of the wrong type, left out: torch.version (a list, not text)") \
        in facts.probe_errors
    assert facts.torch.installed == torch["installed"]
