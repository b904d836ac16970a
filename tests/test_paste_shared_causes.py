"""A pasted error message and the check that reads the same cause from the facts count as one problem."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, Set

import pytest

from gpudoctor.causes import causes
from gpudoctor.checks.support.paste_causes import CAUSES, SHARED_CAUSE
from gpudoctor.model import Finding, Report, Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.common import problem_count, summary_line
from gpudoctor.render.diagnosis import answer, render_answer
from gpudoctor.render.markdown import render_markdown
from gpudoctor.runner import run_checks

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _strings(node: ast.expr) -> Iterator[str]:
    """The string constants a code argument can take (a plain string or either branch of an if-expression)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)


def _emitted_codes() -> Set[str]:
    """Every finding code, and every declared cause, written into the checks' source."""
    found: Set[str] = set()
    for path in (ROOT / "checks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Finding"):
                continue
            if node.args:
                found.update(_strings(node.args[0]))
            for keyword in node.keywords:
                if keyword.arg in ("code", "cause"):
                    found.update(_strings(keyword.value))
    return found


def test_every_shared_cause_is_a_cause_some_check_declares() -> None:
    emitted = _emitted_codes()
    assert "driver.too-old-for-torch" in emitted and "gpu.arch-too-new" in emitted  # the scan reads the checks
    for name, key in SHARED_CAUSE.items():
        assert name in CAUSES or f"paste.{name}" in emitted, name  # a message paste.py turns into a finding
        assert key in emitted or key == f"paste.{name}", (name, key)


def _report(folder: str, name: str) -> Report:
    path = FIXTURES / folder / name
    return run_checks(discover(plugins=False), load_facts(path.read_text(errors="replace"), name))


SHARED = [
    ("reports-holdout-2", "neural-renderer-121-torch171-driver-10010.txt", "driver.too-old-for-torch",
     "paste.driver-too-old"),
    ("reports", "langchain-chatchat-324-libcudnn8.txt", "torch.import-failed", "paste.cudnn-missing"),
    ("reports", "pytorch-28363-dll-load-failed.txt", "torch.import-failed", "paste.windows-dll"),
    ("reports", "examples-115-cuda-visible-devices-2.txt", "devices.visible", "paste.no-device"),
    ("reports", "wsl-8587-libcuda-so.txt", "platform.wsl", "paste.libcuda-missing"),
    ("reports-holdout-2", "torchpod-43-error-804-two-hosts-zh.txt", "platform.container", "paste.error-804"),
    ("reports-holdout-2", "pytorch-43058-torch160-driver418.txt", "driver.too-old-for-torch",
     "paste.cuda-unavailable"),
]
# symptoms a structural check states beside the pasted line: "is_available() is False" is one more finding of the cause
ALSO = {"paste.cuda-unavailable": ["torch.cuda-unavailable"]}


@pytest.mark.parametrize("folder,name,structural,pasted", SHARED)
def test_one_cause_seen_by_a_check_and_in_the_paste_counts_once(folder: str, name: str, structural: str,
                                                                 pasted: str) -> None:
    report = _report(folder, name)
    codes = [f.code for f in report.findings() if f.severity is not Severity.INFO]
    also = ALSO.get(pasted, [])
    assert sorted(codes) == sorted([structural, pasted, *also])
    (cause,) = causes(report)
    assert cause.lead.code == structural
    assert sorted(f.code for f in cause.symptoms) == sorted([pasted, *also])
    assert problem_count(report) == 1
    seen = 2 + len(also)
    assert summary_line(report).startswith(f"1 problem (1 cause, seen in {seen} findings) found: ")


@pytest.mark.parametrize("folder,name,structural,pasted", SHARED)
def test_the_diagnosis_shows_one_cause_with_both_findings_as_evidence(folder: str, name: str, structural: str,
                                                                     pasted: str) -> None:
    report = _report(folder, name)
    a = answer(report)
    assert a.lead is not None and a.lead.code == structural
    assert a.others == ()
    assert sorted(f.code for f in a.same_cause) == sorted([pasted, *ALSO.get(pasted, [])])
    signature = next(value for key, value in report.facts.extra if key == f"paste.line.signature.{pasted[6:]}")
    assert f"line {signature}" in a.evidence  # the pasted message is evidence of the cause the check names
    for markdown in (False, True):
        text = render_answer(report, markdown=markdown)
        assert f"[{structural}]" in text.replace("\\", "") and f"[{pasted}]" in text.replace("\\", "")
        assert "Other candidates" not in text
        assert "The same cause, also seen as:" in text


@pytest.mark.parametrize("folder,name,structural,pasted", SHARED)
def test_the_markdown_report_leads_with_one_cause_and_lists_the_paste_under_it(folder: str, name: str,
                                                                              structural: str, pasted: str) -> None:
    text = render_markdown(_report(folder, name))
    diagnosis = text.split("#### Checks that did not pass")[0]
    assert diagnosis.count("### ") == 1
    assert "Also seen as:" in diagnosis and pasted in diagnosis and structural in diagnosis.split("Also seen as:")[0]


def test_the_pasted_line_is_evidence_of_the_structural_lead() -> None:
    report = _report("reports-holdout-2", "neural-renderer-121-torch171-driver-10010.txt")
    a = answer(report)
    assert any("too old" in line for line in a.evidence)  # the paste's own words, kept beside the versions


def test_a_chain_of_shared_causes_resolves_to_the_most_telling_finding() -> None:
    report = _report("reports-holdout", "xtts-finetune-31-libcudnn-ops-infer8.txt")
    (cause,) = causes(report)
    assert cause.lead.code == "libs.missing"  # names the wheel to install; import-failed and the message follow
    assert sorted(f.code for f in cause.symptoms) == ["paste.cudnn-missing", "torch.import-failed"]


def test_different_causes_in_a_real_paste_still_count_separately() -> None:
    report = _report("reports-holdout-2", "sglang-24224-t4-sgl-kernel-no-sm75.txt")
    assert sorted(c.lead.code for c in causes(report)) == ["paste.no-kernel-image", "toolkit.mismatch"]
    assert problem_count(report) == 2
    assert answer(report).same_cause == ()


def test_a_declared_cause_joins_only_the_finding_it_names() -> None:
    from gpudoctor.facts import Facts
    from gpudoctor.model import CheckResult, Status

    pasted = Finding("paste.driver-too-old", Severity.ERROR, "driver too old", cause="driver.too-old-for-torch")
    arch = Finding("gpu.arch-too-new", Severity.ERROR, "GPU newer than the torch build")
    results = (CheckResult("gpu.arch", "GPU", "t", Status.FAIL, (arch,)),
               CheckResult("paste.errors", "Paste", "t", Status.FAIL, (pasted,)))
    report = Report(facts=Facts(), results=results)
    assert [c.lead.code for c in causes(report)] == ["gpu.arch-too-new", "paste.driver-too-old"]
    driver = Finding("driver.too-old-for-torch", Severity.ERROR, "driver 418 supports CUDA 10.1")
    joined = Report(facts=Facts(), results=results + (CheckResult("driver", "Driver", "t", Status.FAIL, (driver,)),))
    assert [(c.lead.code, [f.code for f in c.symptoms]) for c in causes(joined)] == [
        ("gpu.arch-too-new", []), ("driver.too-old-for-torch", ["paste.driver-too-old"])]
