"""Torch 1.0-1.8 and CUDA 8.0-9.2: old pastes are judged by the same checks, and old releases are never advised."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Set, Tuple

import pytest

from gpudoctor import compat
from gpudoctor.compat.base import C, Confidence, version_tuple
from gpudoctor.compat.cc import parse_arch_token
from gpudoctor.compat.drivers import driver_can_run, driver_requirement, toolkit_driver
from gpudoctor.compat.releases import (
    ALL_RELEASES,
    HISTORIC_RELEASES,
    RELEASES,
    pairing,
    python_supported_by,
    release_for_torch,
)
from gpudoctor.compat.wheels import published_variants, wheel_arch_list
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer
from gpudoctor.runner import run_checks

HISTORY = Path(__file__).resolve().parent / "fixtures" / "history"
OLD_MINORS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8")


def _report(text: str):  # type: ignore[no-untyped-def]
    return run_checks(discover(plugins=False), load_facts(text, "in.txt"))


def _codes(report, severity: str = "") -> Set[str]:  # type: ignore[no-untyped-def]
    return {f.code for r in report.results for f in r.findings if not severity or f.severity.value == severity}


def _tokens(torch: str) -> Set[str]:
    found = wheel_arch_list(torch)
    assert found is not None, torch
    return set(found.tokens)


# --- the two pastes ------------------------------------------------------------------------------------------------

def test_torch_171_cu101_on_an_rtx_3090_is_arch_too_new() -> None:
    report = _report((HISTORY / "torch171-cu101-rtx3090.txt").read_text(encoding="utf-8"))
    a = answer(report)
    assert a.lead is not None and a.lead.code == "gpu.arch-too-new"
    assert "sm_86" in a.lead.summary and "sm_75" in a.lead.summary


def test_the_3090_verdict_comes_from_the_table_when_the_paste_prints_no_warning() -> None:
    lines = (HISTORY / "torch171-cu101-rtx3090.txt").read_text(encoding="utf-8").splitlines()
    quiet = "\n".join(line for line in lines[:1] + lines[7:])
    assert "sm_86" not in quiet and "PyTorch version: 1.7.1+cu101" in quiet
    assert "gpu.arch-too-new" in _codes(_report(quiet), "error")


def test_the_3090_fix_names_a_current_release_not_an_old_build() -> None:
    report = _report((HISTORY / "torch171-cu101-rtx3090.txt").read_text(encoding="utf-8"))
    fixes = [f.fix for r in report.results for f in r.findings if f.code == "gpu.arch-too-new" and f.fix]
    assert fixes
    for fix in fixes:
        for command in fix.commands:
            for word in command.split():
                if word.startswith("torch=="):
                    release = release_for_torch(word.split("==", 1)[1])
                    assert release is not None and not release.historic, command
    assert "keep torch 1.7.1" not in str(fixes)


def test_torch_140_on_a_tesla_k80_is_fine() -> None:
    report = _report((HISTORY / "torch140-tesla-k80.txt").read_text(encoding="utf-8"))
    assert _codes(report, "error") == set() and _codes(report, "warning") == set()
    arch = next(r for r in report.results if r.check == "gpu.arch")
    assert arch.status.value == "pass" and "sm_37" in str(arch.findings)


def test_the_k80_paste_was_judged_against_the_default_cu101_wheel() -> None:
    assert compat.default_variant("1.4.0", "Linux", "x86_64") == "cu101"
    assert _tokens("1.4.0") == {"sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "compute_37"}


# --- drivers for CUDA 8.0-9.2 --------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("driver", "variant", "runs"),
    [("384.130", "cu90", True), ("384.81", "cu90", True), ("384.59", "cu90", False), ("396.54", "cu92", True),
     ("396.26", "cu92", True), ("390.116", "cu92", False), ("375.66", "cu80", True), ("375.26", "cu80", True),
     ("367.48", "cu80", False), ("384.130", "cu100", False), ("410.48", "cu100", True)],
)
def test_old_drivers_against_old_cuda_builds(driver: str, variant: str, runs: bool) -> None:
    assert driver_can_run(driver, variant, "Linux") is runs


@pytest.mark.parametrize(
    ("cuda", "linux", "windows"),
    [("8.0", "375.26", "376.51"), ("9.0", "384.81", "385.54"), ("9.1", "390.46", "391.29"),
     ("9.2", "396.26", "397.44"), ("9.2.148", "396.37", "398.26")],
)
def test_table_3_minimums_for_cuda_8_and_9(cuda: str, linux: str, windows: str) -> None:
    for system, wanted in (("Linux", linux), ("Windows", windows)):
        requirement = driver_requirement(cuda, system)
        assert requirement is not None and requirement.minimum == wanted and requirement.confidence is C
        assert "no minor-version compatibility" in requirement.note


def test_a_cuda_92_build_on_an_r390_driver_is_a_driver_error_in_a_paste() -> None:
    text = (HISTORY / "torch140-tesla-k80.txt").read_text(encoding="utf-8")
    text = text.replace("PyTorch version: 1.4.0", "PyTorch version: 1.4.0+cu92").replace(
        "CUDA used to build PyTorch: 10.1", "CUDA used to build PyTorch: 9.2").replace(
        "Nvidia driver version: 418.87.01", "Nvidia driver version: 390.116")
    codes = _codes(_report(text), "error")
    assert any(code.startswith("driver.") for code in codes), codes


# --- the tables agree with themselves ------------------------------------------------------------------------------

def test_every_minor_since_1_0_has_a_row_and_only_old_ones_are_historic() -> None:
    assert [r.minor for r in HISTORIC_RELEASES] == list(reversed(OLD_MINORS))
    assert all(r.historic for r in HISTORIC_RELEASES) and not any(r.historic for r in RELEASES)
    keys = [version_tuple(r.minor) for r in ALL_RELEASES]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)


@pytest.mark.parametrize("minor", OLD_MINORS)
def test_every_historic_release_has_variants_arch_lists_and_pairings(minor: str) -> None:
    release = release_for_torch(minor)
    assert release is not None and release.minor == minor
    assert release.patches and release.cuda_variants and release.pypi_default in release.cuda_variants
    assert isinstance(release.confidence, Confidence) and release.source
    linux = published_variants(release.latest.torch, "Linux", "x86_64")
    assert linux == release.cuda_variants
    for patch in release.patches:
        found = pairing(patch.torch)
        assert found is patch and patch.torchvision.startswith(f"{release.torchvision}.")
        assert compat.torch_for_torchvision(patch.torchvision) == patch.torch
        if patch.torchaudio:
            assert patch.torchaudio.startswith(f"{release.torchaudio}.")
        for variant in release.cuda_variants:
            arch = wheel_arch_list(f"{patch.torch}+{variant}")
            assert arch is not None and arch.tokens, (patch.torch, variant)
            requirement = driver_requirement(variant)
            assert requirement is not None and requirement.minimum, variant


def test_the_oldest_kernel_per_era() -> None:
    def lowest(torch: str) -> Tuple[int, int]:
        parsed = [parse_arch_token(t) for t in _tokens(torch)]
        return min(p.cc for p in parsed if p is not None)

    assert {lowest(f"{m}.0+{r.cuda_variants[0]}") for m in ("1.0", "1.1", "1.2", "1.3")
            for r in (release_for_torch(m),) if r} == {(3, 5)}
    assert {lowest(f"{m}.0+{v}") for m in ("1.4", "1.5", "1.6", "1.7", "1.8")
            for r in (release_for_torch(m),) if r for v in r.cuda_variants} == {(3, 7)}


def test_ampere_kernels_arrive_with_cuda_11() -> None:
    for torch in ("1.5.1+cu102", "1.6.0+cu102", "1.7.1+cu101", "1.7.1+cu102", "1.8.1+cu102"):
        assert not {"sm_80", "sm_86"} & _tokens(torch), torch
    assert "sm_80" in _tokens("1.7.1+cu110") and "sm_86" not in _tokens("1.7.1+cu110")
    assert {"sm_80", "sm_86"} <= _tokens("1.8.1+cu111") and {"sm_80", "sm_86"} <= _tokens("1.8.2+cu111")


def test_old_cuda_variants_were_not_all_on_every_release() -> None:
    assert published_variants("1.0.0", "Linux", "x86_64") == ("cu80", "cu90", "cu100")
    assert "cu80" not in release_for_torch("1.1.0").cuda_variants  # type: ignore[union-attr]
    assert wheel_arch_list("1.7.1+cu111") is None and wheel_arch_list("1.2.0+cu101") is None
    assert toolkit_driver("9.2") is not None and toolkit_driver("7.5") is None


def test_python_2_7_gets_no_recommendable_release() -> None:
    assert release_for_torch("1.0.1").supports_python("2.7.15") is True  # type: ignore[union-attr]
    assert python_supported_by("2.7.15") == ()


def _fix_text(report, prefix: str) -> str:  # type: ignore[no-untyped-def]
    found = [f for r in report.results for f in r.findings if f.code.startswith(prefix) and f.fix]
    assert found, prefix
    return " ".join(" ".join(f.fix.commands) + " " + f.fix.text for f in found)


def test_an_old_build_on_a_too_old_driver_is_not_told_to_reinstall_an_old_build() -> None:
    text = (HISTORY / "torch171-cu101-rtx3090.txt").read_text(encoding="utf-8")
    text = text.replace("+cu101", "+cu110").replace("PyTorch: 10.1", "PyTorch: 11.0").replace("455.45.01", "440.33.01")
    facts = load_facts(text, "in.txt")
    facts = replace(facts, platform=replace(facts.platform, container="docker"),
                    torch=replace(facts.torch, init_error="CUDA error: forward compatibility was attempted on non "
                                                          "supported HW (Error 804)"))
    report = run_checks(discover(plugins=False), facts)
    assert "platform.container" in _codes(report, "error")
    fix = _fix_text(report, "platform.container")
    assert "torch==1.7.1" not in fix and "install the torch build the driver runs" not in fix


def test_a_toolkit_mismatch_on_an_old_build_is_not_told_to_reinstall_an_old_build() -> None:
    text = (HISTORY / "torch140-tesla-k80.txt").read_text(encoding="utf-8").replace(
        "CUDA runtime version: 10.1.243", "CUDA runtime version: 9.2.148")
    report = _report(text)
    assert "toolkit.mismatch" in _codes(report, "warning")
    assert "torch==1.4.0" not in _fix_text(report, "toolkit.")


def test_windows_wheels_of_old_releases_keep_their_ptx() -> None:
    def win(torch: str) -> Set[str]:
        found = wheel_arch_list(torch, system="Windows", machine="AMD64")
        assert found is not None, torch
        return set(found.tokens)

    assert "compute_37" in win("1.7.1+cu101") and "sm_86" not in win("1.7.1+cu101")
    assert "compute_37" not in _tokens("1.7.1+cu101")  # the Linux wheel has no PTX
    assert {"sm_86", "compute_37"} <= win("1.8.2+cu111")
    assert published_variants("1.2.0", "Windows", "AMD64") == ("cu100",)
