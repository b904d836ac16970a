"""A verify worker that prints without end is stopped at a cap, under a memory limit, on either stream."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from gpudoctor.probes.verify import launch

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
        from gpudoctor.probes.verify import launch
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


WRONG = ([1], {"a": 1}, "text", True, float("nan"), 10**30, None)


def test_wrong_typed_worker_records_never_break_the_progress_view() -> None:
    from gpudoctor.render import progress

    base = [
        {"event": "hello", "torch": "2.6.0", "python": "3.11", "cuda_available": True,
         "devices": [{"device": "cuda:0", "name": "GPU"}]},
        {"event": "stage", "stage": "train", "device": "cuda:0", "model": "fnn"},
        {"event": "progress", "device": "cuda:0", "model": "fnn", "step": 3, "total": 10, "samples_per_s": 5.0},
        {"event": "run", "device": "cuda:0", "model": "fnn", "complete": True, "accuracy": 0.9},
    ]
    for index, record in enumerate(base):
        for key in record:
            for wrong in WRONG:
                with progress.View(enabled=True) as view:
                    for i, rec in enumerate(base):
                        view.record(dict(rec, **{key: wrong}) if i == index else rec)


@pytest.mark.parametrize("wrong", WRONG)
def test_wrong_typed_device_lists_from_a_worker_are_dropped(wrong: object) -> None:
    from gpudoctor.probes.verify import assemble

    outcome = launch.Outcome(records=[
        {"event": "smoke", "device": "cuda:0", "ok": True},
        {"event": "bench", "matmul": wrong, "copies": [wrong]},
        {"event": "done"},
    ])
    section = assemble.device_section(outcome, {"event": "hello", "devices": wrong}, assemble.Job("cuda:0", "cuda:0"))
    assert section is not None and section["device"] == "cuda:0"
    assert section["matmul"] == [] and all(isinstance(c, dict) for c in section["copies"])


def test_a_wrong_typed_field_of_a_device_is_dropped_and_named_and_the_rest_kept() -> None:
    from gpudoctor.probes.verify import assemble

    outcome = launch.Outcome(records=[
        {"event": "smoke", "device": "cuda:0", "ok": True, "step": 7},
        {"event": "bench", "matmul": [{"dtype": "fp32", "n": 8192, "tflops": 51.5}]},
        {"event": "done"},
    ])
    hello = {"event": "hello", "devices": [{"device": "cuda:0", "name": "NVIDIA H100", "sm_count": "many"}]}
    section = assemble.device_section(outcome, hello, assemble.Job("cuda:0", "cuda:0"))
    assert section is not None
    assert section["error"] == "the worker sent sm_count, smoke_step with the wrong type; dropped"
    assert (section["name"], section["smoke_ok"], len(section["matmul"])) == ("NVIDIA H100", True, 1)
    assert "sm_count" not in section and "smoke_step" not in section
    assert assemble.valid({"devices": [section]})
