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
