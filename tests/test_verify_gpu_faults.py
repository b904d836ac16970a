"""What verify does when a GPU misbehaves, on the CPU stand-in with the faults planted: the smoke test's order,
a refused pinned allocation, a fatal CUDA error during training, NVIDIA_TF32_OVERRIDE, error texts."""

from __future__ import annotations

import io
import json
from typing import Any, Dict, List

import pytest

torch = pytest.importorskip("torch")

from gpudoctor.checks.verify import CHECKS  # noqa: E402
from gpudoctor.facts import Facts  # noqa: E402
from gpudoctor.model import Severity  # noqa: E402
from gpudoctor.registry import Catalogue  # noqa: E402
from gpudoctor.runner import run_checks  # noqa: E402
from gpudoctor.trainers import bench, sanity, session  # noqa: E402
from gpudoctor.trainers.protocol import Emitter  # noqa: E402
from gpudoctor.facts.verify import DeviceResult, MatmulResult, VerifyFacts  # noqa: E402

CPU = torch.device("cpu")
NO_KERNEL = "CUDA error: no kernel image is available for execution on the device"


def findings(v: VerifyFacts, check: str) -> List[Any]:
    report = run_checks(Catalogue(tuple(CHECKS)), Facts(verify=v))
    return next(r.findings for r in report.results if r.check == check)


