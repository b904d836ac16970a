"""A check whose subject is absent skips; it never passes (a missing torchvision is no "torchvision pairing" pass)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gpudoctor.facts import CompanionFacts, Facts
from gpudoctor.model import Status
from gpudoctor.registry import builtin_checks
from gpudoctor.runner import run_check

SCENARIOS = Path(__file__).parent / "scenarios"


def _facts(name: str) -> Facts:
    return Facts.from_json((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))


def _statuses(facts: Facts) -> dict[str, Status]:
    return {c.id: run_check(c, facts).status for c in builtin_checks()}


def test_no_check_about_torch_passes_when_torch_is_missing() -> None:
    facts = _facts("torch-missing")
    assert facts.torch.installed is False
    titles = {c.id: c.title for c in builtin_checks()}
    passed = [titles[i] for i, s in _statuses(facts).items() if s is Status.PASS and "torch" in titles[i].lower()]
    assert passed == []


def test_companion_checks_skip_when_the_companions_are_missing() -> None:
    facts = _facts("healthy-h100")
    alone = dataclasses.replace(
        facts, torchvision=CompanionFacts(installed=False), torchaudio=CompanionFacts(installed=False),
        packages=tuple(d for d in facts.packages if d.name not in ("torchvision", "torchaudio")))
    before, after = _statuses(facts), _statuses(alone)
    assert before["torchvision"] is Status.PASS and after["torchvision"] is Status.SKIP
    assert before["packages.unreleased-combination"] is Status.PASS
    assert after["packages.unreleased-combination"] is Status.SKIP
    assert after["packages.torchaudio-mismatch"] is Status.SKIP
