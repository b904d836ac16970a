""""no kernel image" when torch has kernels for the GPU: the paste names the library layer that lacks them."""

from __future__ import annotations

from typing import List

from gpudoctor.model import Finding, Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

ERROR = "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
T4 = """\
$ nvidia-smi -L
GPU 0: Tesla T4 (UUID: GPU-0f0e0d0c-0b0a-0908-0706-050403020100)
$ python -c "import torch; print(torch.__version__); print(torch.cuda.get_arch_list())"
2.5.1+cu124
['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']
"""


def _problems(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.severity in (Severity.ERROR, Severity.WARNING)]


def test_a_library_with_its_own_kernels_is_named_when_torch_serves_the_gpu() -> None:
    found = _problems(T4 + "sglang: 0.4.1\nsgl_kernel: 0.0.2\n" + ERROR)
    kernel = [f for f in found if f.code == "paste.no-kernel-image"]
    assert len(kernel) == 1 and kernel[0].severity is Severity.ERROR
    assert "sm_75" in kernel[0].summary and "sgl-kernel 0.0.2" in kernel[0].summary
    assert not any(f.code.startswith("gpu.arch-too") for f in found)


def test_without_a_listed_library_the_layer_is_still_outside_torch() -> None:
    kernel = [f for f in _problems(T4 + ERROR) if f.code == "paste.no-kernel-image"]
    assert len(kernel) == 1 and "does not show which" in kernel[0].summary


def test_a_gpu_torch_has_no_kernels_for_is_torch_s_own_problem() -> None:
    text = T4.replace("Tesla T4", "NVIDIA GeForce RTX 5090") + "vllm: 0.6.4\n" + ERROR
    codes = [f.code for f in _problems(text)]
    assert "gpu.arch-too-new" in codes and "paste.no-kernel-image" not in codes
