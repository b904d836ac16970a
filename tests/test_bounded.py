"""Child processes are bounded: output past a cap stops them, a time limit or Ctrl-C stops their whole group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from gpudoctor import bounded
from gpudoctor.probes.child_process import OUTPUT_CAP, spawn
from gpudoctor.probes.command import run_command
from gpudoctor.probes.python import PythonError, validate
from gpudoctor.probes.torch import interpret

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fake interpreters are shell scripts")


def _script(tmp_path: Path, body: str, name: str = "python") -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body), encoding="utf-8")
    path.chmod(0o755)
    return path


def _gone(pid: int) -> bool:
    """The process no longer runs (absent, or a zombie waiting to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def _wait_for(path: Path, bound: int = 1200) -> str:
    for _ in range(bound):  # a generous bound on polls, not a speed requirement
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


def test_a_sink_keeps_the_head_and_the_tail() -> None:
    sink = bounded.Sink(8)
    assert not sink.add(b"abcdef")
    assert sink.text() == "abcdef"
    assert sink.add(b"ghijkl")
    assert sink.text() == "abcd\n[... 4 bytes left out ...]\nijkl"


def test_an_endless_torch_child_is_stopped_at_the_cap_under_a_memory_limit(tmp_path: Path) -> None:
    """Run in a process limited to 512 MiB of address space: keeping all the output would fail there."""
    fake = _script(tmp_path, "exec yes 'a line of output that never ends'\n")
    program = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (512 * 1024 * 1024, 512 * 1024 * 1024))
        from gpudoctor.probes.child_process import spawn
        from gpudoctor.probes.torch import interpret
        run = spawn({str(fake)!r}, timeout=3600)
        result = interpret(run, 3600)
        print(run.overflowed, len(run.stdout) <= {OUTPUT_CAP} + 100, result.torch.crashed)
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split(maxsplit=2) == ["True", "True", "printed more than 32 MiB and was stopped\n"]


def test_overflow_is_reported_as_the_way_the_probe_ended(tmp_path: Path) -> None:
    fake = _script(tmp_path, "exec yes 'x'\n")
    run = spawn(str(fake), timeout=3600)
    assert run.overflowed and run.returncode == -signal.SIGKILL
    result = interpret(run, 3600)
    assert result.torch.crashed == "printed more than 32 MiB and was stopped"
    assert result.errors[-1] == ("torch", "the torch probe printed more than 32 MiB and was stopped while starting the "
                                          "torch probe")


def test_a_command_that_prints_without_end_is_stopped(tmp_path: Path) -> None:
    fake = _script(tmp_path, "exec yes 'x'\n", "nvidia-smi")
    result = run_command([str(fake)], timeout=3600)
    assert result.error == "nvidia-smi printed more than 4 MiB and was stopped"


def test_validation_that_times_out_stops_what_the_interpreter_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    fake = _script(tmp_path, f"sleep 1000 &\necho $! > {pid_file}\nwait\n")
    with pytest.raises(PythonError, match="did not answer within 2 s"):
        validate(str(fake), timeout=2)
    assert _gone(int(_wait_for(pid_file)))


def test_validation_of_an_interpreter_that_prints_without_end(tmp_path: Path) -> None:
    fake = _script(tmp_path, "exec yes 'x'\n")
    with pytest.raises(PythonError, match="printed more than 1 MiB without answering"):
        validate(str(fake), timeout=3600)


def test_ctrl_c_stops_the_probe_group_at_once(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    fake = _script(tmp_path, f"sleep 1000 &\necho $! > {pid_file}\nwait\n")
    program = f"from gpudoctor.probes.child_process import spawn\nspawn({str(fake)!r}, timeout=3600)\n"
    proc = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE, text=True)
    pid = int(_wait_for(pid_file))
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert "KeyboardInterrupt" in err
    assert _gone(pid)


def test_the_torch_child_keeps_torch_caches_in_its_temporary_folder(tmp_path: Path) -> None:
    fake = _script(tmp_path, 'echo "$TORCHINDUCTOR_CACHE_DIR"; echo "$TRITON_CACHE_DIR"; echo "$PWD"\n')
    run = spawn(str(fake), timeout=3600)
    inductor, triton, cwd = run.stdout.split()
    assert inductor == os.path.join(cwd, "torchinductor") and triton == os.path.join(cwd, "triton")
    assert not os.path.exists(cwd)
