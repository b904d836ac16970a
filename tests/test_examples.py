"""The recorded machines shipped inside the package: `gpudoctor examples` and `gpudoctor diagnose --example`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.examples import EXAMPLES, read_text

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"
# Each shipped example is a copy of the scenario it was taken from, so the two cannot drift apart.
SOURCES = {
    "rtx5090-cu126": "rtx5090-cu126",
    "driver-too-old": "driver470-cu121",
    "cpu-wheel": "cpu-wheel-rtx4080",
    "broken-torchvision": "torchvision-nms",
    "healthy-h100": "healthy-h100",
}
EXPECTED = {
    "rtx5090-cu126": "gpu.arch-too-new",
    "driver-too-old": "driver.too-old-for-torch",
    "cpu-wheel": "torch.cpu-build-on-gpu",
    "broken-torchvision": "torchvision.import-failed",
}


def test_every_example_is_its_scenario() -> None:
    assert sorted(e.name for e in EXAMPLES) == sorted(SOURCES)
    for name, scenario in SOURCES.items():
        assert read_text(name) == (SCENARIOS / f"{scenario}.json").read_text(encoding="utf-8"), name


def test_examples_lists_them() -> None:
    result = CliRunner().invoke(main, ["examples"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[: len(EXAMPLES)]] == [e.name for e in EXAMPLES]
    assert lines[-1] == "Run one with: gpudoctor diagnose --example rtx5090-cu126"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_diagnose_example_matches_diagnosing_the_scenario(name: str) -> None:
    runner = CliRunner()
    shipped = runner.invoke(main, ["diagnose", "--example", name, "--json", "--no-plugins"])
    scenario = runner.invoke(main, ["diagnose", str(SCENARIOS / f"{SOURCES[name]}.json"), "--format", "json",
                                    "--no-plugins"])
    assert shipped.stdout == scenario.stdout and shipped.exit_code == scenario.exit_code
    assert shipped.exit_code == (0 if name == "healthy-h100" else 1)
    if name in EXPECTED:
        assert f'"code": "{EXPECTED[name]}"' in shipped.stdout


def test_bad_example_requests_are_one_line() -> None:
    runner = CliRunner()
    unknown = runner.invoke(main, ["diagnose", "--example", "gtx-9999"])
    assert unknown.exit_code == 2
    assert unknown.stderr == ("error: no example named 'gtx-9999'; the examples are: rtx5090-cu126, driver-too-old, "
                              "cpu-wheel, broken-torchvision, healthy-h100 (see `gpudoctor examples`)\n")
    both = runner.invoke(main, ["diagnose", "x.json", "--example", "cpu-wheel"])
    assert (both.exit_code, both.stderr) == (2, "error: give one of FILE (or - for standard input; several files, a directory or a glob for a fleet), --example NAME or --github-event PATH\n")


def test_json_flag_is_format_json() -> None:
    runner = CliRunner()
    short = runner.invoke(main, ["diagnose", "--example", "cpu-wheel", "--json", "--no-plugins"])
    long = runner.invoke(main, ["diagnose", "--example", "cpu-wheel", "--format", "json", "--no-plugins"])
    assert short.stdout == long.stdout and short.stdout.startswith('{\n  "schema": 1,')
    clash = runner.invoke(main, ["diagnose", "--example", "cpu-wheel", "--json", "--format", "markdown"])
    assert (clash.exit_code, clash.stderr) == (
        2, "error: --json and --format markdown contradict each other; give one of them\n")


def test_a_non_editable_copy_runs_the_demo(tmp_path: Path) -> None:
    """What setuptools installs (package data included) runs the demo away from the source tree."""
    build = tmp_path / "lib"
    out = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
                          "--build-lib", str(build)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for example in EXAMPLES:
        assert (build / "gpudoctor" / "examples" / example.filename).is_file()
    assert sorted(p.name for p in (build / "gpudoctor" / "schema").glob("*.json")) == [
        "facts.schema.json", "report.schema.json"]
    env = {**os.environ, "PYTHONPATH": str(build)}
    code = ("import sys, gpudoctor; print(gpudoctor.__file__); sys.argv = ['gpudoctor', 'diagnose', '--example', "
            "'cpu-wheel', '--no-plugins']; from gpudoctor.cli import main; main()")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    first, _, report = run.stdout.partition("\n")
    assert first == str(build / "gpudoctor" / "__init__.py")
    assert run.returncode == 1, run.stderr
    assert "torch 2.13.0+cpu" in report and "1 problem found: 1 error." in report


def test_example_names_complete_in_the_shell() -> None:
    script = Path(sys.executable).parent / "gpudoctor"

    def complete(words: str) -> list[str]:
        env = {**os.environ, "COMP_WORDS": words, "COMP_CWORD": "3", "_GPUDOCTOR_COMPLETE": "bash_complete"}
        out = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
        return out.stdout.splitlines()

    assert complete("gpudoctor diagnose --example ") == [f"plain,{e.name}" for e in EXAMPLES]
    assert complete("gpudoctor diagnose --example c") == ["plain,cpu-wheel"]


def test_readme_example_is_what_the_shipped_example_prints() -> None:
    """The README's first diagnosis: its command runs, and its problem and fix lines are in the output."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "gpudoctor diagnose --example rtx5090-cu126" in readme.split("## Example")[0]
    shown = readme.split("(`gpudoctor diagnose --example rtx5090-cu126`; rows cut at `...`):")[1]
    block = shown.split("```text\n")[1].split("```")[0]
    result = CliRunner().invoke(main, ["diagnose", "--example", "rtx5090-cu126"])
    assert result.exit_code == 1
    problem_lines = [line for line in block.splitlines() if line.startswith(("    ✗", "        /"))]
    assert len(problem_lines) == 3
    out = result.stdout.splitlines()
    for line in block.splitlines():  # every line shown is one the command prints, in the same order
        if line != "...":
            assert line in out
    shown_lines = [line for line in block.splitlines() if line != "..."]
    assert [out.index(line) for line in shown_lines if line] == sorted(out.index(line) for line in shown_lines if line)