def test_the_smoke_test_runs_torchs_elementwise_kernel_before_any_matmul(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: List[str] = []
    sin, matmul = torch.Tensor.sin, torch.Tensor.__matmul__

    def no_kernel_image(self: Any) -> Any:
        calls.append("sin")
        raise RuntimeError(NO_KERNEL)

    def traced_matmul(self: Any, other: Any) -> Any:
        calls.append("matmul")
        return matmul(self, other)

    monkeypatch.setattr(torch.Tensor, "sin", no_kernel_image)
    monkeypatch.setattr(torch.Tensor, "__matmul__", traced_matmul)
    result = sanity.smoke(CPU)
    monkeypatch.setattr(torch.Tensor, "sin", sin)
    assert calls == ["sin"]  # an architecture without kernels fails in torch's own kernel, before cuBLAS
    assert result == {"ok": False, "step": "elementwise", "error": f"RuntimeError: {NO_KERNEL}"}


def test_a_failed_pinned_allocation_is_recorded_as_pinned_and_pageable_results_stand() -> None:
    def refuse(_t: Any) -> Any:
        raise RuntimeError("CUDA error: out of memory (cudaHostAlloc)")

    rows = bench.copies(CPU, 4096, 0.001, pin=refuse)
    assert [(r["memory"], r["direction"], "gb_per_s" in r, r.get("error")) for r in rows] == [
        ("pageable", "h2d", True, None),
        ("pageable", "d2h", True, None),
        ("pinned", "h2d", False, "RuntimeError: CUDA error: out of memory (cudaHostAlloc)"),
        ("pinned", "d2h", False, "RuntimeError: CUDA error: out of memory (cudaHostAlloc)"),
    ]


def test_nvidia_tf32_override_is_recorded_and_the_tf32_row_is_not_judged_against_tf32(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NVIDIA_TF32_OVERRIDE", "0")
    record = bench.matmul(CPU, "tf32", 16, 0.001)
    assert record["tf32_override"] == "0"
    assert "tf32_override" not in bench.matmul(CPU, "fp32", 16, 0.001)
    dev = DeviceResult(
        device="cuda:0",
        name="NVIDIA H100 80GB HBM3",
        matmul=(MatmulResult("tf32", 8192, 51.0, 494.7, "data sheet", None, "0"),),
    )
    (finding,) = findings(VerifyFacts(dataset="synthetic", devices=(dev,)), "verify.bench")
    assert (finding.code, finding.severity.value) == ("verify.tf32-disabled", "info")
    healthy = DeviceResult(device="cuda:0", matmul=(MatmulResult("tf32", 8192, 51.0, 494.7, "data sheet"),))
    (slow,) = findings(VerifyFacts(dataset="synthetic", devices=(healthy,)), "verify.bench")
    assert slow.code == "verify.matmul-slow"  # without the variable the same number is a slow GPU


def test_the_smoke_tests_out_of_memory_text_counts_the_context() -> None:
    dev = DeviceResult(device="cuda:0", smoke_ok=False, smoke_error="OutOfMemoryError: CUDA out of memory.")
    v = VerifyFacts(dataset="synthetic", cuda_available=True, devices=(dev,))
    (finding,) = findings(v, "verify.smoke")
    assert finding.code == "verify.out-of-memory"
    assert "CUDA context (a few hundred MiB)" in finding.summary and "2 MiB" not in finding.summary


class FakeCuda:
    """torch.cuda after a fatal error: empty_cache raises."""

    def __init__(self) -> None:
        self.calls = 0

    def empty_cache(self) -> None:
        self.calls += 1
        raise RuntimeError("CUDA error: an illegal memory access was encountered")


class FakeTorch:
    def __init__(self) -> None:
        self.cuda = FakeCuda()


def test_releasing_memory_after_a_fatal_error_cannot_lose_the_record() -> None:
    out = io.StringIO()
    fake = FakeTorch()
    session._release(fake, Emitter(out), "cuda:0", None)
    assert fake.cuda.calls == 1
    events: List[Dict[str, Any]] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert events == [
        {
            "event": "stage",
            "stage": "release",
            "device": "cuda:0",
            "error": "RuntimeError: CUDA error: an illegal memory access was encountered",
        }
    ]


def test_the_speed_comparison_counts_its_steps_at_a_large_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor.trainers import data, loop, recipes

    ticks = iter(range(1000))
    monkeypatch.setattr(loop.time, "perf_counter", lambda: float(next(ticks)))  # one second per clock reading
    on_cpu = loop.to_device(data.synthetic(300, 10, 0), CPU, *recipes.NORMALISE["synthetic"])
    steps: List[int] = []
    step = torch.optim.SGD.step
    monkeypatch.setattr(torch.optim.SGD, "step", lambda self, *a, **k: steps.append(1) or step(self, *a, **k))
    result = loop.throughput("fnn", on_cpu, recipes.RECIPES["fnn"], CPU, 512, 3, 0)
    assert result == {"speed_batch": 512, "speed_steps": 3, "speed_samples_per_s": 512 * 3 / 1.0}
    assert len(steps) == 4  # one untimed step first


def test_a_slow_gpu_at_a_large_batch_is_warned_about_and_a_dispatch_bound_ratio_is_not() -> None:
    from gpudoctor.facts.verify import ModelRun

    def run(device: str, train: float, speed: float) -> ModelRun:
        return ModelRun(
            model="fnn", device=device, samples_per_s=train, batch_size=64, speed_batch=1024,
            speed_samples_per_s=speed, threads=16 if device == "cpu" else None,
        )

    slow = VerifyFacts(dataset="synthetic", runs=(run("cuda:0", 90_000.0, 270_000.0), run("cpu", 30_000.0, 180_000.0)))
    (finding,) = findings(slow, "verify.speedup")
    assert (finding.code, finding.summary.split(":")[0]) == ("verify.low-speedup", "fnn at batch 1024")
    bound = VerifyFacts(
        dataset="synthetic", runs=(run("cuda:0", 40_000.0, 2_000_000.0), run("cpu", 38_000.0, 150_000.0))
    )
    (finding,) = findings(bound, "verify.speedup")
    assert finding.code == "verify.speedup" and "1.05x" in finding.detail


def test_clock_readings_under_load_are_summed_up_and_a_missing_nvml_is_said() -> None:
    from gpudoctor.trainers import clocks

    readings = iter(
        [
            {"sm_clock_mhz": 1980, "max_sm_clock_mhz": 1980, "reasons": 0x0, "temperature_c": 60, "power_w": 500.0},
            {"sm_clock_mhz": 1410, "max_sm_clock_mhz": 1980, "reasons": 0x4 | 0x1, "temperature_c": 71},
        ]
    )
    sampler = clocks.Sampler(lambda: next(readings))
    sampler.sample()
    sampler.sample()
    sampler.sample()  # the reader is exhausted: the error ends the sampling, what was read stands
    summary = sampler.summary()
    assert summary["error"] == "StopIteration: "
    del summary["error"]
    assert summary == {
        "samples": 2,
        "sm_clock_mhz_min": 1410,
        "sm_clock_mhz_max": 1980,
        "max_sm_clock_mhz": 1980,
        "temperature_c_max": 71,
        "power_w_max": 500.0,
        "power_limit_w": None,
        "power_limit_default_w": None,
        "throttle_reasons": ["sw_power_cap"],
    }
    missing = clocks.sampler_for(None).summary()
    assert missing["samples"] == 0 and missing["error"]


def test_clock_limits_seen_during_the_benchmark_are_reported() -> None:
    from gpudoctor.facts.verify import ClockSummary

    limited = ClockSummary(4, 1110, 1410, 1980, 87, 300.0, ("sw_power_cap", "hw_slowdown"))
    dev = DeviceResult(device="cuda:0", name="NVIDIA A100-SXM4-40GB", clocks=limited,
                       matmul=(MatmulResult("fp32", 8192, 5.0, 19.5, "data sheet"),))
    got = findings(VerifyFacts(dataset="synthetic", devices=(dev,)), "verify.bench")
    assert [f.code for f in got] == ["verify.matmul-slow", "verify.clocks-limited"]
    assert got[0].detail.endswith("While the benchmarks ran, NVML reported clock limits: sw_power_cap, hw_slowdown.")
    assert got[1].summary.endswith("clocks were held back: sw_power_cap, hw_slowdown")


def _clock_findings(clocks: object) -> list:
    dev = DeviceResult(device="cuda:0", name="NVIDIA H100 80GB HBM3", clocks=clocks,
                       matmul=(MatmulResult("bf16", 8192, 711.7, 989.4, "data sheet"),))
    return [f for f in findings(VerifyFacts(dataset="synthetic", devices=(dev,)), "verify.bench")
            if f.code.startswith("verify.clocks")]


def test_the_power_cap_of_a_fully_busy_gpu_at_its_default_limit_is_not_a_fault() -> None:
    from gpudoctor.facts.verify import ClockSummary

    # a healthy H100 SXM under verify's bf16 product: 13 readings, 1425-1980 MHz, 647 W of a 700 W default limit
    h100 = ClockSummary(13, 1425, 1980, 1980, 66, 647.0, ("sw_power_cap",), None, 700.0, 700.0)
    [got] = _clock_findings(h100)
    assert (got.code, got.severity) == ("verify.clocks", Severity.INFO)
    assert "up to 647 W; the 700 W power limit held the clocks, as it does on any GPU" in got.summary
    unknown = ClockSummary(13, 1425, 1980, 1980, 66, 647.0, ("sw_power_cap",))
    [got] = _clock_findings(unknown)
    assert got.severity is Severity.INFO and "a lowered limit cannot be ruled out" in got.detail


def test_a_power_limit_set_below_the_default_is_a_warning() -> None:
    from gpudoctor.facts.verify import ClockSummary

    lowered = ClockSummary(13, 900, 1400, 1980, 55, 398.0, ("sw_power_cap",), None, 400.0, 700.0)
    [got] = _clock_findings(lowered)
    assert (got.code, got.severity) == ("verify.clocks-limited", Severity.WARNING)
    assert "power limit 400 W, below the board's default 700 W; clocks were held back: sw_power_cap" in got.summary
    hot = ClockSummary(13, 900, 1400, 1980, 91, 600.0, ("sw_power_cap", "hw_thermal_slowdown"), None, 700.0, 700.0)
    assert [f.code for f in _clock_findings(hot)] == ["verify.clocks-limited"]


def test_a_slow_pcie_copy_among_several_gpus_names_the_shared_switch() -> None:
    from gpudoctor.facts import Gpu
    from gpudoctor.facts.verify import CopyResult

    gpus = tuple(
        Gpu(index=i, name="NVIDIA A100-SXM4-40GB", pci_bus_id=f"00000000:{0x10 + i:02x}:00.0", pcie_gen_max=4,
            pcie_width_max=16)
        for i in range(4)
    )
    dev = DeviceResult(device="cuda:0", pci_bus_id="0000:10:00.0", copies=(CopyResult("h2d", "pinned", 1 << 28, 9.0),))
    v = VerifyFacts(dataset="synthetic", devices=(dev,))
    report = run_checks(Catalogue(tuple(CHECKS)), Facts(gpus=gpus, verify=v))
    (finding,) = next(r.findings for r in report.results if r.check == "verify.bench")
    assert finding.code == "verify.pcie-slow"
    assert "shares a PCIe switch's uplink with the other 3 GPU(s)" in finding.detail


def test_kernel_and_driver_errors_in_training_or_parity_get_the_install_fix_not_xid_advice() -> None:
    from gpudoctor.facts.verify import ModelRun, ParityResult

    arch = "RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH"
    driver = "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain."
    v = VerifyFacts(
        dataset="synthetic",
        runs=(ModelRun(model="cnn", device="cuda:0", error=arch), ModelRun(model="fnn", device="cuda:0", error="boom")),
        devices=(DeviceResult(device="cuda:0", parity=(ParityResult(model="cnn", error=driver),)),),
    )
    learning = findings(v, "verify.learning")
    assert [(f.code, f.fix.commands if f.fix else None) for f in learning] == [
        ("verify.run-failed", ("gpudoctor check",)),
        ("verify.run-failed", ("sudo dmesg | grep -i -E 'NVRM|Xid'", "gpudoctor check")),
    ]
    (parity,) = findings(v, "verify.parity")
    assert parity.fix is not None and parity.fix.text.startswith("Update the NVIDIA driver")
