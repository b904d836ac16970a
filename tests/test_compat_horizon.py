"""Releases newer than gpudoctor's data are judged from their own metadata, and torch's own words beat the tables."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Tuple

from gpudoctor.recommend import recommend
from gpudoctor import compat
from gpudoctor.checks import driver, torchvision
from gpudoctor.checks.support import install as _fix
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Severity, Status
from gpudoctor.runner import run_check

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def scenario(name: str) -> Facts:
    return Facts.from_json((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))


def replace(obj: Any, **changes: Any) -> Any:
    return dataclasses.replace(obj, **changes)


def installed(torch: str, vision: str, requires: Tuple[str, ...], cuda: str = "13.2") -> Facts:
    """The healthy H100 machine with another torch and torchvision (and torchvision's Requires-Dist)."""
    facts = scenario("healthy-h100")
    packages = tuple(
        replace(d, version=vision, requires=requires) if d.name == "torchvision" else
        replace(d, version=torch) if d.name == "torch" else d
        for d in facts.packages)
    return replace(facts, torch=replace(facts.torch, version=torch, cuda=cuda),
                   torchvision=replace(facts.torchvision, version=vision, cuda=cuda), packages=packages)


def findings(facts: Facts) -> Tuple[Finding, ...]:
    result = run_check(torchvision.torchvision_pairing, facts)
    assert result.status is Status.PASS, result.findings
    return result.findings


def test_todays_default_install_is_healthy() -> None:
    # pip install torch torchvision on 2026-11-24: torch 2.15.0 (+cu132 on Linux) and torchvision 0.29.2,
    # whose metadata requires torch>=2.14.0.
    for torch, vision in (("2.15.0", "0.29.2"), ("2.15.0+cu132", "0.29.2+cu132"), ("2.14.1+cu130", "0.29.2")):
        (found,) = findings(installed(torch, vision, ("torch>=2.14.0",)))
        assert (found.code, found.severity) == ("torchvision.ok", Severity.INFO)


def test_a_release_newer_than_the_data_rests_on_its_own_metadata() -> None:
    (found,) = findings(installed("2.16.0+cu132", "0.30.0+cu132", ("torch (>=2.16.0)",)))
    assert found.code == "torchvision.ok"
    assert found.detail == (
        "torchvision's metadata requires torch>=2.16.0, which torch 2.16.0+cu132 satisfies. "
        f"gpudoctor's data ends at torch {compat.newest_torch()} (data of {compat.DATA_DATE}); torch 2.16.0+cu132 is "
        "newer: this rests on its own metadata.")


def test_a_torchvision_newer_than_the_data_is_named_as_the_newer_one() -> None:
    (found,) = findings(installed("2.15.0", "0.30.0", ("torch>=2.15.0",)))
    assert found.code == "torchvision.ok" and "; torchvision 0.30.0 is newer:" in found.detail


def test_a_newer_release_without_a_requirement_is_not_judged() -> None:
    (found,) = findings(installed("2.16.0", "0.30.0", ()))
    assert found.code == "torchvision.ok"
    assert "not judged" in found.detail and "is newer" in found.detail


def test_a_requirement_that_rejects_a_newer_torch_still_counts() -> None:
    (found,) = run_check(torchvision.torchvision_pairing, installed("2.16.0", "0.31.0", ("torch>=2.17.0",))).findings
    assert (found.code, found.severity) == ("torchvision.version-mismatch", Severity.WARNING)
    assert found.summary == "torchvision 0.31.0 requires torch>=2.17.0; torch 2.16.0 is installed"
    (found,) = run_check(torchvision.torchvision_pairing, installed("2.16.0", "0.31.0", ("torch==2.17.0",))).findings
    assert (found.code, found.severity) == ("torchvision.version-mismatch", Severity.ERROR)
    assert found.summary == "torchvision 0.31.0 belongs to torch 2.17.0; torch 2.16.0 is installed"


def test_the_table_still_catches_an_old_pinned_torchvision() -> None:
    result = run_check(torchvision.torchvision_pairing, installed("2.15.0", "0.28.0", ("torch==2.13.0",)))
    (found,) = result.findings
    assert (found.code, found.severity) == ("torchvision.version-mismatch", Severity.ERROR)


def test_torch_saying_the_driver_is_insufficient_beats_the_tables() -> None:
    facts = scenario("healthy-h100")
    assert compat.driver_can_run(facts.driver.version, facts.torch.cuda) is True
    said = ("CUDA initialization: CUDA driver version is insufficient for CUDA runtime version "
            "(Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:119.)")
    broken = replace(facts, torch=replace(facts.torch, is_available=False, init_error=said, device_count=0,
                                          devices=()))
    result = run_check(driver.driver, broken)
    (found,) = result.findings
    assert (result.status, found.code, found.severity) == (Status.FAIL, "driver.too-old-for-torch", Severity.ERROR)
    assert found.summary.endswith("reports the CUDA driver is insufficient for its CUDA 13.0 runtime and CUDA is "
                                  "unavailable")
    assert said in found.detail
    # The same words while CUDA works are no finding of their own.
    fine = replace(facts, torch=replace(facts.torch, init_error=said))
    assert run_check(driver.driver, fine).findings[0].code == "driver.ok"


def test_pip_keeps_only_the_same_build_or_an_untagged_pin() -> None:
    facts = installed("2.14.1+cu130", "0.29.1+cu130", ("torch>=2.14.0",))
    assert [_fix.pip_keeps(facts, r) for r in (
        "torch==2.14.1+cu130", "torch==2.14.1", "torch==2.14.1+cu126", "torch==2.15.0", "torchvision",
        "torchaudio==2.11.0")] == [True, True, False, False, True, False]
    assert not _fix.force_needed(facts, ["torch==2.14.1+cu130", "torchvision==0.29.2+cu130"], ("torchvision",))
    assert _fix.force_needed(facts, ["torch==2.14.1+cu130", "torchvision==0.29.1+cu130"], ("torchvision",))
    assert not _fix.force_needed(facts, ["torch==2.14.1+cu130", "torchvision==0.29.1+cu130"])
    assert _fix.force_needed(facts, ["torch==2.14.1", "torchvision==0.29.2"])  # PyPI pin over a +cu130 build
    assert not _fix.force_needed(facts, ["torch==2.14.1+cu126", "torchvision==0.29.1+cu126"])


def test_a_broken_torchvision_beside_a_newer_torch_is_upgraded_not_force_reinstalled() -> None:
    facts = installed("2.16.0+cu132", "0.29.2+cu132", ("torch>=2.14.0",))
    facts = replace(facts, torchvision=replace(facts.torchvision, import_error="RuntimeError: operator "
                                                                               "torchvision::nms does not exist"))
    (found,) = run_check(torchvision.torchvision_pairing, facts).findings
    assert found.code == "torchvision.import-failed"
    assert found.fix is not None and found.fix.commands == (
        "/opt/conda/envs/train/bin/python -m pip install --upgrade torch==2.16.0+cu132 torchvision "
        "--index-url https://download.pytorch.org/whl/cu132",)


def test_a_recommendation_beside_a_torch_newer_than_the_data_says_so() -> None:
    rec = recommend([(8, 9)], "580.95.05", "Linux", "x86_64", "3.12.3", "2.16.0+cpu")
    assert rec.ok and rec.notes[-1] == (
        f"The installed torch 2.16.0+cpu is newer than gpudoctor's data, which ends at torch {compat.newest_torch()} "
        f"(data of {compat.DATA_DATE}): another build of it may serve this machine too, but only the releases in the "
        "data can be checked here.")
