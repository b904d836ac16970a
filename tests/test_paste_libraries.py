"""flash-attn and bitsandbytes listed in a paste are judged against its GPUs and platform."""

from __future__ import annotations

from typing import Dict

import pytest

from gpudoctor.model import Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

V100 = "GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-5a1c2e0f-3b7d-4a61-9c1e-6f2b8d9e0a11)"
A100 = "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-6b2d3f1a-4c8e-5b72-ad2f-7a3c9e0f1b22)"
T4 = "GPU 0: Tesla T4 (UUID: GPU-7c3e4a2b-5d9f-6c83-be30-8b4d0f1a2c33)"


def _paste(packages: str, gpus: str) -> str:
    return f"```\n$ pip list\n{packages}\n$ nvidia-smi -L\n{gpus}\n```\n"


def _found(text: str) -> Dict[str, Severity]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return {f.code: f.severity for f in report.findings()}


@pytest.mark.parametrize("flash, gpus, refused", [
    ("2.5.9.post1", V100, True),
    ("2.5.9.post1", f"{V100}\n{A100}", True),
    ("2.5.9.post1", A100, False),
    ("1.0.9", T4, False),
    ("1.0.9", V100, True),
])
def test_flash_attn_is_judged_against_each_gpu(flash: str, gpus: str, refused: bool) -> None:
    found = _found(_paste(f"torch                2.3.1+cu121\nflash-attn           {flash}", gpus))
    assert (found.get("paste.flash-attn-gpu") is Severity.WARNING) is refused


def test_flash_attn_own_message_is_named_once() -> None:
    text = _paste("torch                2.3.1+cu121\nflash-attn           2.5.9.post1", V100)
    found = _found(text + "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n")
    assert "paste.flash-attn-needs-ampere" in found and "paste.flash-attn-gpu" not in found


@pytest.mark.parametrize("version, warned", [("0.41.1", True), ("0.43.0", False)])
def test_old_bitsandbytes_on_windows_has_no_cuda_binaries(version: str, warned: bool) -> None:
    text = ("Collecting environment information...\nPyTorch version: 2.1.2+cu121\nIs debug build: False\n"
            "CUDA used to build PyTorch: 12.1\nOS: Microsoft Windows 11 Pro\n"
            "Python platform: Windows-10-10.0.22631-SP0\nIs CUDA available: True\n"
            "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060\nNvidia driver version: 546.33\n"
            f"Versions of relevant libraries:\n[pip3] bitsandbytes=={version}\n[pip3] torch==2.1.2+cu121\n")
    assert ("paste.bitsandbytes-platform" in _found(text)) is warned
