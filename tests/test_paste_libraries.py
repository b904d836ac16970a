"""flash-attn and bitsandbytes listed in a paste are judged against its GPUs and platform."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import pytest

from gpudoctor.model import Finding, Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import render_answer
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


RTX5090 = "GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-8d4f5b3c-6e0a-7d94-cf41-9c5e1a2b3d44)"
B200 = "GPU 0: NVIDIA B200 (UUID: GPU-9e5a6c4d-7f1b-8ea5-d052-ad6f2b3c4e55)"
H100 = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-af6b7d5e-802c-9fb6-e163-be7a3c4d5f66)"


def _findings(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.code == "paste.flash-attn-gpu"]


@pytest.mark.parametrize("torch, flash, gpus, said", [
    # Blackwell: no release before 2.7.3 has sm_100/sm_120 kernels or PTX.
    ("2.7.1+cu128", "2.5.9.post1", RTX5090, "has no kernels for NVIDIA GeForce RTX 5090 (sm_120)"),
    ("2.7.1+cu128", "1.0.9", B200, "has no kernels for NVIDIA B200 (sm_100)"),
    # 2.7.3 and 2.7.4 compile them only with CUDA >= 12.8; their prebuilt wheels were built with 12.3 / 12.4.
    ("2.7.1+cu128", "2.7.4.post1", B200, "the prebuilt wheels of flash-attn 2.7.4.post1 have no kernels"),
    ("2.7.1+cu128", "2.8.3", RTX5090, None),
    ("2.7.1+cu128", "2.8.0.post2", f"{H100}\n{B200}", None),
])
def test_flash_attn_upper_bound_on_blackwell(torch: str, flash: str, gpus: str, said: Optional[str]) -> None:
    found = _findings(_paste(f"torch                {torch}\nflash-attn           {flash}", gpus))
    if said is None:
        assert found == []
    else:
        assert [f.severity for f in found] == [Severity.WARNING] and said in found[0].summary
        assert "flash-attn>=2.8.0" in found[0].fix.commands[0] and "CONFIRMED" in found[0].detail


@pytest.mark.parametrize("torch, flash, needs, pin", [
    ("2.1.2+cu118", "2.8.3", "needs CUDA 12.0 or newer and PyTorch 2.2 or newer", 'flash-attn<2.7.4'),
    ("2.3.1+cu118", "2.7.4.post1", "needs CUDA 12.0 or newer", 'flash-attn<2.7.4'),
    ("1.11.0+cu113", "2.5.8", "needs CUDA 11.6 or newer and PyTorch 1.12 or newer", None),
    ("1.12.1+cu116", "2.7.0", "needs CUDA 11.7 or newer", "flash-attn<2.7.0"),
])
def test_flash_attn_cuda_and_torch_minimums_per_line(torch: str, flash: str, needs: str, pin: Optional[str]) -> None:
    found = _findings(_paste(f"torch                {torch}\nflash-attn           {flash}", A100))
    assert len(found) == 1 and found[0].summary == f"flash-attn {flash} {needs}"
    assert f"torch {torch} with CUDA" in found[0].detail and "required: " in found[0].detail
    assert (pin is not None and pin in found[0].fix.text) or (pin is None and "pin" not in found[0].fix.text)


def test_flash_attn_2_on_turing_points_at_the_1x_line_and_fa3_needs_ampere_and_cuda_123() -> None:
    found = _findings(_paste("torch                2.3.1+cu121\nflash-attn           2.5.9.post1", T4))
    assert len(found) == 1 and 'flash-attn<2' in found[0].fix.text
    fa3 = _findings(_paste("torch                2.3.1+cu121\nflash_attn_3         3.0.0b1", f"{T4}\n{H100}"))
    assert [f.summary for f in fa3] == [
        "flash_attn_3 3.0.0b1 needs sm_80 or newer; it cannot run on Tesla T4 (sm_75)",
        "flash_attn_3 3.0.0b1 needs CUDA 12.3 or newer"]
    assert "flash-attn<2" not in fa3[0].fix.text


def test_flash_attn_that_fits_is_skipped_with_its_line() -> None:
    report = run_checks(discover(plugins=False), load_facts(
        _paste("torch                2.4.1+cu124\nflash-attn           2.6.3", H100), "in.txt"))
    result = next(r for r in report.results if r.check == "paste.flash-attn-gpu")
    assert result.findings == () or list(result.findings) == []
    assert "2.2.0 to 2.6.3" in (result.reason or "")


GTX1080TI = "GPU 0: NVIDIA GeForce GTX 1080 Ti (UUID: GPU-b07c8e6f-913d-a0c7-f274-cf8b4d5e6a77)"
M4000 = "GPU 0: Quadro M4000 (UUID: GPU-c18d9f70-a24e-b1d8-0385-d09c5e6f7b88)"


def _bnb(torch: str, version: str, gpus: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(
        _paste(f"torch                {torch}\nbitsandbytes         {version}", gpus), "in.txt"))
    return [f for f in report.findings() if f.code.startswith("paste.bitsandbytes")]


@pytest.mark.parametrize("torch, version, said, pin", [
    # Before 0.50 the loader opens only the library of torch's exact CUDA major.minor.
    ("2.6.0+cu126", "0.44.1", "has no CUDA library for torch's CUDA 12.6 (it ships 11.7, 11.8, 12.0", "0.45.0"),
    ("2.15.0+cu132", "0.49.2", "has no CUDA library for torch's CUDA 13.2", "0.50.0"),
    ("2.8.0+cu129", "0.46.0", "has no CUDA library for torch's CUDA 12.9", "0.46.1"),
    ("2.6.0+cu126", "0.45.0", None, None),
    # 0.50 falls back to the nearest library of the same major.
    ("2.8.0+cu129", "0.50.1", None, None),
    ("2.15.0+cu132", "0.50.0", None, None),
])
def test_bitsandbytes_needs_a_library_for_torchs_cuda(torch: str, version: str, said: Optional[str],
                                                       pin: Optional[str]) -> None:
    found = [f for f in _bnb(torch, version, A100) if f.severity is not Severity.INFO]
    if said is None:
        assert found == []
        return
    assert len(found) == 1 and found[0].code == "paste.bitsandbytes-gpu" and said in found[0].summary
    assert f'bitsandbytes>={pin}' in found[0].fix.commands[0]
    assert "CONFIRMED" in found[0].detail and f"torch built with CUDA {torch[-3:-1]}" not in found[0].summary


@pytest.mark.parametrize("torch, version, gpus, said, advice", [
    # 0.48+: the CUDA 12.8/12.9 libraries start at sm_70, the CUDA 13 ones at sm_75.
    ("2.8.0+cu128", "0.48.2", GTX1080TI, "its CUDA 12.8 library (the one torch's CUDA selects) starts at sm_70",
     "older than 12.8"),
    ("2.9.0+cu130", "0.49.0", GTX1080TI, "its CUDA 13.0 library (the one torch's CUDA selects) starts at sm_75",
     "older than 12.8"),
    ("2.9.0+cu130", "0.49.0", V100, "library (the one torch's CUDA selects) starts at sm_75", "older than 13.0"),
    # 0.46/0.47: the CUDA 12.8 library starts at sm_75.
    ("2.7.1+cu128", "0.46.0", V100, "library (the one torch's CUDA selects) starts at sm_75", "older than 12.8"),
    # Maxwell left the PyPI wheels with 0.48.0.
    ("2.6.0+cu126", "0.48.0", M4000, "its PyPI libraries start at sm_60", "bitsandbytes<0.48"),
    ("2.8.0+cu128", "0.48.2", M4000, "its PyPI libraries start at sm_60", "bitsandbytes<0.48"),
])
def test_bitsandbytes_gpu_floor_per_release_and_cuda_library(torch: str, version: str, gpus: str, said: str,
                                                              advice: str) -> None:
    found = _bnb(torch, version, gpus)
    assert [f.severity for f in found] == [Severity.WARNING]
    assert said in found[0].summary and advice in found[0].fix.text and "observed: " in found[0].detail


def test_bitsandbytes_int8_needs_turing_as_a_note_and_fits_elsewhere() -> None:
    found = _bnb("2.5.1+cu124", "0.45.0", V100)
    assert [(f.severity, f.summary.split(";")[0]) for f in found] == [
        (Severity.INFO, "LLM.int8() (load_in_8bit) of bitsandbytes needs compute capability 7.5")]
    assert _bnb("2.5.1+cu124", "0.45.0", A100) == []


@pytest.mark.parametrize("version, warned", [("0.45.0", True), ("0.48.2", True), ("0.49.0", False)])
def test_bitsandbytes_from_pypi_on_rocm_needs_049(version: str, warned: bool) -> None:
    text = ("Collecting environment information...\nPyTorch version: 2.5.1+rocm6.2\nIs debug build: False\n"
            "CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: 6.2.41133-dd7f95766\n"
            "OS: Ubuntu 22.04.4 LTS (x86_64)\nIs CUDA available: True\nGPU models and configuration: AMD Instinct "
            f"MI250X (gfx90a:sramecc+:xnack-)\nVersions of relevant libraries:\n[pip3] bitsandbytes=={version}\n"
            "[pip3] torch==2.5.1+rocm6.2\n")
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    found = [f for f in report.findings() if f.code.startswith("paste.bitsandbytes")]
    assert [f.code for f in found if f.severity is Severity.WARNING] == (
        ["paste.bitsandbytes-platform"] if warned else [])


def _collect_env(torch: str, cuda: str, system_cudnn: str, conda: str = "") -> str:
    return ("Collecting environment information...\n"
            f"PyTorch version: {torch}\nIs debug build: No\nCUDA used to build PyTorch: {cuda}\n\n"
            "OS: Ubuntu 18.04.3 LTS\nGCC version: (Ubuntu 7.4.0-1ubuntu1~18.04.1) 7.4.0\nCMake version: version 3.10.2\n\n"
            "Python version: 3.7\nIs CUDA available: Yes\nCUDA runtime version: Could not collect\n"
            "GPU models and configuration: GPU 0: GeForce GTX 1080 Ti\nNvidia driver version: 455.23.05\n"
            f"cuDNN version: {system_cudnn}\n\nVersions of relevant libraries:\n[pip] numpy==1.18.1\n"
            f"[pip] torch=={torch}\n{conda}")


def _cudnn_run(text: str) -> Tuple[List[Finding], str, str]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    result = next(r for r in report.results if r.check == "paste.system-cudnn")
    return [f for f in report.findings() if f.code == "paste.system-cudnn"], result.reason or "", \
        render_answer(report)


@pytest.mark.parametrize("torch, cuda, system, says", [
    # torch 1.4.0 from PyPI is the cu101 wheel, with cuDNN 7.6.3 linked in.
    ("1.4.0", "10.1", "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.0.5",
     "torch 1.4.0 runs the cuDNN 7.6.3 linked into its wheel; the system's cuDNN 7.0.5 is older than it"),
    ("1.7.1+cu110", "11.0", "/usr/local/cuda/lib64/libcudnn.so.8.0.4",
     "torch 1.7.1+cu110 runs the cuDNN 8.0.5 linked into its wheel; the system's cuDNN 8.0.4 is older than it"),
    ("1.6.0+cu92", "9.2", "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5",
     "runs the cuDNN 7.6.3 linked into its wheel; the system's cuDNN 7.6.5 is newer than it"),
    ("1.7.0+cu110", "11.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5",
     "runs the cuDNN 8.0.3 linked into its wheel (UNCONFIRMED which cuDNN this wheel carries)"),
])
def test_system_cudnn_beside_an_old_wheel_is_a_note_not_a_problem(torch: str, cuda: str, system: str,
                                                                   says: str) -> None:
    found, _reason, text = _cudnn_run(_collect_env(torch, cuda, system))
    assert [f.severity for f in found] == [Severity.INFO] and says in found[0].summary
    assert "torch never loads it" in found[0].summary and "observed: cuDNN" in found[0].detail
    assert "Nothing in the paste shows a broken GPU environment" in text and "problem lies elsewhere" not in text


@pytest.mark.parametrize("torch, cuda, system, conda, reason", [
    ("1.4.0", "10.1", "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.3", "", "the same 7.6.3"),
    ("1.6.0", "10.2", "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5",
     "[conda] pytorch                   1.6.0           py3.7_cuda10.2.89_cudnn7.6.5_0    pytorch\n", "conda"),
    ("1.4.0", "10.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.0.5", "", "not the PyPI build"),
    ("2.1.2+cu121", "12.1", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.2.1", "", "loads its cuDNN at run time"),
    ("1.4.0", "10.1", "Could not collect", "", "lists no system cuDNN"),
])
def test_system_cudnn_is_not_judged_where_the_wheel_does_not_say(torch: str, cuda: str, system: str, conda: str,
                                                                 reason: str) -> None:
    found, why, _text = _cudnn_run(_collect_env(torch, cuda, system, conda))
    assert found == [] and reason in why
