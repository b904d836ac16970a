"""A paste that names only an AMD or an Intel GPU: CUDA cannot use it, even when nothing else in it is readable."""

from __future__ import annotations

from typing import Dict

import pytest

from gpudoctor.model import Finding, Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


def _found(text: str) -> Dict[str, Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return {f.code: f for f in report.findings() if f.severity in (Severity.ERROR, Severity.WARNING, Severity.INFO)}


@pytest.mark.parametrize("text, named", [
    ("Can I run this on my laptop? My machine has an AMD graphics card, not an NVIDIA one, and it does not work.\n",
     "an AMD GPU"),
    ("Mi tarjeta gráfica es una Intel HD Graphics 520 y el programa pide los drivers de una tarjeta NVIDIA.\n",
     "an Intel GPU (Intel HD Graphics 520)"),
    ("I only have an Intel(R) UHD Graphics 620 on this notebook; torch says CUDA is not available.\n",
     "an Intel GPU (Intel(R) UHD Graphics 620)"),
    ("Running on a Radeon RX 570 under Ubuntu, the build of the CUDA extension fails.\n", "an AMD GPU (Radeon RX 570)"),
])
def test_a_paste_naming_only_another_makers_gpu_is_told_cuda_cannot_use_it(text: str, named: str) -> None:
    finding = _found(text)["platform.no-nvidia-gpu"]
    assert finding.severity is Severity.WARNING and finding.inferred
    assert finding.summary.startswith(f"the paste names {named} and no NVIDIA GPU")
    assert "Required: an NVIDIA GPU" in finding.detail and "CUDA needs an NVIDIA GPU" in finding.fix.text
    assert not any(key == "paste.partial" for key, _ in load_facts(text, "in.txt").extra)  # read, not asked for


@pytest.mark.parametrize("text", [
    "My laptop has Intel UHD Graphics 630 and a GeForce GTX 1650; torch.cuda.is_available() is False.\n",
    "AMD graphics card here, but the server I use has a Tesla T4.\n"
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n",
    "Driver Version: 535.104.05. My desktop's other card is an AMD Radeon RX 6600.\n",
])
def test_another_makers_gpu_beside_an_nvidia_one_is_no_finding(text: str) -> None:
    assert "platform.no-nvidia-gpu" not in _found(text)


def test_a_rocm_torch_that_uses_its_amd_gpu_is_a_note_not_a_warning() -> None:
    text = ("torch 2.3.0+rocm6.0\nGPU: AMD Radeon RX 7900 XTX\n>>> torch.cuda.is_available()\nTrue\n"
            "torch.version.hip: 6.0.32830\n")
    finding = _found(text).get("platform.no-nvidia-gpu")
    assert finding is None or finding.severity is Severity.INFO
