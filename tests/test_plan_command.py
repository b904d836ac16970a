"""`gpudoctor plan`: the fresh-environment plan for each installer, from a facts file, run through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.facts import DriverFacts, Facts, PlatformFacts
from gpudoctor.recommend.fresh import Tool, fresh_plan

EXAMPLES = Path(__file__).resolve().parents[1] / "doctor" / "examples"


def _plan(*args: str) -> str:
    result = CliRunner().invoke(main, ["plan", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_plan_for_a_recorded_machine_names_every_installer(golden: Callable[[str, str], None]) -> None:
    text = _plan("--facts", str(EXAMPLES / "rtx5090-cu126.json"))
    golden("plan-rtx5090.txt", text)
    assert [line for line in text.splitlines() if line.startswith("[")] == [f"[{t.value}]" for t in Tool]
    assert "Nothing was run" in text and "vLLM" in text


def test_one_installer_and_json(golden: Callable[[str, str], None]) -> None:
    data = json.loads(_plan("--facts", str(EXAMPLES / "driver-too-old.json"), "--installer", "uv", "--format", "json"))
    assert [i["installer"] for i in data["installers"]] == ["uv"] and data["runs_nothing"] is True
    golden("plan-driver-too-old.json", json.dumps(data, indent=2) + "\n")


def test_a_machine_without_nvidia_gets_the_cpu_build_with_torchaudio() -> None:
    nothing = Facts(platform=PlatformFacts(system="Linux", machine="x86_64", python_version="3.12.3"),
                    driver=DriverFacts(nvml_error="library_not_found"))
    fresh = fresh_plan(nothing, (Tool.PIP, Tool.CONDA))
    plan = fresh.recommendation.plan
    assert plan is not None and plan.variant == "cpu" and [p.name for p in plan.packages] == [
        "torch", "torchvision", "torchaudio"]
    pip, conda = fresh.tools
    assert pip.said is not None and pip.said.commands[-1].startswith(".venv-torch/bin/python -m pip install torch==")
    assert conda.said is not None and "pytorch-cpu" in conda.said.commands[0]


def test_bad_facts_are_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"meta": {"schema": 1}, "gpus": [{"compute_capability": [99, "$(id)"]}]}')
    for args in (["--facts", str(tmp_path / "missing.json")], ["--facts", str(bad)], ["--installer", "apt"]):
        result = CliRunner().invoke(main, ["plan", *args])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_a_hostile_python_version_in_the_facts_is_quoted(tmp_path: Path) -> None:
    facts = json.loads((EXAMPLES / "cpu-wheel.json").read_text())
    facts["platform"]["python_version"] = "3.12.3; rm -rf ~"
    facts["platform"]["system"] = "Linux"
    path = tmp_path / "f.json"
    path.write_text(json.dumps(facts))
    text = _plan("--facts", str(path), "--installer", "pip")
    commands = [line for line in text.splitlines() if line.lstrip().startswith("$ ")]
    assert commands and not any("rm -rf" in line for line in commands)
