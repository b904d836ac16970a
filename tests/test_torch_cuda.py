"""torch.cuda: a CUDA torch that cannot use the machine's NVIDIA GPU is never summarised as healthy."""

from __future__ import annotations

import dataclasses

import pytest
from checkhelp import load, skipped

from gpudoctor.causes import causes
from gpudoctor.checks.torch_cuda import torch_cuda
from gpudoctor.model import Severity, Status
from gpudoctor.render.diagnosis import answer
from gpudoctor.parsers.report import InputError, _decode, load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_check, run_checks

COLLECT_ENV = """\
PyTorch version: 2.1.0+cu118
Is debug build: False
CUDA used to build PyTorch: 11.8
ROCM used to build PyTorch: N/A

OS: Microsoft Windows 11 Pro
Python version: 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] (64-bit runtime)
Is CUDA available: False
CUDA runtime version: Could not collect
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version: 546.33
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] torch==2.1.0+cu118
"""


def test_an_unexplained_failure_to_start_cuda_is_an_error_that_leads() -> None:
    facts = load("cat-cuda-init-unexplained")
    result = run_check(torch_cuda, facts)
    assert result.status is Status.FAIL
    (finding,) = result.findings
    assert finding.code == "torch.cuda-unavailable" and finding.severity is Severity.ERROR
    assert "torch 2.14.1+cu130 is a CUDA 13.0 build" in finding.summary and "H100" in finding.summary
    assert "Observed: torch.cuda.is_available() is False" in finding.detail
    assert "Error 2: out of memory" in finding.detail  # torch's own words are the evidence
    assert finding.fix is not None and any("torch.cuda.init()" in c for c in finding.fix.commands)
    (cause,) = causes(run_checks(discover(plugins=False), facts))
    assert cause.lead.code == "torch.cuda-unavailable"


def test_a_cause_another_check_names_leads_and_the_symptom_joins_it() -> None:
    report = run_checks(discover(plugins=False), load("driver470-cu121"))
    assert "torch.cuda-unavailable" in [f.code for f in report.findings()]
    (cause,) = causes(report)
    assert cause.lead.code == "driver.too-old-for-torch"
    assert "torch.cuda-unavailable" in [f.code for f in cause.symptoms]


def test_a_working_cuda_passes_and_says_how_many_devices() -> None:
    result = run_check(torch_cuda, load("healthy-h100"))
    assert result.status is Status.PASS
    assert [f.code for f in result.findings] == ["torch.cuda-ok"] and "sees 1 CUDA device" in result.findings[0].summary


def test_other_builds_and_machines_are_not_judged_here() -> None:
    assert "not a CUDA build" in (skipped(run_check(torch_cuda, load("cpu-wheel-rtx4080"))) or "")
    facts = load("cat-cuda-init-unexplained")
    assert "no NVIDIA GPU" in (skipped(run_check(torch_cuda, dataclasses.replace(
        facts, gpus=(), driver=dataclasses.replace(facts.driver, gpu_count=0, kernel_modules=())))) or "")
    unknown = dataclasses.replace(facts, torch=dataclasses.replace(facts.torch, is_available=None))
    assert "was not recorded" in (skipped(run_check(torch_cuda, unknown)) or "")


def test_a_collect_env_paste_that_says_cuda_is_unavailable_is_not_called_healthy() -> None:
    report = run_checks(discover(plugins=False), load_facts(COLLECT_ENV, "paste"))
    a = answer(report)
    assert a.lead is not None and a.lead.code == "torch.cuda-unavailable"
    assert "RTX 4090" in a.lead.summary and a.lead.severity is Severity.ERROR


def test_utf16_appended_to_a_utf8_file_is_read_and_binary_is_still_refused() -> None:
    data = b"PyTorch version: 2.1.0+cu118\r\n" + "Nvidia driver version: 546.33\r\n".encode("utf-16")
    text = _decode(data, "env.txt")
    assert "PyTorch version: 2.1.0+cu118" in text and "Nvidia driver version: 546.33" in text and "\x00" not in text
    with pytest.raises(InputError, match="binary data"):
        _decode(bytes(range(256)) * 8, "blob.bin")
