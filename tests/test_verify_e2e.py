"""``run_verify`` end to end on the CPU: real workers, real dataset files, injected faults, the verify checks' verdicts.

The worker honours two hidden test hooks: GPUDOCTOR_VERIFY_TEST_ACCELERATOR=cpu lets the CPU stand in for the GPU
under test (so smoke, parity, training and benchmarks all run here), and GPUDOCTOR_VERIFY_TEST_FAULT injects a crash,
hang, garbage output or out-of-memory error at a worker's first training step.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from gpudoctor.checks.verify import CHECKS
from gpudoctor.facts import Facts
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks
from gpudoctor.trainers.data import CHECKSUMS_ENV
from gpudoctor.trainers.protocol import ACCELERATOR_ENV, FAULT_ENV
from gpudoctor.facts.verify import VerifyFacts, WorkerFailure
from gpudoctor.probes.verify.runner import VerifyInputError, run_verify

pytest.importorskip("torch")
pytest.importorskip("torchvision")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"
STAND_IN = "CPU (test stand-in for a GPU)"
BASIS = (
    "{seen} samples seen (2,400 training images of MNIST); the bar for at least 6,000: seed 001's FNN reaches 30% "
    "or more by then, the CNN 50%"
)


def datagen():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("verify_datagen", FIXTURES / "datagen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verify(
    dataset: str = "synthetic",
    data_dir: Optional[str] = None,
    epochs: int = 3,
    timeout: float = 120.0,
    train_size: Optional[int] = 3000,
    test_size: Optional[int] = 300,
    cpu_steps: Optional[int] = 100,
    **env: str,
) -> VerifyFacts:
    return run_verify(
        None,
        dataset,
        None,
        False,
        data_dir,
        epochs,
        timeout,
        cpu_seconds=0.5,
        cpu_steps=cpu_steps,
        speed_batch=128,
        train_size=train_size,
        test_size=test_size,
        env=dict(os.environ, **env),
    )


def verdicts(v: VerifyFacts) -> Dict[str, Tuple[str, List[str]]]:
    report = run_checks(Catalogue(tuple(CHECKS)), Facts(verify=v))
    return {r.check: (r.status.value, [f.code for f in r.findings]) for r in report.results}


def runs(v: VerifyFacts) -> List[Tuple[str, str, Optional[bool], Optional[str]]]:
    return [(r.model, r.device, r.complete, r.error) for r in v.runs]


def test_without_a_gpu_the_cpu_side_runs_and_nothing_is_proven() -> None:
    v = verify(cpu_steps=None)  # the time budget: how far it gets depends on the CPU, the verdicts must not
    assert (v.dataset, v.device, v.cuda_available, v.devices, v.failures, v.python) == (
        "synthetic",
        None,
        False,
        (),
        (),
        sys.executable,
    )
    assert v.cuda_error
    assert [(r.model, r.device, r.train_size, r.test_size, r.batch_size) for r in v.runs] == [
        ("fnn", "cpu", 3000, 300, 64),
        ("cnn", "cpu", 3000, 300, 64),
    ]
    assert all(r.samples_per_s and r.samples > 0 for r in v.runs)
    report = run_checks(Catalogue(tuple(CHECKS)), Facts(verify=v))
    assert report.exit_code() == 1
    smoke = report.results[1]
    cause = "no NVIDIA GPU or driver was found on this machine" if v.cuda_build else f"torch {v.torch_version} is a CPU-only build"
    assert [(f.code, f.severity.value, f.summary) for f in smoke.findings] == [
        ("verify.not-proven", "error", f"GPU acceleration could not be proven: {cause}")
    ]
    assert {k: s for k, (s, _) in verdicts(v).items()} == {
        "verify.worker": "pass",
        "verify.smoke": "fail",
        "verify.parity": "skip",
        "verify.learning": "pass",  # judged by the samples each run saw, whatever that was
        "verify.speedup": "skip",
        "verify.bench": "skip",
    }


def test_a_stand_in_gpu_goes_through_every_stage() -> None:
    v = verify(**{ACCELERATOR_ENV: "cpu"})
    assert (
        v.device,
        v.cuda_available,
        v.device_count,
        v.smoke_ok,
        v.parity_max_rel_diff,
        v.parity_tolerance,
        v.failures,
    ) == ("cuda:0", True, 1, True, 0.0, 1e-3, ())
    (dev,) = v.devices
    assert (dev.device, dev.name, dev.smoke_ok, dev.error, dev.copies) == ("cuda:0", STAND_IN, True, None, ())
    assert [(p.model, p.ok, p.loss_rel_diff, p.grad_rel_diff) for p in dev.parity] == [
        ("fnn", True, 0.0, 0.0),
        ("cnn", True, 0.0, 0.0),
    ]
    assert [(m.dtype, m.n, m.peak_tflops, m.error) for m in dev.matmul] == [
        ("fp32", 128, None, None),
        ("tf32", 128, None, None),
        ("bf16", 128, None, None),
    ]
    assert [(r.speed_batch, r.speed_steps, r.speed_error) for r in v.runs] == [(128, 5, None)] * 4
    assert all(r.speed_samples_per_s for r in v.runs)
    assert [(r.model, r.device, r.complete, r.epochs, r.samples, r.accuracy_required) for r in v.runs] == [
        ("fnn", "cuda:0", True, 3, 9000, 0.3),
        ("cnn", "cuda:0", True, 3, 9000, 0.5),
        ("fnn", "cpu", False, 2, 6384, 0.3),  # 100 steps: the CPU baseline is judged on what it trained
        ("cnn", "cpu", False, 2, 6384, 0.5),
    ]
    got = verdicts(v)
    speed = got.pop("verify.speedup")
    assert got == {
        "verify.worker": ("pass", []),
        "verify.smoke": ("pass", ["verify.smoke-ok"]),
        "verify.parity": ("pass", ["verify.parity-ok", "verify.parity-ok"]),
        "verify.learning": ("pass", ["verify.learned"] * 4),
        "verify.bench": ("pass", ["verify.matmul"] * 3),
    }
    # the CPU against itself, one run time-bounded: the ratio is timing noise around 1x, so only the shape is fixed
    assert len(speed[1]) == 2 and set(speed[1]) <= {"verify.no-speedup", "verify.low-speedup", "verify.speedup"}


def test_mnist_idx_files_in_seed_001_layout_and_an_out_of_memory_gpu_run(tmp_path: Path) -> None:
    seed_root = tmp_path / "Data" / "MNIST"  # seed 001 passes root="../Data/MNIST"
    datagen().write_mnist(seed_root, 2400, 300, gz=True)
    v = verify(
        "mnist", str(seed_root), train_size=None, test_size=None, **{ACCELERATOR_ENV: "cpu", FAULT_ENV: "oom@cuda:0"}
    )
    assert (v.dataset, v.data_dir, v.failures) == ("mnist", str(seed_root), ())
    oom = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; "
        "2.81 GiB already allocated; 25.38 MiB free; 3.06 GiB reserved in total by PyTorch)"
    )
    assert [(r.model, r.device, r.error) for r in v.runs] == [
        ("fnn", "cuda:0", oom.replace("RuntimeError", "OutOfMemoryError")),
        ("cnn", "cuda:0", None),
        ("fnn", "cpu", None),
        ("cnn", "cpu", None),
    ]
    assert [(r.train_size, r.test_size) for r in v.runs[1:]] == [(2400, 300)] * 3
    assert [(r.samples, r.accuracy_required, r.accuracy_basis) for r in v.runs[1:]] == [
        (7200, 0.5, BASIS.format(seen="7,200")),
        (6336, 0.3, BASIS.format(seen="6,336")),  # seed 001's FNN on the CPU, judged on its 100 steps
        (6336, 0.5, BASIS.format(seen="6,336")),
    ]
    assert verdicts(v)["verify.learning"] == ("fail", ["verify.out-of-memory"] + ["verify.learned"] * 3)


def test_cifar10_pickles_pass_the_loader_integrity_check_and_garbage_is_caught(tmp_path: Path) -> None:
    gen = datagen()
    sums = gen.write_cifar10(tmp_path, 100, 200)
    checksums = gen.write_checksums(tmp_path / "sums.json", sums)
    v = verify(
        "cifar10",
        str(tmp_path),
        epochs=2,
        train_size=None,
        test_size=None,
        **{ACCELERATOR_ENV: "cpu", FAULT_ENV: "garbage@cpu", CHECKSUMS_ENV: str(checksums)},
    )
    assert runs(v) == [("lenet", "cuda:0", True, None)]
    assert (v.runs[0].train_size, v.runs[0].test_size, v.runs[0].batch_size) == (500, 200, 64)
    assert v.failures == (
        WorkerFailure(
            "cpu",
            "garbage",
            "printed output that is not gpudoctor's protocol ('Segmentation fault handler: <<<\\x1b[31m not json'; "
            '\'{"event": "progress",\') and stopped during train lenet',
            "train lenet",
        ),
    )
    assert verdicts(v)["verify.worker"] == ("fail", ["verify.worker-garbage"])


# The hung worker is stopped at this limit, which the healthy one must finish well inside even on a loaded
# machine (it needs a few seconds idle): the margin keeps the outcome independent of the machine's speed.
HANG_LIMIT = 90.0


def test_each_gpu_has_its_own_worker_a_crash_keeps_results_and_a_hang_is_stopped() -> None:
    v = run_verify(
        None,
        "synthetic",
        None,
        True,
        None,
        3,
        HANG_LIMIT,
        cpu_seconds=0.5,
        train_size=3000,
        test_size=300,
        env=dict(os.environ, **{ACCELERATOR_ENV: "cpu:2", FAULT_ENV: "crash@cuda:0,hang@cpu"}),
    )
    assert v.failures == (
        WorkerFailure("cuda:0", "crashed", "was killed by signal 11 (SIGSEGV) during train fnn", "train fnn"),
        WorkerFailure(
            "cpu", "timeout", f"did not finish within {HANG_LIMIT:g} s and was stopped (it hung during train fnn)", "train fnn"
        ),
    )
    assert [
        (d.device, d.smoke_ok, [p.ok for p in d.parity], d.error, d.last_stage, len(d.matmul)) for d in v.devices
    ] == [
        ("cuda:0", True, [True, True], "the worker was killed by signal 11 (SIGSEGV) during train fnn", "train fnn", 0),
        ("cuda:1", True, [True, True], None, None, 3),
    ]
    assert runs(v) == [("fnn", "cuda:1", True, None), ("cnn", "cuda:1", True, None)]
    assert v.device_count == 2
    report = run_checks(Catalogue(tuple(CHECKS)), Facts(verify=v))
    assert [(f.code, f.summary) for f in report.results[0].findings] == [
        ("verify.worker-crashed", "The verify worker for cuda:0 was killed by signal 11 (SIGSEGV) during train fnn"),
        (
            "verify.worker-timeout",
            f"The verify worker for the CPU baseline did not finish within {HANG_LIMIT:g} s and was stopped "
            "(it hung during train fnn)",
        ),
    ]
    assert verdicts(v)["verify.learning"] == ("pass", ["verify.learned", "verify.learned"])


def test_a_python_too_old_for_the_worker_is_refused_in_one_line(tmp_path: Path) -> None:
    old = tmp_path / "python3.6"
    old.write_text("#!/bin/sh\necho GPUDOCTOR-PY 3.6.15\necho /usr/bin/python3.6\n")
    old.chmod(0o755)
    with pytest.raises(VerifyInputError) as info:
        run_verify(python=str(old), dataset="synthetic", device=None, all_devices=False, data_dir=None,
                   epochs=None, timeout=60)
    assert str(info.value) == (
        f"--python {old}: is Python 3.6.15; the verify worker needs Python 3.7 or newer "
        "(gpudoctor check still diagnoses this environment)"
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"device": "gpu7"},
            "--device gpu7: not a GPU device; use cuda:N (cuda:0 is the first GPU torch sees; "
            "the CPU side always runs)",
        ),
        ({"device": "cuda:1", "all_devices": True}, "--device cuda:1 and --all-devices exclude each other: pick one"),
        ({"dataset": "imagenet"}, "--train imagenet: choose one of synthetic, mnist, cifar10, catsdogs, folder:PATH"),
        ({"epochs": 0}, "--epochs 0: at least 1 epoch is needed"),
        ({"timeout": 0}, "--timeout 0: the time limit must be positive"),
        (
            {"python": "/nonexistent/python3"},
            "--python /nonexistent/python3: no such interpreter (give the path of a python executable)",
        ),
    ],
)
def test_bad_options_are_one_line_input_errors(kwargs: Dict[str, object], message: str) -> None:
    args: Dict[str, object] = dict(
        python=None,
        dataset="synthetic",
        device=None,
        all_devices=False,
        data_dir=None,
        epochs=None,
        timeout=60.0,
    )
    args.update(kwargs)
    with pytest.raises(VerifyInputError) as info:
        run_verify(**args)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_missing_data_offline_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor.probes.verify import fetch

    monkeypatch.setattr(fetch, "MNIST_MIRRORS", ("http://127.0.0.1:9/",))
    with pytest.raises(VerifyInputError) as info:
        run_verify(None, "mnist", None, False, str(tmp_path), None, 60.0)
    assert str(info.value).startswith(f"MNIST is not in {tmp_path} and could not be downloaded (http://127.0.0.1:9/")
    assert str(info.value).endswith(
        f"Put train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, "
        f"t10k-labels-idx1-ubyte.gz in {tmp_path}/MNIST/raw, or pass --data-dir a folder holding MNIST/raw; "
        "--train synthetic needs no files."
    )


def test_a_wrong_kernel_fails_parity_and_a_fatal_cuda_error_keeps_its_record() -> None:
    v = verify(epochs=1, **{ACCELERATOR_ENV: "cpu", FAULT_ENV: "wrong-kernel@cuda:0,fatal@cuda:0"})
    assert v.failures == ()  # empty_cache raising after the fatal error did not stop the worker
    (dev,) = v.devices
    assert [(p.model, p.ok, p.error) for p in dev.parity] == [("fnn", False, None), ("cnn", False, None)]
    assert all((p.grad_rel_diff or 0) > 1e-6 for p in dev.parity)
    assert [(r.model, r.device, r.error) for r in v.runs[:2]] == [
        ("fnn", "cuda:0", "RuntimeError: CUDA error: an illegal memory access was encountered"),
        ("cnn", "cuda:0", None),
    ]
    got = verdicts(v)
    assert got["verify.parity"] == ("fail", ["verify.parity-failed", "verify.parity-failed"])
    assert got["verify.learning"][1][0] == "verify.run-failed"


def test_clock_limits_are_sampled_while_the_stand_in_benchmarks() -> None:
    v = verify(epochs=1, cpu_steps=5, **{ACCELERATOR_ENV: "cpu", FAULT_ENV: "throttle@cuda:0"})
    (dev,) = v.devices
    assert dev.clocks is not None and dev.clocks.samples >= 3  # at least one reading after each product
    assert (dev.clocks.sm_clock_mhz_min, dev.clocks.throttle_reasons) == (1110, ("sw_power_cap", "hw_slowdown"))
    assert "verify.clocks-limited" in verdicts(v)["verify.bench"][1]


def test_all_devices_on_mig_verifies_every_instance_by_uuid() -> None:
    v = run_verify(
        None, "synthetic", None, True, None, 1, 120.0, cpu_steps=5, speed_batch=128, train_size=640,
        test_size=100, bench=False, env=dict(os.environ, **{ACCELERATOR_ENV: "cpu:1:mig"}),
        mig_lister=lambda: ["MIG-11111111-aaaa", "MIG-22222222-bbbb", "MIG-33333333-cccc"],
    )
    assert v.failures == ()
    assert [(d.device, d.name, d.smoke_ok) for d in v.devices] == [
        ("cuda:0", STAND_IN + " MIG 1g.10gb", True),
        ("MIG-22222222-bbbb", STAND_IN + " MIG 1g.10gb", True),
        ("MIG-33333333-cccc", STAND_IN + " MIG 1g.10gb", True),
    ]
    assert [(r.model, r.device) for r in v.runs if r.device != "cpu"] == [
        (m, d) for d in ("cuda:0", "MIG-22222222-bbbb", "MIG-33333333-cccc") for m in ("fnn", "cnn")
    ]


def test_mig_uuids_are_read_from_nvidia_smi_list_output() -> None:
    from gpudoctor.probes.verify.runner import mig_uuids

    text = (
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5d5e8f0c-1111-2222-3333-444455556666)\n"
        "  MIG 3g.40gb     Device  0: (UUID: MIG-0a1b2c3d-4e5f-6789-abcd-ef0123456789)\n"
        "  MIG 1g.10gb     Device  1: (UUID: MIG-99999999-4e5f-6789-abcd-ef0123456789)\n"
        "  MIG 1g.10gb     Device  2: (UUID: MIG-x; rm -rf /)\n"
        "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-77777777-1111-2222-3333-444455556666)\n"
    )
    assert mig_uuids(text) == [
        "MIG-0a1b2c3d-4e5f-6789-abcd-ef0123456789",
        "MIG-99999999-4e5f-6789-abcd-ef0123456789",
    ]
