"""Child processes are bounded: output past a cap stops them, a time limit or Ctrl-C stops their whole group;
streamed lines arrive whole, and the way a child ended is described on POSIX and Windows."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import List

import pytest
from gpudoctor.probes import process
from gpudoctor.probes.child_process import OUTPUT_CAP, spawn
from gpudoctor.probes.command import run_command
from gpudoctor.probes.process import crashed, ending
from gpudoctor.probes.python import PythonError, validate
from gpudoctor.probes.torch import interpret

posix_only = pytest.mark.skipif(os.name != "posix", reason="fake interpreters are shell scripts")


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


def _ends(pid: int, bound: int = 1200) -> bool:
    """The process is gone, or goes within a generous bound on polls: a killed process dies when it is next
    scheduled, which on a loaded machine can be a moment after the kill."""
    for _ in range(bound):
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


def _wait_for(path: Path, bound: int = 1200) -> str:
    for _ in range(bound):  # a generous bound on polls, not a speed requirement
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


def test_a_sink_keeps_the_head_and_the_tail() -> None:
    sink = process.Sink(8)
    assert not sink.add(b"abcdef")
    assert sink.text() == "abcdef"
    assert sink.add(b"ghijkl")
    assert sink.text() == "abcd\n[... 4 bytes left out ...]\nijkl"


@posix_only
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


@posix_only
def test_overflow_is_reported_as_the_way_the_probe_ended(tmp_path: Path) -> None:
    fake = _script(tmp_path, "exec yes 'x'\n")
    run = spawn(str(fake), timeout=3600)
    assert run.overflowed and run.returncode == -signal.SIGKILL
    result = interpret(run, 3600)
    assert result.torch.crashed == "printed more than 32 MiB and was stopped"
    assert result.errors[-1] == ("torch", "the torch probe printed more than 32 MiB and was stopped while starting the "
                                          "torch probe")


@posix_only
def test_a_command_that_prints_without_end_is_stopped(tmp_path: Path) -> None:
    fake = _script(tmp_path, "exec yes 'x'\n", "nvidia-smi")
    result = run_command([str(fake)], timeout=3600)
    assert result.error == "nvidia-smi printed more than 4 MiB and was stopped"


@posix_only
def test_validation_that_times_out_stops_what_the_interpreter_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    fake = _script(tmp_path, f"sleep 1000 &\necho $! > {pid_file}\nwait\n")
    with pytest.raises(PythonError, match="did not answer within 2 s"):
        validate(str(fake), timeout=2)
    assert _ends(int(_wait_for(pid_file)))


@posix_only
def test_validation_of_an_interpreter_that_prints_without_end(tmp_path: Path) -> None:
    fake = _script(tmp_path, "exec yes 'x'\n")
    with pytest.raises(PythonError, match="printed more than 1 MiB without answering"):
        validate(str(fake), timeout=3600)


@posix_only
def test_ctrl_c_stops_the_probe_group_at_once(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    fake = _script(tmp_path, f"sleep 1000 &\necho $! > {pid_file}\nwait\n")
    program = f"from gpudoctor.probes.child_process import spawn\nspawn({str(fake)!r}, timeout=3600)\n"
    proc = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE, text=True)
    pid = int(_wait_for(pid_file))
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert "KeyboardInterrupt" in err
    assert _ends(pid)


@posix_only
def test_the_torch_child_keeps_torch_caches_in_its_temporary_folder(tmp_path: Path) -> None:
    fake = _script(tmp_path, 'echo "$TORCHINDUCTOR_CACHE_DIR"; echo "$TRITON_CACHE_DIR"; echo "$PWD"\n')
    run = spawn(str(fake), timeout=3600)
    inductor, triton, cwd = run.stdout.split()
    assert inductor == os.path.join(cwd, "torchinductor") and triton == os.path.join(cwd, "triton")
    assert not os.path.exists(cwd)


@pytest.mark.parametrize(
    "returncode, text, is_crash",
    [
        (None, "was stopped", False),
        (-11, "killed by signal 11 (SIGSEGV)", True),
        (-9, "killed by signal 9 (SIGKILL)", True),
        (-200, "killed by signal 200 (unknown signal)", True),
        (0xC0000005, "crashed with access violation (0xC0000005)", True),
        (3, "exited with status 3", False),
    ],
)
def test_endings(returncode: int, text: str, is_crash: bool) -> None:
    assert ending(returncode) == text
    assert crashed(returncode) is is_crash
    assert (process.Outcome(returncode=returncode).ending(), process.Outcome(returncode=returncode).crashed) == (
        text, is_crash)


def test_a_counting_sink_keeps_nothing() -> None:
    sink = process.Sink(8, keep=False)
    assert not sink.add(b"abcdef")
    assert (sink.text(), sink.total) == ("", 6)
    assert sink.add(b"ghi")


@pytest.mark.parametrize("chunks, lines", [
    ([b"a\nb\n"], ["a", "b"]),
    ([b"a\r\nb\rc\n"], ["a", "b", "c"]),  # universal newlines, as a text-mode pipe reads them
    ([b"a\r", b"\nb"], ["a", "b"]),  # a "\r\n" split between two reads is one line end
    ([b"ab", b"cd\ne"], ["abcd", "e"]),  # a line split between two reads arrives whole; the last has no end
    ([b"0123456789"], ["0123", "4567", "89"]),  # a line longer than the cap comes in pieces
    ([b"0123\n"], ["0123"]),
    ([b"\xc3\xa9\xff\n"], ["\u00e9\ufffd"]),  # bad bytes are replaced
])
def test_lines_are_cut_as_universal_newlines_with_a_bound(chunks: List[bytes], lines: List[str]) -> None:
    cutter = process._Lines(4)
    got = [line for chunk in chunks for line in cutter.feed(chunk)]
    assert got + cutter.feed(b"", final=True) == lines


def test_a_streamed_child_hands_over_each_line_and_keeps_stderr() -> None:
    seen: List[str] = []
    code = "import sys; print('one'); sys.stderr.write('warned\\n'); print('two', end='')"
    done = process.stream([sys.executable, "-c", code], 600, seen.append)
    assert seen == ["one", "two"]
    assert (done.stdout, done.stderr, done.returncode, done.timed_out, done.overflowed) == ("", "warned\n", 0,
                                                                                              False, False)


@posix_only
def test_a_streamed_child_is_stopped_when_the_callback_raises(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    fake = _script(tmp_path, f"sleep 1000 &\necho $! > {pid_file}\necho go\nwait\n")

    def stop(line: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        process.stream([str(fake)], 3600, stop)
    assert _ends(int(_wait_for(pid_file)))


@posix_only
def test_a_streamed_child_past_the_cap_is_stopped_with_the_lines_before_it(tmp_path: Path) -> None:
    seen: List[str] = []
    fake = _script(tmp_path, "echo first\nexec yes 'x'\n")
    done = process.stream([str(fake)], 3600, seen.append, cap=process.MIB)
    assert done.overflowed and not done.timed_out and done.crashed
    assert seen[0] == "first" and set(seen[1:]) <= {"x"} and len(seen) <= process.MIB // 2 + 1


def test_a_child_that_cannot_start_says_why() -> None:
    done = process.run(["/nonexistent/python3"], 600)
    assert done.start_error == "No such file or directory" and done.returncode is None
