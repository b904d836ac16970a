"""A torch version without a local tag, judged by the platform PyPI built it for, and driver versions told in prose."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor.facts import Facts
from gpudoctor.model import Finding
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import Confidence, answer
from gpudoctor.runner import run_checks

_LINUX_SMI = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |
| N/A   41C    P8     9W /  70W |      0MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""

_WINDOWS_SMI = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 531.14       Driver Version: 531.14       CUDA Version: 12.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce RTX 3060 WDDM | 00000000:01:00.0  On |                  N/A |
+-------------------------------+----------------------+----------------------+
"""

_UNAVAILABLE = ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n"


def _facts(text: str) -> Facts:
    return load_facts(text, "in.txt")


def _problems(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), _facts(text))
    return [f for f in report.findings() if f.severity.value in ("error", "warning")]


def _codes(text: str) -> List[str]:
    return [f.code for f in _problems(text)]


def test_an_untagged_pip_torch_under_linux_nvidia_smi_is_pypis_cuda_build_and_its_driver_is_judged() -> None:
    text = "$ pip list | grep torch\ntorch                    2.1.0\n\n$ nvidia-smi\n" + _LINUX_SMI + _UNAVAILABLE
    facts = _facts(text)
    assert facts.torch.cuda == "12.1" and facts.is_inferred("torch.cuda")
    assert facts.platform.system == "Linux" and facts.is_inferred("platform.system")
    found = {f.code: f for f in _problems(text)}
    driver = found["driver.too-old-for-torch"]
    assert driver.inferred and "470.182.03" in driver.summary and "525.60.13" in driver.summary
    assert "inferred, not observed" in driver.detail and "cu121" in driver.detail
    assert found["torch.cuda-unavailable"].inferred
    said = answer(run_checks(discover(plugins=False), facts))
    assert said.lead is not None and said.lead.code == "driver.too-old-for-torch"
    assert said.confidence is Confidence.MEDIUM  # an inferred build, seconded only by the bare symptom


def test_an_untagged_torch_on_a_linux_path_with_a_gpu_newer_than_pypis_build_is_arch_too_new() -> None:
    text = ("torch 2.6.0\nGPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-1)\n"
            'File "/home/me/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 1\n')
    assert "gpu.arch-too-new" in _codes(text)


@pytest.mark.parametrize("extra", [
    "$ conda install pytorch torchvision pytorch-cuda=11.8 -c pytorch -c nvidia\n",
    "pytorch                   2.1.0           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n",
    "I run it in a conda env with cudatoolkit 11.8.\n",
])
def test_a_torch_from_conda_is_not_taken_as_pypis_build(extra: str) -> None:
    facts = _facts("torch                    2.1.0\n" + extra + _LINUX_SMI + _UNAVAILABLE)
    assert not facts.is_inferred("torch.cuda")
    assert "driver.too-old-for-torch" not in _codes("torch                    2.1.0\n" + extra + _LINUX_SMI + _UNAVAILABLE)


def test_no_pypi_build_is_inferred_where_cuda_works_or_the_system_is_not_linux() -> None:
    working = "torch                    2.1.0\n" + _LINUX_SMI + ">>> torch.cuda.is_available()\nTrue\n"
    assert not _facts(working).is_inferred("torch.cuda")
    unknown = "torch                    2.1.0\n" + _UNAVAILABLE  # no system at all
    assert _facts(unknown).torch.cuda is None
    mac = "torch 2.1.0\nOS: macOS 14.2 (arm64)\n" + _UNAVAILABLE
    assert _facts(mac).torch.cuda is None
    tagged = "torch                    2.1.0+cu118\n" + _LINUX_SMI + _UNAVAILABLE
    assert _facts(tagged).torch.cuda == "11.8" and "driver.too-old-for-torch" not in _codes(tagged)


def test_windows_nvidia_smi_makes_an_untagged_pip_torch_the_cpu_wheel() -> None:
    text = "torch                    2.1.0\n" + _WINDOWS_SMI + _UNAVAILABLE
    facts = _facts(text)
    assert facts.torch.cuda_compiled is False and facts.platform.system == "Windows"
    assert "torch.cpu-build-on-gpu" in _codes(text)
    conda = "torch                    2.1.0\nconda install pytorch pytorch-cuda=12.1 -c pytorch -c nvidia\n" + _WINDOWS_SMI
    assert _facts(conda + _UNAVAILABLE).torch.cuda_compiled is None


