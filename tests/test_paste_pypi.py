"""A Windows torch that pip took from PyPI is CPU-only: read from an untagged version in pip's install log, or from a
pip command without a PyTorch index on a machine the paste calls Windows, when torch says CUDA is unavailable."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor.model import Finding
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

PROSE = ("I installed everything with pip install -r requirements.txt on my Windows 10 PC with an RTX 3060, but "
         "torch.cuda.is_available() returns False.\n")


def _problems(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.severity.value in ("error", "warning")]


def test_a_requirements_install_on_windows_with_cuda_unavailable_is_the_pypi_cpu_wheel() -> None:
    facts = load_facts(PROSE, "in.txt")
    assert facts.torch.cuda_compiled is False and facts.is_inferred("torch.cuda_compiled")
    assert facts.platform.system == "Windows" and facts.is_inferred("platform.system")
    found = next(f for f in _problems(PROSE) if f.code == "torch.cpu-build-on-gpu")
    assert found.inferred and "RTX 3060" in found.summary
    assert "`pip install -r requirements.txt` took torch from PyPI on Windows" in found.detail
    assert "Torch not compiled" not in found.detail  # torch did not say so: the detail must not quote it


def test_pip_installing_torch_by_name_in_a_windows_prompt_counts_and_the_command_is_cut_where_prose_resumes() -> None:
    text = ("PS C:\\Users\\me> pip install torch torchvision, then ran it on Windows 11.\n"
            ">>> torch.cuda.is_available()\nFalse\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.cuda_compiled is False
    note = dict(facts.extra)["inferred.torch.cuda_compiled"]
    assert "`pip install torch torchvision`" in note


def test_chinese_prose_naming_pip_and_win10_is_read() -> None:
    text = "在本地 Win10 机器上，用 pip 安装 requirements 装好后，torch.cuda.is_available() 是 False。\n"
    assert load_facts(text, "in.txt").torch.cuda_compiled is False


@pytest.mark.parametrize("text", [
    PROSE.replace("requirements.txt", "requirements.txt --extra-index-url https://download.pytorch.org/whl/cu121"),
    PROSE + "Then: pip3 install torch --index-url https://download.pytorch.org/whl/cu124\n",  # an index elsewhere
    PROSE.replace("Windows 10 PC", "Ubuntu 22.04 box"),
    PROSE.replace("Windows 10 PC", "Windows 10 PC and on WSL"),  # two systems: which one is not said
    PROSE.replace("returns False", "returns True"),
    PROSE.replace("-r requirements.txt", "torchvision"),  # not torch itself
    PROSE + "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n",  # a CUDA build
])
def test_no_inference_where_the_paste_shows_an_index_another_system_a_working_gpu_or_another_cause(text: str) -> None:
    facts = load_facts(text, "in.txt")
    assert not facts.is_inferred("torch.cuda_compiled")


def test_an_untagged_version_from_pip_s_install_log_on_windows_is_the_cpu_build() -> None:
    text = ("C:\\Users\\me> pip install torch torchvision\nSuccessfully installed torch-2.4.0 torchvision-0.19.0\n"
            "C:\\Users\\me> python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.version == "2.4.0" and facts.torch.cuda_compiled is False
    found = next(f for f in _problems(text) if f.code == "paste.cpu-build")
    assert found.inferred and "PyPI's wheel, which is CPU-only" in found.detail
    tagged = text.replace("torch-2.4.0 ", "torch-2.4.0+cu121 ")
    assert not load_facts(tagged, "in.txt").is_inferred("torch.cuda_compiled")


def test_the_command_quoted_in_the_note_is_bounded() -> None:
    text = "On Windows 11: pip install torch " + "x" * 5000 + "\ntorch.cuda.is_available() False\n"
    note = dict(load_facts(text, "in.txt").extra)["inferred.torch.cuda_compiled"]
    assert len(note) < 600


@pytest.mark.parametrize("said", ["torch.cuda.is_available() False", "torch.cuda.is_available() -> False",
                                  "`torch.cuda.is_available()` → False."])
def test_is_available_answered_after_a_space_or_an_arrow_is_read(said: str) -> None:
    assert load_facts(said + "\n", "in.txt").torch.is_available is False
