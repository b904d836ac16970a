"""The verify.* checks on recorded results: each fixture's verdicts (findings, details, fixes) against a golden file.

tests/fixtures/verify/NAME.json are facts with a verify section; NAME.expected.txt is what the checks make of them.
Run ``pytest tests/test_verify_checks.py --update-goldens`` after changing a check, and review the diff.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable, List

import pytest

from gpudoctor.checks.verify import CHECKS
from gpudoctor.facts import Facts
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"
CHECK_SOURCES = sorted((Path(__file__).resolve().parent.parent / "checks").glob("verify*.py"))


def render(facts: Facts) -> str:
    report = run_checks(Catalogue(tuple(CHECKS)), facts)
    lines: List[str] = [f"exit code {report.exit_code()}"]
    for result in report.results:
        lines.append(
            f"{result.check}: {result.status.value.upper()}" + (f" ({result.reason})" if result.reason else "")
        )
        for f in result.findings:
            lines.append(f"  {f.severity.value} {f.code}: {f.summary}")
            if f.detail:
                lines.append(f"    detail: {f.detail}")
            if f.fix is not None:
                lines.append(f"    fix: {f.fix.text}")
                lines.extend(f"      $ {command}" for command in f.fix.commands)
            if f.evidence:
                lines.append(f"    evidence: {', '.join(f.evidence)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.json")))
def test_recorded_results(name: str, golden: Callable[[Path, str], None]) -> None:
    facts = Facts.from_json((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    golden(FIXTURES / f"{name}.expected.txt", render(facts))


def test_every_check_skips_without_a_verify_section() -> None:
    report = run_checks(Catalogue(tuple(CHECKS)), Facts())
    assert [(r.check, r.status.value, r.reason) for r in report.results] == [
        (c, "skip", "gpudoctor verify was not run (only it trains models)")
        for c in ("verify.worker", "verify.smoke", "verify.parity", "verify.learning", "verify.speedup", "verify.bench")
    ]


def test_verify_results_survive_the_facts_file_round_trip() -> None:
    for path in sorted(FIXTURES.glob("*.json")):
        facts = Facts.from_json(path.read_text(encoding="utf-8"))
        assert Facts.from_json(facts.to_json()) == facts, path.stem


@pytest.mark.parametrize("source", CHECK_SOURCES, ids=lambda p: p.name)
def test_checks_import_nothing_that_touches_the_machine(source: Path) -> None:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported & {"torch", "pynvml", "subprocess", "ctypes"} == set()
    assert not any(
        isinstance(n, ast.ImportFrom) and (n.module or "").startswith("gpudoctor.trainers") for n in ast.walk(tree)
    )


def test_not_proven_names_a_missing_driver_apart_from_a_machine_without_a_gpu() -> None:
    import dataclasses

    base = Facts.from_json((FIXTURES / "cpu_only_wheel.json").read_text(encoding="utf-8"))
    assert base.verify is not None
    cuda_build = dataclasses.replace(
        base,
        torch=dataclasses.replace(base.torch, cuda_compiled=True, version="2.6.0+cu126"),
        driver=dataclasses.replace(base.driver, nvml_error="driver_not_loaded"),
        verify=dataclasses.replace(base.verify, torch_version="2.6.0+cu126", cuda_build="12.6",
                                   cuda_error="RuntimeError: Found no NVIDIA driver on your system."),
    )

    def summary(facts: Facts) -> str:
        report = run_checks(Catalogue(tuple(CHECKS)), facts)
        [finding] = [f for r in report.results for f in r.findings if f.code == "verify.not-proven"]
        return finding.summary

    no_gpu = dataclasses.replace(cuda_build, gpus=(), extra=(("nvidia_pci", ""),))
    assert summary(no_gpu) == "GPU acceleration could not be proven: no NVIDIA GPU or driver was found on this machine"
    on_pci = dataclasses.replace(cuda_build, gpus=(), extra=(("nvidia_pci", "0000:01:00.0 10de:2786 0300"),))
    assert summary(on_pci) == "GPU acceleration could not be proven: no NVIDIA driver is loaded"
