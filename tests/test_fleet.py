"""Fleet triage end to end: generated fleets with planted faults, the scenario fixtures, bad files, goldens."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from click.testing import CliRunner, Result
from fleetgen import Planted, write_fleet
from gpudoctor import registry
from gpudoctor.cli import main
from gpudoctor.model import Severity
from gpudoctor.parsers.report import load_facts, read_input
from gpudoctor.runner import run_checks

SCENARIOS = Path(__file__).parent / "scenarios"


def run(args: List[str], code: int) -> Result:
    result = CliRunner().invoke(main, ["diagnose", "--no-plugins", *args])
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr and "please report this" not in result.stderr
    return result


@pytest.fixture
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Planted:
    """A 40-node fleet in ./fleet (relative, so that file names in outputs are stable)."""
    monkeypatch.chdir(tmp_path)
    return write_fleet(Path("fleet"), 40)


def triage_json(*args: str, code: int = 1) -> Dict[str, Any]:
    data: Dict[str, Any] = json.loads(run([*args, "--format", "json"], code).stdout)
    return data


def test_generated_fleet_groups_every_planted_fault(fleet: Planted) -> None:
    data = triage_json("fleet")
    groups = [(g["code"], g["severity"], g["nodes"]) for g in data["groups"]]
    assert groups == [
        ("driver.too-old-for-torch", "error", list(fleet.old_driver)),
        ("gpu.ecc", "error", [fleet.ecc]),
        ("gpu.throttled", "warning", [fleet.throttled]),
    ]
    assert data["groups"][0]["summary"] == ("driver 535.x supports CUDA 12.2; torch 2.14.1+cu130 needs CUDA "
                                            "13.x, i.e. driver >= 580.65.06")
    drift = [(d["trait"], d["value"], d["majority"], d["nodes"]) for d in data["drift"]]
    assert drift == [
        ("driver", "535.104.05", "580.95.05", list(fleet.old_driver[0::2])),
        ("driver", "535.129.03", "580.95.05", list(fleet.old_driver[1::2])),
        ("torch", "2.13.0+cu130", "2.14.1+cu130", list(fleet.torch_drift)),
        ("gpu_count", "7", "8", [fleet.missing_gpu]),
        ("slowdown", "hw_thermal_slowdown", "none", [fleet.throttled]),
    ]
    assert data["unreadable"] == [{"file": "fleet/n040.json", "node": fleet.corrupt, "error": (
        "not valid JSON (Unterminated string starting at: line 260 column 7); the file looks cut off")}]
    assert [(d["reason"], d["hostlist"]) for d in data["drain"]] == [
        ("gpudoctor: driver.too-old-for-torch", "n[001-002]"), ("gpudoctor: gpu.ecc", fleet.ecc)]
    assert data["summary"] == {"nodes": 39, "ok": 32, "warning": 4, "error": 3, "unreadable": 1,
                               "missing": 0, "drain": 3}


def test_every_input_format_and_the_recorded_node_name(fleet: Planted) -> None:
    nodes = {n["node"]: n for n in triage_json("fleet")["nodes"]}
    assert nodes[fleet.json_report]["file"] == f"fleet/{fleet.json_report}.report.json"
    assert nodes[fleet.markdown_report]["file"] == f"fleet/{fleet.markdown_report}.md"
    assert nodes[fleet.named]["file"] == "fleet/facts-from-pod-7f9c.json"
    assert all(nodes[n]["status"] == "ok" for n in (fleet.json_report, fleet.markdown_report, fleet.named))
    assert "facts-from-pod-7f9c" not in nodes


def test_globs_and_files_give_the_same_fleet_as_the_directory(fleet: Planted) -> None:
    whole = triage_json("fleet")
    assert triage_json("fleet/*.json", "fleet/*.md") == whole
    files = sorted(str(p) for p in Path("fleet").iterdir())
    assert triage_json(*files)["groups"] == whole["groups"]


@pytest.mark.parametrize(("fmt", "name"), [("terminal", "fleet.txt"), ("markdown", "fleet.md"), ("json", "fleet.json")])
def test_goldens(fleet: Planted, golden: Any, fmt: str, name: str) -> None:
    golden(name, run(["fleet", "--format", fmt], 1).stdout)


def test_drain_list_and_exit_codes(fleet: Planted, tmp_path: Path) -> None:
    run(["fleet", "--drain-list", "drain.tsv"], 1)
    assert Path("drain.tsv").read_text() == (
        "n001\tgpudoctor: driver.too-old-for-torch\nn002\tgpudoctor: driver.too-old-for-torch\n"
        f"{fleet.ecc}\tgpudoctor: gpu.ecc\n")
    run(["fleet", "--drain-list", "drain.tsv", "--fail-on", "warning"], 1)
    lines = Path("drain.tsv").read_text().splitlines()
    assert f"{fleet.missing_gpu}\tgpudoctor: drift gpu_count=7" in lines
    assert f"{fleet.throttled}\tgpudoctor: gpu.throttled" in lines
    assert f"{fleet.torch_drift[0]}\tgpudoctor: drift torch=2.13.0+cu130" in lines
    assert len(lines) == 3 + 1 + 1 + len(fleet.torch_drift)
    run(["fleet", "--drain-list", "drain.tsv", "--fail-on", "never"], 0)
    assert Path("drain.tsv").read_text() == ""
    Path("fleet", "n040.json").unlink()  # the corrupt file
    (Path("fleet") / f"{fleet.ecc}.json").unlink()
    for name in fleet.old_driver:
        (Path("fleet") / f"{name}.json").unlink()
    run(["fleet", "--drain-list", "drain.tsv"], 0)
    assert Path("drain.tsv").read_text() == ""


def test_one_file_with_drain_list_is_a_fleet_of_one(fleet: Planted) -> None:
    result = run([f"fleet/{fleet.ecc}.json", "--drain-list", "drain.tsv"], 1)
    assert result.stdout.startswith("gpudoctor 0.1.0 fleet triage: 1 node from 1 file\n")
    assert Path("drain.tsv").read_text() == f"{fleet.ecc}\tgpudoctor: gpu.ecc\n"


def test_drain_commands_quote_hostile_node_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = (SCENARIOS / "health-ecc-pending.json").read_text()
    for name in ("n'1;rm -rf ~", "a|b"):
        Path(f"{name}.json").write_text(text)
    out = run([".", "--format", "markdown"], 1).stdout
    command = next(line for line in out.splitlines() if line.startswith("scontrol"))
    assert shlex.split(command) == ["scontrol", "update", "NodeName=a|b,n'1;rm_-rf_~", "State=DRAIN",
                                    "Reason=gpudoctor: gpu.ecc"]
    assert "| 2: a\\|b,n'1;rm\\_-rf\\_\\~ |" in out


def _codes(path: Path) -> List[str]:
    report = run_checks(registry.discover(plugins=False), load_facts(*read_input(str(path))))
    found = [f.code for r in report.results for f in r.findings if f.severity.rank >= Severity.WARNING.rank]
    found += [f"crash:{r.check}" for r in report.results if r.status.value == "crash"]
    return sorted(set(found))


def test_scenarios_as_a_fleet_agree_with_one_diagnosis_each() -> None:
    data = triage_json(str(SCENARIOS / "*.json"))
    paths = sorted(SCENARIOS.glob("*.json"))
    assert data["files"] == len(paths) and not data["unreadable"]
    nodes = {n["node"]: n for n in data["nodes"]}
    assert sorted(nodes) == sorted(p.stem for p in paths)
    for path in paths:
        assert sorted(nodes[path.stem]["codes"]) == _codes(path), path.name
    in_groups = {(g["code"], node) for g in data["groups"] for node in g["nodes"]}
    assert {("gpu.arch-too-new", "rtx5090-cu126"), ("driver.too-old-for-torch", "driver470-cu121"),
            ("gpu.ecc", "health-ecc-pending"), ("driver.nvml-mismatch", "nvml-mismatch")} <= in_groups
    # a mixed collection has no majority driver or torch: no node is singled out for them
    assert {s["trait"] for s in data["no_majority"]} >= {"driver", "torch"}
    assert not [d for d in data["drift"] if d["trait"] in ("driver", "torch")]


def test_unredacted_facts_are_redacted_for_markdown_not_for_the_terminal(tmp_path: Path) -> None:
    files = [str(SCENARIOS / "driver470-cu121.json"), str(SCENARIOS / "rtx5090-cu126.json")]
    assert "/home/ana/venv/bin/python" in run(files, 1).stdout
    markdown = run([*files, "--format", "markdown"], 1).stdout
    assert "/home/ana" not in markdown
    assert "~/venv/bin/python -m pip install torch==2.13.0+cu129" in markdown


def _bad_files(tmp: Path) -> Dict[str, Optional[bytes]]:
    return {
        "empty.json": b"",
        "garbage.json": bytes(range(256)),
        "new.json": b'{"meta": {"schema": 9}}',
        "list.json": b"[1, 2]",
        "prose.txt": b"my gpu is broken, pls help\n",
        "nofacts.md": b"## gpudoctor report\n\n| check | status | summary |\n",
    }


def test_bad_files_are_one_row_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name, data in _bad_files(tmp_path).items():
        Path(name).write_bytes(data or b"")
    Path("good.json").write_text((SCENARIOS / "healthy-h100.json").read_text())
    Path("again").mkdir()
    Path("again", "good.md").write_text((SCENARIOS / "healthy-h100.json").read_text())
    data = triage_json(".", "again", "missing.json")
    rows = {u["file"]: u["error"] for u in data["unreadable"]}
    assert rows == {
        "./empty.json": "empty",
        "./garbage.json": "binary data, not a report (it contains NUL bytes)",
        "./new.json": ("facts: facts schema 9 is newer than this gpudoctor understands (1); upgrade gpudoctor to "
                       "read it"),
        "./list.json": "JSON list, not gpudoctor facts or a report",
        "./prose.txt": ("not gpudoctor facts, a gpudoctor report or PyTorch collect_env output; run `python -m "
                        "torch.utils.collect_env` or `gpudoctor facts` and diagnose that"),
        "./nofacts.md": ("a gpudoctor markdown report without its embedded facts; paste the whole report including "
                         "the <details> facts block, or run `gpudoctor facts`"),
        "again/good.md": "node good again (first read from ./good.json); this file is left out",
        "missing.json": "no such file",
    }
    assert [n["node"] for n in data["nodes"]] == ["good"]
    run([".", "--fail-on", "never"], 0)


@pytest.mark.parametrize("sources", [["empty-dir"], ["empty-dir/*.json"], ["nothing-*.json"]])
def test_an_empty_set_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             sources: List[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("empty-dir").mkdir()
    Path("empty-dir", "notes.log").write_text("not an input\n")
    result = run(sources, 2)
    assert result.stdout == ""
    assert result.stderr == (f"error: no input files in {' '.join(sources)} (looked for .json, .md, .markdown, "
                             ".txt files)\n")


def test_standard_input_cannot_join_a_fleet(tmp_path: Path) -> None:
    result = run([str(SCENARIOS / "healthy-h100.json"), "-"], 2)
    assert result.stderr == "error: '-' (standard input) cannot be one of several inputs; save it to a file\n"


def test_an_unwritable_drain_list_is_refused_before_reading(tmp_path: Path) -> None:
    result = run([str(SCENARIOS), "--drain-list", str(tmp_path / "no" / "drain.tsv")], 2)
    assert result.stderr.startswith(f"error: cannot write {tmp_path / 'no' / 'drain.tsv'}: no such directory")


def test_one_file_without_drain_list_is_still_the_single_report() -> None:
    out = run([str(SCENARIOS / "health-ecc-pending.json")], 1).stdout
    assert out.startswith("gpudoctor 0.1.0 (facts loaded from a facts file") and "fleet" not in out
    assert os.path.exists(SCENARIOS / "health-ecc-pending.json")


def test_expected_nodes_without_a_file_are_named(fleet: Planted) -> None:
    Path("fleet", f"{fleet.ecc}.json").unlink()
    data = triage_json("fleet", "--expect", "n[001-042],login")
    assert data["missing"] == {"count": 4, "hostlist": f"login,n[{fleet.ecc[1:]},041-042]",
                               "nodes": ["login", fleet.ecc, "n041", "n042"]}
    assert fleet.corrupt not in data["missing"]["nodes"]  # unreadable, not missing
    Path("nodes.txt").write_text("n[001-040]\n")
    text = run(["fleet", "--expect", "@nodes.txt"], 1).stdout
    assert f"Expected nodes without a file (--expect)\n[?] {fleet.ecc}\n" in text
    assert "1 expected node without a file" in text.splitlines()[-1]
    Path("fleet", f"{fleet.corrupt}.json").unlink()
    for name in fleet.old_driver:
        Path("fleet", f"{name}.json").unlink()
    run(["fleet", "--expect", "n[003-039]", "--fail-on", "error"], 1)
    run(["fleet", "--expect", "n[003-037,039]", "--fail-on", "error"], 0)


@pytest.mark.parametrize(("expect", "message"), [
    ("n[001-", "error: --expect: unbalanced brackets in 'n[001-'\n"),
    ("n[9-1]", "error: --expect: '9-1' in 'n[9-1]' is an empty or too large range\n"),
    ("@nowhere.txt", "error: nowhere.txt: no such file\n"),
])
def test_a_bad_expect_is_one_line_and_exit_2(fleet: Planted, expect: str, message: str) -> None:
    result = run(["fleet", "--expect", expect], 2)
    assert result.stderr == message and result.stdout == ""


def test_worker_processes_give_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    planted = write_fleet(Path("big"), 300)  # more than the files judged before workers start
    Path("big", "n002.md").write_text((SCENARIOS / "healthy-h100.json").read_text())  # a duplicate node
    one = run(["big", "--format", "json", "--jobs", "1"], 1).stdout
    assert run(["big", "--format", "json", "--jobs", "3"], 1).stdout == one
    data = json.loads(one)
    assert data["files"] == 301 and len(data["nodes"]) == 299
    assert [u["node"] for u in data["unreadable"]] == ["n002", planted.corrupt]
    assert data["groups"][0]["nodes"] == list(planted.old_driver)
