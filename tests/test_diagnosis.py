"""The answer to a paste: lead cause with confidence, quoted evidence, fix, alternatives and what to paste next."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import Confidence, answer, render_answer
from gpudoctor.runner import run_checks

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
TOO_OLD = (
    "```\nRuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n```\n"
    "```\n| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4     |\n```\n"
)


def _report(text: str):  # type: ignore[no-untyped-def]
    return run_checks(discover(plugins=False), load_facts(text, "in.txt"))


def test_lead_cause_with_quoted_lines_and_high_confidence() -> None:
    a = answer(_report(TOO_OLD))
    assert a.lead is not None and a.lead.code == "paste.driver-too-old"
    assert a.confidence is Confidence.HIGH
    assert a.evidence == (
        "line 2: RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
        "line 5: | NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4     |",
    )
    text = render_answer(_report(TOO_OLD))
    assert "Most likely cause (high confidence): the NVIDIA driver is too old" in text
    assert "    nvidia-smi" in text


def test_what_to_paste_next_names_the_missing_facts() -> None:
    a = answer(_report(NO_KERNEL))
    assert a.lead is not None and a.lead.code == "paste.no-kernel-image"
    commands = [cmd for cmd, _ in a.next_steps]
    assert commands == ["python -m torch.utils.collect_env", "nvidia-smi", "gpudoctor facts -o facts.json"]


def test_a_healthy_environment_is_said_to_work() -> None:
    report = _report("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    a = answer(report)
    assert a.lead is None and [f.code for f in a.healthy] == ["paste.out-of-memory"] and a.next_steps == ()
    assert "The CUDA environment itself works; the problem lies elsewhere:" in render_answer(report)


def test_conflicting_values_are_shown_apart() -> None:
    smi = "| NVIDIA-SMI {0}       Driver Version: {0}       CUDA Version: 12.2     |\n"
    report = _report("host:\n```\n" + smi.format("535.104.05") + "```\ncontainer:\n```\n" + smi.format("550.54.14")
                     + "```\n" + NO_KERNEL)
    text = render_answer(report)
    assert "driver.version: 535.104.05 (line 3) vs 550.54.14 (line 7)" in text


def test_the_cli_leads_with_the_answer_in_terminal_and_markdown_but_not_json(tmp_path: Path) -> None:
    paste = tmp_path / "issue.md"
    paste.write_text(TOO_OLD, encoding="utf-8")
    runner = CliRunner()
    term = runner.invoke(main, ["diagnose", str(paste)])
    assert term.exit_code == 1 and term.output.startswith("Diagnosis of the pasted report\n")
    md = runner.invoke(main, ["diagnose", str(paste), "--format", "markdown"])
    assert md.output.startswith("## Diagnosis\n") and "```sh\nnvidia-smi\n" in md.output
    out = runner.invoke(main, ["diagnose", str(paste), "--format", "json"])
    assert json.loads(out.output)["facts"]["meta"]["source"] == "paste"


def test_a_facts_file_gets_no_paste_answer() -> None:
    report = _report('{"meta": {"schema": 1}, "platform": {"system": "Linux"}}')
    assert render_answer(report) == ""


def test_hostile_bodies_give_a_partial_diagnosis_not_a_traceback(tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_bytes(b"A" * 1_000_000 + b"\r\n\x1b[31mRuntimeError: CUDA error: no kernel image is available for "
                     b"execution on the device\x1b[0m\r\n" + b"\x07\x08 strange control bytes\r\n")
    result = CliRunner().invoke(main, ["diagnose", str(body)])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 1
    assert "paste.no-kernel-image" in result.output and "\x1b" not in result.output and "\x07" not in result.output
    assert "Part of the paste was not read: 1 line(s) longer than 4096 characters were cut." in result.output


def test_the_coloured_terminal_report_also_leads_with_the_answer() -> None:
    from rich.text import Text

    from gpudoctor.render.diagnosis import styled_with

    assert styled_with("Diagnosis\n", lambda: Text("report\n")).plain == "Diagnosis\nreport\n"


VLLM_SECTIONED = """\
Collecting environment information...
==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
GCC version                  : (Ubuntu 10.5.0-1ubuntu1~22.04.2) 10.5.0
Libc version                 : glibc-2.35

==============================
       PyTorch Info
==============================
PyTorch version              : 2.6.0+cpu
Is debug build               : False
CUDA used to build PyTorch   : Could not collect
ROCM used to build PyTorch   : N/A

==============================
      Python Environment
==============================
Python version               : 3.12.11 (main, Jun 26 2025, 21:20:05) [Clang 20.1.4 ] (64-bit runtime)
Python platform              : Linux-5.15.0-143-generic-x86_64-with-glibc2.35

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : False
CUDA runtime version         : Could not collect
CUDA_MODULE_LOADING set to   : N/A
GPU models and configuration : GPU 0: NVIDIA GeForce RTX 3090
Nvidia driver version        : 570.124.06
"""


def test_a_sectioned_vllm_collect_env_quotes_its_labelled_lines() -> None:
    a = answer(_report(VLLM_SECTIONED))
    assert a.lead is not None and a.lead.code == "torch.cpu-build-on-gpu"
    assert a.evidence == (
        "line 12: PyTorch version              : 2.6.0+cpu",
        "line 29: GPU models and configuration : GPU 0: NVIDIA GeForce RTX 3090",
    )


def test_a_second_collect_env_report_is_compared_not_dropped() -> None:
    text = (Path(__file__).parent / "fixtures" / "collect_env" / "two-reports.txt").read_text(encoding="utf-8")
    a = answer(_report(text))
    assert "torch.version: 2.2.2+cpu (the first report) vs 2.2.2+cu121 (the report at line 33)" in a.conflicts
    assert any(f.code == "paste.two-environments" for f in a.others)


def test_collect_env_is_not_asked_for_when_import_torch_fails() -> None:
    text = ('OSError: [WinError 126] The specified module could not be found. Error loading '
            '"C:\\Python311\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n')
    commands = [cmd for cmd, _ in answer(_report(text)).next_steps]
    assert "python -m torch.utils.collect_env" not in commands and "gpudoctor facts -o facts.json" in commands