def test_an_unknown_build_is_not_called_cpu_only() -> None:
    report = run_checks(discover(plugins=False), _facts("torch 2.1.0\n"))
    torch = next(f for f in report.findings() if f.code == "torch.ok")
    assert "CPU-only" not in torch.summary and "build not known" in torch.summary


def test_a_driver_version_in_a_title_is_read_where_no_tool_output_gives_one() -> None:
    text = ("Title: Unable to run on the V100 (Driver Version: 470.182.03 / CUDA 11.4)\n"
            "my torch version is torch==2.1.0\n"
            'File "/home/me/env/lib/python3.9/site-packages/torch/nn/modules/module.py", line 1160, in to\n')
    facts = _facts(text)
    assert facts.driver.version == "470.182.03"
    assert "driver.too-old-for-torch" in _codes(text)
    # nvidia-smi's own header wins over a sentence, and two drivers in the prose settle nothing
    assert _facts("I upgraded to driver 535.104.05 today.\n" + _LINUX_SMI).driver.version == "470.182.03"
    assert _facts("Going from driver 470.82.01 to driver 535.104.05 changed nothing.\n").driver.version is None


@pytest.mark.parametrize("line, version", [
    ("- Driver: 580.173.02", "580.173.02"),
    ("* GPU driver: 551.86", "551.86"),
    ("- Driver: 31.0.15.5161", None),  # Windows' numbering of the driver file, not NVIDIA's version
])
def test_a_driver_key_in_an_environment_list_is_the_driver_version(line: str, version: str) -> None:
    assert _facts(f"Environment\n\n- GPU: NVIDIA GeForce RTX 4090\n{line}\n- OS: Ubuntu 22.04\n").driver.version == version


@pytest.mark.parametrize("banner, system", [
    ("Python 3.7.5 (default, Oct 25 2019, 15:51:11)\n[GCC 7.3.0] :: Anaconda, Inc. on linux\n", "Linux"),
    ("Python 3.10.9 | packaged by Anaconda, Inc. | (main, Mar  1 2023, 18:18:15) [MSC v.1916 64 bit (AMD64)] on win32\n",
     None),  # the banner's system sits on its own line only in the REPL's two-line form
    ("Python 3.11.4 (main, Jul  5 2023, 09:00:44)\n[MSC v.1916 64 bit (AMD64)] on win32\n", "Windows"),
    ("Ubuntu 18.04, python 3.7, and it still fails.\n", "Linux"),
])
def test_a_python_banner_or_a_named_distribution_gives_the_system(banner: str, system: str) -> None:
    assert _facts(banner + _UNAVAILABLE).platform.system == system


def test_the_torch_a_pip_command_pins_is_judged_where_nothing_else_gives_the_version() -> None:
    text = ("$ pip install torch===1.3.0 torchvision===0.4.1 -f https://download.pytorch.org/whl/torch_stable.html\n"
            "$ python3\n[GCC 7.3.0] :: Anaconda, Inc. on linux\n" + _UNAVAILABLE +
            "(asked for the nvidia-smi driver version:) 410.48\n")
    facts = _facts(text)
    assert facts.torch.version == "1.3.0" and facts.is_inferred("torch.version")
    assert facts.driver.version == "410.48" and facts.torch.cuda == "10.1"
    assert "driver.too-old-for-torch" in _codes(text)
    indexed = "pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118\n" + _UNAVAILABLE
    assert _facts(indexed).torch.version == "2.1.0+cu118"
    failed = ("pip install torch==2.1.0\nERROR: Could not find a version that satisfies the requirement torch==2.1.0 "
              "(from versions: 2.2.0, 2.3.0)\n")
    assert _facts(failed).torch.version is None
    shown = "pip install torch==2.1.0\n>>> torch.__version__\n'2.2.0+cu121'\n"
    assert _facts(shown).torch.version == "2.2.0+cu121"  # what torch says wins over what was asked for
