"""Formats and phrasings seen in held-out reports: REPL echoes, install commands, Windows commands, conda plans."""

from __future__ import annotations

from gpudoctor.parsers.paste import read_paste


def test_a_repl_that_echoes_nothing_for_torch_version_cuda_shows_a_cpu_build() -> None:
    facts = read_paste(">>> import torch\n>>> torch.version.cuda\n>>> torch.cuda.is_available()\nFalse\n").facts
    assert facts.torch.cuda_compiled is False


def test_a_repl_that_echoes_a_cuda_version_is_not_a_cpu_build() -> None:
    facts = read_paste(">>> torch.version.cuda\n'12.1'\n>>> torch.cuda.is_available()\nTrue\n").facts
    assert facts.torch.cuda == "12.1" and facts.torch.cuda_compiled is not False


def test_print_of_torch_version_cuda_as_none_shows_a_cpu_build() -> None:
    text = 'python -c "import torch; print(torch.__version__, torch.version.cuda)"\n2.3.0 None\n'
    facts = read_paste(text).facts
    assert facts.torch.version == "2.3.0" and facts.torch.cuda_compiled is False


def test_an_install_command_names_what_is_wanted_not_what_is_installed() -> None:
    text = ("```\npip install torch==1.9.0+cu111 torchvision==0.10.0+cu111 -f https://download.pytorch.org/whl/"
            "torch_stable.html\n```\n")
    assert read_paste(text).facts.torch.version is None
    assert read_paste("INFO Torch 2.0.1+cpu\n").facts.torch.version == "2.0.1+cpu"


def test_a_pipe_into_findstr_is_a_windows_command() -> None:
    facts = read_paste("> pip list | findstr torch\ntorch      2.2.1+cu118\ntorchvision 0.17.1\n").facts
    assert facts.platform.system == "Windows"
    assert read_paste("$ pip list | grep torch\ntorch 2.2.1+cu118\n").facts.platform.system != "Windows"


CONDA_PLAN = """\
The following NEW packages will be INSTALLED:

  cpu-only           pytorch/linux-64::cpu-only-1.0-0
  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0
"""
CONDA_UPDATE = """\
The following packages will be UPDATED:

  pytorch                pytorch::pytorch-1.3.1-py3.7_cuda10.1.243_cudnn7.6.3_0 --> pytorch::pytorch-1.4.0-py3.7_cpu_0
"""


def test_a_conda_install_plan_names_the_torch_it_installs() -> None:
    paste = read_paste(CONDA_PLAN)
    assert paste.recognised
    assert paste.facts.torch.version == "1.2.0.dev20190805+cpu" and paste.facts.torch.cuda_compiled is False


def test_a_conda_update_plan_is_read_as_the_new_build() -> None:
    facts = read_paste(CONDA_UPDATE).facts
    assert facts.torch.version == "1.4.0" and facts.torch.cuda_compiled is False
    cuda = read_paste("  pytorch   pytorch::pytorch-1.4.0-py3.7_cpu_0 --> pytorch::pytorch-1.5.0-py3.7_cuda10.2.89_cudnn7.6.5_0\n")
    assert cuda.facts.torch.version == "1.5.0" and cuda.facts.torch.cuda == "10.2"


def test_cpp_scoped_names_are_not_a_conda_plan() -> None:
    assert not read_paste("  c10::Error   at::native::empty_cuda\n").recognised
