"""Input and output that are broken or absurd give one line and exit code 2, never an internal error or a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

GPUDOCTOR = [sys.executable, "-m", "gpudoctor"]
INTERNAL = "please report this"


def _run(args: List[str], tmp_path: Path, **kwargs: object) -> subprocess.CompletedProcess:
    return subprocess.run(GPUDOCTOR + args, cwd=tmp_path, capture_output=True, text=True, timeout=600, **kwargs)


def _one_line_error(done: subprocess.CompletedProcess, starts: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(starts) and INTERNAL not in lines[0], done.stderr


@pytest.mark.parametrize("content, message", [
    ("[" * 100_000 + "]" * 100_000, "error: in.json: nested too deeply to be a report"),
    ('{"meta": {"schema": 1' + "0" * 5000 + "}}", "error: in.json: holds a number with more than 4,300 digits"),
])
def test_absurd_json_is_an_input_error(content: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text(content, encoding="utf-8")
    _one_line_error(_run(["diagnose", "in.json"], tmp_path), message)


def test_a_huge_value_is_cut_in_the_error_line(tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text(json.dumps({"meta": {"schema": "x" * 9_000_000}}), encoding="utf-8")
    done = _run(["diagnose", "in.json"], tmp_path)
    _one_line_error(done, "error: in.json:")
    assert len(done.stderr) < 1000 and "characters cut" in done.stderr


def test_absurd_but_well_typed_values_are_judged_without_crashing(tmp_path: Path) -> None:
    facts = {"meta": {"schema": 1}, "gpus": [{"index": 2**63, "name": "x", "compute_capability": [999, 999]}],
             "torch": {"installed": True, "version": "1" * 4400, "devices": [{"index": 2**63}]}}
    (tmp_path / "in.json").write_text(json.dumps(facts), encoding="utf-8")
    for fmt in ("terminal", "markdown", "json"):
        done = _run(["diagnose", "in.json", "--format", fmt], tmp_path)
        assert done.returncode in (0, 1, 2) and INTERNAL not in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("capability", [[-1, 0], [999, 999], [8, -6]])
def test_a_compute_capability_no_gpu_has_is_an_input_error_not_a_crash_row(capability: list, tmp_path: Path) -> None:
    facts = {"meta": {"schema": 1}, "gpus": [{"index": 0, "name": "x", "compute_capability": capability}],
             "torch": {"installed": True, "version": "2.6.0+cu126", "cuda": "12.6"}}
    (tmp_path / "in.json").write_text(json.dumps(facts), encoding="utf-8")
    done = _run(["diagnose", "in.json"], tmp_path)
    _one_line_error(done, "error: in.json: ")
    assert "facts.gpus[0].compute_capability must hold numbers from 0 to 99" in done.stderr


def test_closed_stdin_and_stdout_and_a_full_disk(tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text(json.dumps({"meta": {"schema": 1}}), encoding="utf-8")
    _one_line_error(_run(["diagnose", "-"], tmp_path,
                         preexec_fn=lambda: os.close(0)), "error: standard input is closed")
    done = subprocess.run(GPUDOCTOR + ["diagnose", "in.json"], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                          timeout=600, preexec_fn=lambda: os.close(1))
    _one_line_error(done, "error: standard output is closed")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            done = subprocess.run(GPUDOCTOR + ["diagnose", "in.json"], cwd=tmp_path, stdout=full,
                                  stderr=subprocess.PIPE, text=True, timeout=600)
        _one_line_error(done, "error: cannot write to standard output: No space left on device")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_with_no_writer_is_an_error_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    _one_line_error(_run(["diagnose", "pipe"], tmp_path), "error: pipe: a pipe that nothing writes to")


@pytest.mark.parametrize("args, message", [
    (["check", "--timeout", "nan"], "nan is not a number of seconds"),
    (["check", "--timeout", "inf"], "inf is not a number of seconds"),
    (["check", "--python", ""], "is empty; give the path of a Python interpreter"),
])
def test_options_that_are_no_value_are_refused(args: List[str], message: str, tmp_path: Path) -> None:
    done = _run(args, tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_an_interpreter_that_hangs_before_its_first_record_is_an_error(tmp_path: Path) -> None:
    from gpudoctor.facts import Facts
    from gpudoctor.model import Status
    from gpudoctor.probes.child_process import spawn
    from gpudoctor.probes.torch import interpret
    from gpudoctor.registry import discover
    from gpudoctor.runner import run_checks

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexec sleep 1000\n", encoding="utf-8")
    fake.chmod(0o755)
    result = interpret(spawn(str(fake), timeout=1), 1)
    assert result.torch.timed_out
    facts = Facts(torch=result.torch, probe_errors=result.errors)
    torch_row = next(r for r in run_checks(discover(plugins=False).select(["torch"]), facts).results if r.check == "torch")
    assert torch_row.status is Status.FAIL




@pytest.mark.parametrize("gpu, message", [
    ({"index": 2**63}, "gpus[0].index is out of range (19 digits)"),
    ({"index": 0, "memory_total_mib": 10**30}, "gpus[0].memory_total_mib is out of range (31 digits)"),
])
def test_integers_past_64_bits_are_an_input_error(gpu: dict, message: str, tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text(json.dumps({"meta": {"schema": 1}, "gpus": [gpu]}), encoding="utf-8")
    _one_line_error(_run(["diagnose", "in.json"], tmp_path), "error: in.json:")
    assert message in _run(["diagnose", "in.json"], tmp_path).stderr


def test_a_nan_in_a_facts_file_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text('{"meta": {"schema": 1}, "verify": {"runs": [{"accuracy": NaN}]}}',
                                      encoding="utf-8")
    _one_line_error(_run(["diagnose", "in.json"], tmp_path), "error: in.json:")
    assert "verify.runs[0].accuracy must be a finite number, got nan" in _run(["diagnose", "in.json"], tmp_path).stderr
