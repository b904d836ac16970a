"""vLLM and xformers releases pin one torch release; a package list with another torch is named, unknown pins are not."""

from __future__ import annotations

from typing import List

from gpudoctor.checks.packages_pins import pinned_torch, releases_for
from gpudoctor.model import Finding
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


def _pins(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.code == "packages.kernel-pin-mismatch"]


def test_vllm_built_for_another_torch_is_named_with_the_release_for_this_one() -> None:
    found = _pins("$ pip freeze\nvllm==0.6.3\ntorch==2.5.1\n")
    assert [f.summary for f in found] == ["vllm 0.6.3 was built for torch 2.4.0; torch 2.5.1 is installed"]
    assert found[0].fix is not None and any("vllm==0.7.3" in c for c in found[0].fix.commands)


def test_xformers_pin_is_read_from_a_pip_list_with_local_versions() -> None:
    found = _pins("Package    Version\n---------- -----------\ntorch      2.3.0+cu121\nxformers   0.0.27\n")
    assert [f.summary for f in found] == ["xformers 0.0.27 was built for torch 2.3.1; torch 2.3.0+cu121 is installed"]


def test_a_matching_pair_and_an_unknown_release_are_not_judged() -> None:
    assert _pins("$ pip freeze\nvllm==0.8.5\ntorch==2.6.0\nxformers==0.0.29.post3\n") == []
    assert _pins("$ pip freeze\nvllm==0.3.3\ntorch==2.6.0\nflash-attn==2.7.4\n") == []


def test_the_pin_table_answers_by_release() -> None:
    assert pinned_torch("vllm", "0.9.1") == "2.7.0" and pinned_torch("vllm", "0.9.1+cu126") == "2.7.0"
    assert pinned_torch("flash-attn", "2.7.4") is None and pinned_torch("vllm", "9.9.9") is None
    assert releases_for("xformers", "2.5.1") == ["0.0.28.post3"]
