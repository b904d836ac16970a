"""The parent side: the worker protocol with stand-in workers (every way of dying named) and the progress view."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest
from rich.console import Console

from gpudoctor.probes.verify import launch
from gpudoctor.render import progress as view

STAGE = '{"event": "stage", "stage": "train", "device": "cuda:0", "model": "fnn"}'


def run(code: str, timeout: float = 20.0) -> launch.Outcome:
    seen: List[Dict[str, Any]] = []
    outcome = launch.run([sys.executable, "-c", code], timeout, seen.append)
    assert seen == outcome.records
    return outcome


def test_a_finished_worker_streams_its_records_and_has_no_failure() -> None:
    outcome = run(f'print(\'{STAGE}\'); print(\'{{"event": "done", "gpu": true}}\')')
    assert outcome.records == [
        {"event": "stage", "stage": "train", "device": "cuda:0", "model": "fnn"},
        {"event": "done", "gpu": True},
    ]
    assert (outcome.finished, outcome.failure_kind(), outcome.failure(), outcome.returncode) == (True, None, None, 0)


def test_a_crash_names_the_signal_and_the_stage() -> None:
    outcome = run(
        f"import os, signal, sys; print('{STAGE}', flush=True); sys.stderr.write('boom\\n'); "
        "os.kill(os.getpid(), signal.SIGSEGV)"
    )
    assert outcome.failure_kind() == "crashed"
    assert outcome.failure() == "was killed by signal 11 (SIGSEGV) during train fnn; its last words: boom"


def test_a_hang_is_killed_at_the_time_limit() -> None:
    start = time.monotonic()
    outcome = run(f"import time; print('{STAGE}', flush=True); time.sleep(60)", timeout=1.5)
    assert time.monotonic() - start < 10
    assert outcome.failure_kind() == "timeout"
    assert outcome.failure() == "did not finish within 1.5 s and was stopped (it hung during train fnn)"


def test_garbage_on_stdout_is_not_taken_for_records() -> None:
    outcome = run("print('Segmentation fault (core dumped)'); print('[1, 2]'); print('{\"no\": \"event\"}')")
    assert outcome.records == []
    assert outcome.garbage == ["Segmentation fault (core dumped)", "[1, 2]", '{"no": "event"}']
    assert outcome.failure_kind() == "garbage"
    assert outcome.failure() == (
        "printed output that is not gpudoctor's protocol ('Segmentation fault (core dumped)'; '[1, 2]') and stopped"
    )


def test_an_exit_status_comes_with_the_last_line_of_stderr() -> None:
    outcome = run("import sys; sys.stderr.write('Traceback...\\nImportError: libcudnn.so.9\\n'); sys.exit(3)")
    assert outcome.failure() == "exited with status 3 before finishing; its last words: ImportError: libcudnn.so.9"


def test_a_fatal_record_speaks_for_itself() -> None:
    outcome = run(
        'print(\'{"event": "fatal", "kind": "import", "error": "ModuleNotFoundError: No module named torch"}\')'
    )
    assert (outcome.failure_kind(), outcome.failure()) == (
        "import",
        "failed: ModuleNotFoundError: No module named torch",
    )


def test_an_interpreter_that_cannot_start() -> None:
    outcome = launch.run(["/nonexistent/python3"], 5.0, lambda r: None)
    assert outcome.failure_kind() == "start"
    assert outcome.failure() == (
        "failed: /nonexistent/python3 cannot be started: No such file or directory"
    )


def test_the_parent_side_never_imports_torch() -> None:
    code = (
        "import sys, gpudoctor.probes.verify.runner, gpudoctor.render.progress, gpudoctor.checks.verify; "
        "print(sorted(m for m in ('torch', 'torchvision', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout == "[]\n"


def test_the_view_logs_stages_and_draws_a_bar_per_model_and_device(monkeypatch: pytest.MonkeyPatch) -> None:
    buf = io.StringIO()
    monkeypatch.setattr(view, "_console", lambda: Console(file=buf, width=100, markup=False, emoji=False))
    records: List[Dict[str, Any]] = [
        {"event": "stage", "stage": "cuda-init"},
        {
            "event": "hello",
            "torch": "2.14.1+cu130",
            "python": "3.11.7",
            "cuda_available": True,
            "devices": [{"device": "cuda:0", "name": "NVIDIA H100 80GB HBM3"}],
        },
        {"event": "stage", "stage": "smoke", "device": "cuda:0"},
        {"event": "smoke", "device": "cuda:0", "ok": True},
        {"event": "parity", "device": "cuda:0", "model": "fnn", "ok": False, "error": None},
        {"event": "stage", "stage": "train", "device": "cuda:0", "model": "fnn"},
        {"event": "progress", "model": "fnn", "device": "cuda:0", "step": 400, "total": 4690, "samples_per_s": 1.5e5},
        {"event": "run", "model": "fnn", "device": "cuda:0", "complete": True, "accuracy": 0.9812},
        {"event": "hello", "torch": "2.14.1+cu130", "python": "3.11.7", "cuda_available": False},
        {"event": "stage", "stage": "train", "device": "cpu", "model": "cnn"},
        {"event": "progress", "model": "cnn", "device": "cpu", "step": 40, "total": 4690, "samples_per_s": 6000.0},
        {"event": "run", "model": "cnn", "device": "cpu", "complete": False},
    ]
    with view.View(True) as shown:
        for record in records:
            shown.record(record)
        shown.finished("cpu", "was killed by signal 9 (SIGKILL)")
    assert buf.getvalue() == (
        "torch 2.14.1+cu130 under Python 3.11.7: cuda:0 NVIDIA H100 80GB HBM3\n"
        "cuda:0: smoke test\n"
        "cuda:0: kernels run and agree with the CPU\n"
        "cuda:0: fnn parity FAILED\n"
        "cpu: the worker was killed by signal 9 (SIGKILL)\n"
        "fnn on cuda:0: 98.1% accuracy ━━━━━━━━ 4,690/4,690   150k samples/s 0:00:00\n"
        "cnn on cpu: budget reached             40/4,690      6.0k samples/s 0:00:00\n"
    )


def test_a_disabled_view_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with view.View(False) as shown:
        shown.record({"event": "hello", "torch": "2.14.1", "python": "3.11.7", "cuda_available": False})
        shown.record({"event": "stage", "stage": "train", "device": "cpu", "model": "fnn"})
        shown.finished("cpu", "was killed by signal 9 (SIGKILL)")
    assert capsys.readouterr() == ("", "")


class Recorder:
    """A progress view that writes down what the verify probe shows it."""

    def __init__(self) -> None:
        self.seen: List[Any] = []

    @contextlib.contextmanager
    def downloads(self) -> Iterator[None]:
        self.seen.append("downloads")
        yield None

    @contextlib.contextmanager
    def workers(self) -> Iterator["Recorder"]:
        self.seen.append("workers")
        yield self
        self.seen.append("workers done")

    def record(self, rec: Dict[str, Any]) -> None:
        self.seen.append(rec["event"])

    def finished(self, label: str, failure: Optional[str]) -> None:
        self.seen.append((label, failure))


@pytest.mark.skipif(os.name != "posix", reason="the stand-in interpreter is a shell script")
def test_the_probe_shows_its_progress_to_the_view_it_is_given(tmp_path: Path) -> None:
    from gpudoctor.probes.verify.runner import run_verify

    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-S" ]; then echo "GPUDOCTOR-PY 3.11.7"; echo "$0"; exit 0; fi\n'  # the interpreter check
        'echo \'{"event": "hello", "torch": "2.14.1", "cuda_available": false}\'\n'
        'case "$*" in *"--device cpu"*) echo \'{"event": "done"}\' ;; *) exit 3 ;; esac\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)
    recorder = Recorder()
    run_verify(str(fake), "synthetic", None, False, None, 1, 600.0, recorder)
    assert recorder.seen == ["workers", "hello", ("cuda:0", "exited with status 3 before finishing"), "hello",
                             "done", ("cpu", None), "workers done"]


def test_only_the_end_of_stderr_is_kept_and_its_last_words_come_from_there() -> None:
    outcome = run("import sys; sys.stderr.write(''.join('noise %d\\n' % i for i in range(5000)) + 'x' * 9000); "
                  "sys.exit(3)")
    assert len(outcome.stderr_tail) == launch.TAIL_LINES and outcome.stderr_tail[-2] == "noise 4999"
    assert outcome.failure() == "exited with status 3 before finishing; its last words: " + "x" * 300
    assert len(outcome.stderr_tail[-1]) == launch.TAIL_LINE
