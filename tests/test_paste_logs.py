"""Launcher logs, pip lines, bitsandbytes' set-up report and Mac hints, as real reports print them."""

from __future__ import annotations

from typing import Tuple

import pytest

from gpudoctor.model import Severity
from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


def _codes(text: str) -> Tuple[str, ...]:
    report = run_checks(discover(plugins=False), load_facts(text + "\n", "in.txt"))
    return tuple(f.code for f in report.findings() if f.severity in (Severity.ERROR, Severity.WARNING))


@pytest.mark.parametrize("line, version", [
    ("22:47:27-752280 INFO     Torch 2.0.1+cpu", "2.0.1+cpu"),
    ("18:11:45-677845 INFO     Torch: torch==2.8.0+cpu torchvision==0.23.0+cpu", "2.8.0+cpu"),
    ("version: v1.9.4  •  python: 3.10.6  •  torch: 2.1.2+cu121  •  xformers: 0.0.23", "2.1.2+cu121"),
    ("Requirement already satisfied: torch in c:\\python310\\lib\\site-packages (2.1.0+cu121)", "2.1.0+cu121"),
])
def test_a_torch_version_printed_inline_is_read(line: str, version: str) -> None:
    assert load_facts(line + "\n", "in.txt").torch.version == version


@pytest.mark.parametrize("line", [
    "Downloading torch-2.1.0+cu121-cp310-cp310-linux_x86_64.whl (2200.6 MB)",
    "INFO     Torchvision 0.16.0+cu121",
    "/home/me/torch 2.1.0+cpu/bin",
    "I use torch 2.1 on Windows",
])
def test_wheel_names_other_packages_and_untagged_prose_are_not_the_installed_torch(line: str) -> None:
    assert read_paste(line + "\n").facts.torch.version is None


def test_a_launcher_log_with_a_cpu_torch_is_named() -> None:
    text = "22:47:24-318919 INFO     Python 3.10.11 on Windows\n22:47:27-752280 INFO     Torch 2.0.1+cpu"
    assert _codes(text) == ("paste.cpu-build",)


@pytest.mark.parametrize("text", [
    "bin C:\\venv\\lib\\site-packages\\bitsandbytes\\libbitsandbytes_cpu.so\nFalse",
    "RuntimeError:\n        CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above",
])
def test_bitsandbytes_loading_its_cpu_library_is_named(text: str) -> None:
    assert _codes(text) == ("paste.bitsandbytes-without-gpu",)


def test_bitsandbytes_searching_for_libcuda_is_its_own_set_up_not_a_missing_driver_library() -> None:
    text = "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed?"
    assert _codes(text) == ("paste.bitsandbytes-without-gpu",)


def test_xformers_without_cuda_on_a_mac_m1_is_the_mac() -> None:
    text = ("Running on a Mac M1.\nWARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.0.1 with CUDA 1106 (you have 2.0.1)")
    assert load_facts(text, "in.txt").platform.system == "Darwin"
    assert _codes(text) == ("paste.macos-no-cuda",)


@pytest.mark.parametrize("line", ["Torch generator: device=cpu", "Using device: cpu",
                                  "INFO  Engine: backend=Backend.DIFFUSERS compute=cpu device=cpu attention=SDP"])
def test_an_application_that_says_it_runs_on_the_cpu_is_not_healthy(line: str) -> None:
    assert _codes(line) == ("paste.cuda-unavailable",)


def test_a_cpu_device_chosen_among_others_is_not_read_as_one() -> None:
    assert read_paste("Using device: cpu for the tokenizer and cuda:0 for the model\n").signatures() == ()


def test_torch_printing_cuda_unavailable_with_nothing_else_is_a_warning() -> None:
    assert _codes('import torch\nprint(torch.cuda.is_available())\nFalse') == ("paste.cuda-unavailable",)


def test_torch_printing_cuda_unavailable_next_to_a_cpu_build_names_the_build() -> None:
    assert _codes(">>> torch.__version__\n'2.6.0+cpu'\n>>> torch.cuda.is_available()\nFalse") == ("paste.cpu-build",)


def test_an_old_collect_env_with_a_conda_cpu_build_is_named() -> None:
    text = ("Collecting environment information...\nPyTorch version: 1.4.0\nIs debug build: No\n"
            "CUDA used to build PyTorch: None\n\nOS: Ubuntu 16.04.6 LTS\n\nPython version: 3.7\n"
            "Is CUDA available: No\nCUDA runtime version: No CUDA\nGPU models and configuration: No CUDA\n"
            "Nvidia driver version: No CUDA\ncuDNN version: No CUDA\n\nVersions of relevant libraries:\n"
            "[pip] torch==1.4.0\n[conda] pytorch                   1.4.0               py3.7_cpu_0  [cpuonly]  pytorch\n")
    assert _codes(text) == ("paste.cpu-build",)
