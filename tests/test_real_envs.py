"""Real environments built on this machine and diagnosed end to end through `gpudoctor check --python`."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Dict, List, Tuple

import pytest

from envs import build_env

pytestmark = pytest.mark.realenv


def check_json(python: str) -> Tuple[int, Dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--python", python, "--format", "json", "--no-plugins", "--no-redact"],
        capture_output=True, text=True, errors="replace", timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def by_check(report: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    return {r["check"]: r for r in report["results"]}


def problems(report: Dict[str, Any]) -> List[Tuple[str, str]]:
    return [
        (f["code"], f["severity"])
        for r in report["results"]
        for f in r["findings"]
        if f["severity"] != "info"
    ]


def test_torchvision_built_for_another_torch_is_named_with_the_fix() -> None:
    python = str(build_env("torch213cpu-tv028", ["torch==2.13.0", "torchvision==0.28.0"]))
    code, report = check_json(python)
    assert code == 1
    facts = report["facts"]
    assert facts["torch"]["version"] == "2.13.0+cpu"
    assert facts["torchvision"]["version"] == "0.28.0+cu130"
    assert facts["torchvision"]["import_error"] == "RuntimeError: operator torchvision::nms does not exist"
    result = by_check(report)["torchvision"]
    assert result["status"] == "fail"
    [finding] = result["findings"]
    assert finding["code"] == "torchvision.import-failed"
    assert finding["summary"] == (
        "import torchvision fails (RuntimeError: operator torchvision::nms does not exist): "
        "torchvision 0.28.0+cu130 is the CUDA 13.0 build, torch 2.13.0+cpu the CPU build"
    )
    # The fix installs the pair released together, from torch's own (CPU) index, with the local version
    # pinned so that pip cannot keep the CUDA torchvision that satisfies a bare ==0.28.0; the pinned +cpu
    # replaces it without --force-reinstall (which would reinstall every dependency too).
    assert finding["fix"]["commands"] == [
        f"{python} -m pip install torch==2.13.0+cpu torchvision==0.28.0+cpu "
        "--index-url https://download.pytorch.org/whl/cpu"
    ]
    assert by_check(report)["torch"]["status"] == "pass"
    assert ("torchvision.import-failed", "error") in problems(report)


def test_a_healthy_environment_passes() -> None:
    # The test suite's own interpreter: torch 2.14.1+cu130 and torchvision 0.29.2+cu132 from PyPI.
    code, report = check_json(sys.executable)
    assert code == 0
    results = by_check(report)
    for check_id in ("torch", "torchvision", "libs.shadowed", "libs.mixed-cuda-majors", "libs.missing",
                     "libs.wrong-version", "packages.duplicate-torch", "packages.unreleased-combination",
                     "env.cuda-vars"):
        assert results[check_id]["status"] == "pass", (check_id, results[check_id])
    # No GPU here: what remains can only be about the machine, never the environment.
    assert [p for p in problems(report) if p != ("platform.container", "warning")] == []
    assert not [r for r in report["results"] if r["status"] == "crash"]


def test_an_environment_without_torch_says_so() -> None:
    python = str(build_env("no-torch", []))
    code, report = check_json(python)
    assert code == 1
    facts = report["facts"]
    assert facts["torch"]["installed"] is False
    result = by_check(report)["torch"]
    assert result["status"] == "fail"
    [finding] = result["findings"]
    assert (finding["code"], finding["severity"]) == ("torch.not-installed", "error")
    assert finding["summary"] == f"torch is not installed in {python}"
    assert by_check(report)["gpu.arch"]["status"] == "skip"
