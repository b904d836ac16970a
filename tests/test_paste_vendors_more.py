"""AMD GPUs named after their maker, ROCm under WSL, HIP finding no device, NVML's unknown error as people retype
it, and is_available()'s answer given in a sentence above the code that asks it."""

from __future__ import annotations

from typing import List

from gpudoctor.model import Finding
from gpudoctor.parsers.paste.vendors import _evidence
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import render_answer
from gpudoctor.runner import run_checks


def _problems(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.severity.value in ("error", "warning")]


def test_a_radeon_named_after_its_maker_is_amd_evidence_and_a_ryzen_is_not() -> None:
    assert list(_evidence("I run it on an AMD 7900 GRE.")) == ["AMD 7900 GRE"]
    assert list(_evidence("AMD 7900XTX")) == ["7900XTX"]
    assert list(_evidence("AMD 5950X with an RTX 3090")) == []
    assert list(_evidence("CPU: AMD 7950X3D")) == []


def test_the_answer_in_a_sentence_above_a_code_block_that_asks_is_read() -> None:
    text = "When I run this it prints False.\n\n```\nimport torch\n\nprint(torch.cuda.is_available())\n```\n"
    assert load_facts(text, "in.txt").torch.is_available is False
    other = "When I run this it prints False.\n\n```\nprint(torch.cuda.is_available(), torch.__version__)\n```\n"
    assert load_facts(other, "in.txt").torch.is_available is None  # which value said False is not known


def test_an_amd_card_whose_cuda_torch_answers_false_is_named_for_amd() -> None:
    text = ("I want CUDA on Windows 10 with an AMD 7900 GRE. This prints False:\n```\nimport torch\n"
            "print(torch.cuda.is_available())\n```\n")
    found = _problems(text)
    assert found and "AMD GPU" in found[0].summary


def test_rocm_torch_under_wsl_names_amd_s_wsl_runtime_and_hip_s_no_device_joins_it() -> None:
    text = ("torch.cuda.is_available() gives a hipErrorNoDevice error. This is ROCm under WSL.\n"
            "pip3 install torch --index-url https://download.pytorch.org/whl/rocm6.2\n")
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    answer = render_answer(report)
    assert "[platform.wsl]" in answer.split("\n\n")[1] and "paste.hip-no-device" in answer
    native = text.replace("This is ROCm under WSL.", "This is Ubuntu 22.04.")
    assert [f.code for f in _problems(native)] == ["paste.hip-no-device"]


def test_nvml_s_unknown_error_is_read_also_when_retyped_with_a_typo() -> None:
    text = 'nvidia-smi in the container prints the "Failed to initiailize NVML: Unknown Error" message.\n'
    assert [f.code for f in _problems(text)] == ["paste.nvml-unknown-error"]


def test_a_dll_error_retyped_with_curly_quotes_and_a_typo_is_read() -> None:
    text = "Erro loading \u201cxxx\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\u201d or one of its dependencies.\n"
    assert "paste.windows-dll" in [f.code for f in _problems(text)]


def test_a_paraphrased_no_driver_message_on_an_amd_card_is_the_cuda_build_on_amd() -> None:
    text = ("I use the installer with my RX 7900 XTX. After the install it gives me the \"No Nvidia drivers found on "
            "your system\" error.\n")
    assert [f.code for f in _problems(text)][:1] == ["torch.cuda-build-on-amd"]


def test_a_message_under_a_markdown_heading_is_read_and_a_code_comment_is_not() -> None:
    heading = '## "docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]]."\n'
    assert "paste.docker-no-gpu-driver" in [f.code for f in _problems(heading)]
    comment = '# docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    assert "paste.docker-no-gpu-driver" not in [f.code for f in _problems(comment)]


def test_two_interpreters_that_answer_differently_are_two_environments() -> None:
    text = ("This keeps printing FALSE:\n\npython3 -c \"import torch; print(torch.cuda.is_available());\"\n\n"
            "python -c \"import torch; print(torch.cuda.is_available());\"\n\ngives TRUE.\n")
    found = _problems(text)
    assert [f.code for f in found] == ["paste.two-environments"]
    assert "python3, python" in found[0].summary
    assert found[0].fix is not None and any(c.startswith("python3 -c ") for c in found[0].fix.commands)
    same = text.replace("python3 -c", "python -c")
    assert [f.code for f in _problems(same)] == ["paste.gpu-hidden-in-one-run"]


def test_a_printed_namespace_with_cuda_off_says_cuda_is_unavailable_or_that_the_user_asked_for_the_cpu() -> None:
    line = "Namespace(batch_size=8, cuda=False, dataset='pascal', gpu_ids='0', no_cuda=False, workers=4)\n"
    assert load_facts(line, "in.txt").torch.is_available is False
    asked = line.replace("no_cuda=False", "no_cuda=True")
    facts = load_facts(asked, "in.txt")
    assert facts.torch.is_available is None
    assert [v for k, v in facts.extra if k == "paste.framework_cpu"] == ["no_cuda=True (the script's options)"]
    assert load_facts(line.replace("cuda=False", "cuda=True"), "in.txt").torch.is_available is None
