"""The findings of an audit against PyPI metadata, the wheels and the release notes, each kept as a test."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from gpudoctor.recommend import recommend
from gpudoctor import compat
from gpudoctor.checks import driver
from gpudoctor.checks.support import install as _fix
from gpudoctor.facts import Facts, PlatformFacts, TorchFacts
from gpudoctor.model import Severity, Status
from gpudoctor.redact import Identity, redact
from gpudoctor.registry import discover
from gpudoctor.runner import run_check, run_checks

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def scenario(name: str) -> Facts:
    return Facts.from_json((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))


def replace(obj: Any, **changes: Any) -> Any:
    return dataclasses.replace(obj, **changes)


# 1. A healthy install newer than the data (or paired by its own metadata) is not an error.

def test_todays_pypi_install_has_no_error_or_warning() -> None:
    for name in ("today-pypi-215-h100", "torch-2141-torchvision-0292"):
        report = run_checks(discover(plugins=False), scenario(name))
        flagged = [(r.check, f.code, f.summary) for r in report.results for f in r.findings
                   if f.severity in (Severity.ERROR, Severity.WARNING)]
        assert flagged == [], name
        assert all(r.status is not Status.CRASH for r in report.results)


# 2. The tables reach 2.15 and the cu129 builds.

def test_blackwell_on_a_570_or_575_driver_gets_the_cu129_build_of_213() -> None:
    for cc, driver_version in (((12, 0), "570.124.06"), ((10, 0), "575.57.08"), ((12, 0), "575.57.08")):
        rec = recommend([cc], driver_version, "Linux", "x86_64", "3.12.3", None)
        assert (rec.torch, rec.torchvision) == ("2.13.0+cu129", "0.28.0+cu129")


def test_215_facts() -> None:
    release = compat.release_for_torch("2.15.0")
    assert release is not None
    assert (release.python, release.cuda_variants, release.pypi_default, release.aarch64_default) == (
        ((3, 11), (3, 15)), ("cu130", "cu132"), "cu132", "cu132")
    assert compat.bundled_cudnn("2.15.0+cu132") == 92600 and compat.bundled_cudnn("2.11.0+cu130") == 91900
    assert compat.default_variant("2.11.0", "Linux", "x86_64") == "cu130"
    assert compat.default_variant("2.11.0", "Linux", "aarch64") == "cu130"
    assert compat.default_variant("2.10.0", "Linux", "aarch64") == "cpu"


# 3. No command names torchaudio on an index that has none.

def test_torchaudio_is_never_offered_from_cu132() -> None:
    rec = recommend([(9, 0)], "595.71.05", "Linux", "x86_64", "3.12.3", None, with_torchaudio=True)
    assert rec.variant == "cu130" and rec.torchaudio == "2.11.0+cu130"
    assert "cu132" not in " ".join(rec.commands)
    assert compat.torchaudio_published("2.11.0", "cu132") is False


# 4. Driver advice a retired generation or a Jetson can follow.

def test_kepler_is_not_told_to_upgrade_past_r470() -> None:
    (finding,) = run_check(driver.driver, scenario("kepler-k80-cu121-driver470")).findings
    assert finding.code == "driver.too-old-for-torch"
    assert ">= 525" not in finding.fix.text and "sudo ubuntu-drivers install" not in finding.fix.commands
    assert finding.fix.text.startswith("No driver upgrade helps: CUDA 12 builds have no kernels for Kepler GPUs")
    assert "torch 2.7.1+cu118" in finding.fix.text


def test_pascal_is_not_told_to_upgrade_to_580_for_cuda_13() -> None:
    (finding,) = run_check(driver.driver, scenario("pascal-gtx1080-cu130-driver535")).findings
    assert ">= 580" not in finding.fix.text
    assert finding.fix.text.startswith("No driver upgrade helps: CUDA 13 builds have no kernels for Pascal GPUs")
    assert "torch 2.14.1+cu126" in finding.fix.text


def test_a_jetson_is_told_about_jetpack_not_a_desktop_driver() -> None:
    facts = scenario("failure23-v100-cu130")
    facts = replace(facts, gpus=(replace(facts.gpus[0], name="Orin", compute_capability=(8, 7)),),
                    driver=replace(facts.driver, version="540.4.0", kernel_module_version="540.4.0"),
                    platform=replace(facts.platform, machine="aarch64"))
    (finding,) = run_check(driver.driver, facts).findings
    assert "580.65.06" not in finding.fix.text and "JetPack" in finding.fix.text
    rec = recommend([(8, 7)], "540.4.0", "Linux", "aarch64", "3.10.12", None)
    assert "580.65.06" not in rec.text and "JetPack" in rec.options[0].text


def test_search_never_picks_a_build_beyond_a_generations_last_driver() -> None:
    from gpudoctor.compat.generations import branch_blocked, cuda_blocked, generation
    assert generation((3, 7)) is not None and branch_blocked([(3, 7)], 525) is not None
    assert branch_blocked([(3, 7)], 450) is None and branch_blocked([(8, 6)], 580) is None
    assert cuda_blocked([(6, 1)], 13) is not None and cuda_blocked([(7, 5)], 13) is None


# 5. --force-reinstall only where pip would keep the installed build (see test_compat_horizon too).

def test_the_stated_reason_matches_the_printed_command() -> None:
    rec = recommend([(8, 6)], "535.104.05", "Linux", "x86_64", "3.11.4", "2.14.1+cu126")
    assert rec.pip_args.startswith("install --force-reinstall torch==2.14.1+cu126 ")
    assert "pip would otherwise keep it" in rec.text and "`torch==2.14.1` alone" not in rec.text


# 7. Smaller ones.

def test_an_alternatives_unconfirmed_mark_reaches_the_fix() -> None:
    facts = scenario("cpu-wheel-rtx4080")  # Windows: the CUDA 13 minimum there is not published
    recommended = _fix.recommended_install(facts)
    assert recommended is not None
    texts = [text for text, _ in recommended.options]
    assert any(text.endswith("(UNCONFIRMED).") for text in texts), texts


def test_a_windows_user_name_with_a_space_is_redacted_whole() -> None:
    facts = Facts(platform=PlatformFacts(system="Windows", python_executable=r"C:\Users\Ana Maria\venv\python.exe"),
                  torch=TorchFacts(location=r"c:/Users/Ana Maria/venv/Lib/site-packages/torch"))
    clean = redact(facts, Identity())
    assert clean.platform.python_executable == r"~\venv\python.exe"
    assert clean.torch.location == "~/venv/Lib/site-packages/torch"
    assert "Maria" not in clean.to_json() and "Ana" not in clean.to_json()
    spoken = redact(Facts(torch=TorchFacts(init_error=r"see C:\Users\ana is here")), Identity())
    assert spoken.torch.init_error == "see ~ is here"


def test_keeping_a_cu118_torch_on_a_blackwell_gpu_says_it_rests_on_ptx_jit() -> None:
    rec = recommend([(12, 0)], "570.86.15", "Windows", "AMD64", "3.12.3", "2.6.0+cu124")
    (keep,) = [o for o in rec.options if o.text.startswith("Or keep torch 2.6.0")]
    assert "cu118" in keep.text and "PTX JIT of compute_37" in keep.text
    assert keep.confidence is not compat.Confidence.CONFIRMED


# Commands quote every value from input through gpudoctor.shell.

def test_interpreter_paths_and_values_from_input_are_quoted_for_the_users_shell() -> None:
    posix = Facts(platform=PlatformFacts(system="Linux", python_executable="/home/Ana Maria/venv/bin/python"))
    assert _fix.pip_install(posix, ["torch==2.15.0"]) == "'/home/Ana Maria/venv/bin/python' -m pip install torch==2.15.0"
    # a path no real interpreter has never reaches a command: the command names plain python instead
    hostile = Facts(platform=PlatformFacts(system="Linux", python_executable="/tmp/$(touch x)/bin/python"))
    assert _fix.pip_install(hostile, ["torch==2.15.0"]) == "python -m pip install torch==2.15.0"
    windows = Facts(platform=PlatformFacts(system="Windows", python_executable="C:\\Users\\O'Neil Smith\\py.exe"))
    assert _fix.pip_install(windows, ["torch==2.15.0"]) == (
        "& 'C:\\Users\\O''Neil Smith\\py.exe' -m pip install torch==2.15.0")
    assert _fix.export_env(windows, "CUDA_VISIBLE_DEVICES", "$(evil)") == "$env:CUDA_VISIBLE_DEVICES = '$(evil)'"
    assert _fix.export_env(windows, "CUDA_VISIBLE_DEVICES", "0,1") == "$env:CUDA_VISIBLE_DEVICES = '0,1'"
    control = Facts(platform=PlatformFacts(system="Linux", python_executable="/opt/py\nrm -rf ~"))
    assert _fix.pip_install(control, ["torch==2.15.0"]) == "python -m pip install torch==2.15.0"
    assert _fix.shell_quote(control, "/a\nb") == "'/a?b'"


def test_pypi_companions_are_judged_as_the_builds_of_their_own_release() -> None:
    from gpudoctor.checks import packages
    from gpudoctor.facts import CompanionFacts

    def facts(machine: str, vision: str, audio: str) -> Facts:
        return Facts(platform=PlatformFacts(system="Linux", machine=machine),
                     torch=TorchFacts(installed=True, version="2.15.0", cuda="13.2"),
                     torchvision=CompanionFacts(installed=True, version=vision),
                     torchaudio=CompanionFacts(installed=True, version=audio))

    def codes(f: Facts) -> list:
        return [(x.severity.value, x.summary) for x in run_check(packages.unreleased_combination, f).findings]

    # PyPI's torchvision 0.29.2 is torch 2.15's own build; PyPI's torchaudio 2.11.0 is a CUDA 13.0 build.
    assert codes(facts("x86_64", "0.29.2", "")) == []
    assert codes(facts("x86_64", "0.29.2", "2.11.0")) == [(
        "warning", "torch 2.15.0, torchvision 0.29.2, torchaudio 2.11.0 were never released together: builds "
                   "differ: torch cu132, torchvision cu132, torchaudio cu130")]
    assert codes(facts("aarch64", "0.29.2", "2.11.0"))[0][1].endswith("torchaudio cu130")
    # The fix installs the set from an index that has torchaudio (cu130), never torchaudio==2.11.0+cu132.
    (found,) = run_check(packages.unreleased_combination, facts("x86_64", "0.29.2", "2.11.0")).findings
    assert found.fix is not None and found.fix.commands == (
        "python -m pip install torch==2.15.0+cu130 torchvision==0.29.2+cu130 torchaudio==2.11.0+cu130 "
        "--index-url https://download.pytorch.org/whl/cu130",)


def test_a_rocm_build_is_named_only_where_the_data_knows_one() -> None:
    from gpudoctor.checks import torch_builds
    facts = scenario("cat-cuda-on-amd")
    facts = replace(facts, torch=replace(facts.torch, version="2.15.0+cu132", cuda="13.2"), packages=())
    assert compat.release_for_torch("2.15.0") is not None and not compat.release_for_torch("2.15.0").rocm_variants
    (found,) = run_check(torch_builds.cuda_on_amd, facts).findings
    assert "2.15.0+rocm" not in " ".join(found.fix.commands)
    assert "torch==2.14.1+rocm7.14" in found.fix.commands[0]
