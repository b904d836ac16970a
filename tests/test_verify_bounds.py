"""A verify worker that prints without end is stopped at a cap, under a memory limit, on either stream."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gpudoctor import launch

STAGE = '{"event": "stage", "stage": "train", "device": "cuda:0", "model": "fnn"}'


@pytest.mark.parametrize("shell", [
    f"echo '{STAGE}'; exec yes 'not a record'",  # endless lines on stdout
    f"echo '{STAGE}'; exec cat /dev/zero",  # one endless line without a newline
    f"echo '{STAGE}'; exec yes 'noise' >&2",  # endless stderr
])
def test_an_endless_worker_is_stopped_at_the_cap_under_a_memory_limit(shell: str) -> None:
    program = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (768 * 1024 * 1024, 768 * 1024 * 1024))
        from gpudoctor import launch
        outcome = launch.run(["/bin/sh", "-c", {shell!r}], 3600, lambda record: None)
        print(outcome.failure_kind(), len(outcome.garbage), sum(len(g) for g in outcome.garbage) <= 2000)
        print(outcome.failure())
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    kind, failure = done.stdout.splitlines()
    assert kind.split()[0] == "garbage" and kind.split()[2] == "True"
    assert failure == "printed more than 16 MiB of output and was stopped during train fnn"


def test_garbage_kept_is_bounded() -> None:
    outcome = launch.run([sys.executable, "-c", "for i in range(1000): print('junk', i)"], 600, lambda r: None)
    assert len(outcome.garbage) == launch.GARBAGE_KEPT
