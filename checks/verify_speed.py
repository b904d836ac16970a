"""Judges how fast ``gpudoctor verify`` found the GPU: training speed-up over the CPU, matmul and PCIe throughput.

The speed-up check is here; the micro-benchmark check (verify.bench) is in verify_bench, and CHECKS holds both.
"""

from __future__ import annotations

from typing import Iterator, List

from gpudoctor.checks.support.verify_clocks import PERFORMANCE, nvml_gpu, throttled
from gpudoctor.checks.support.verify_common import HOLDERS, verify_facts
from gpudoctor.checks.verify_bench import CHECKS as BENCH_CHECKS
from gpudoctor.checks.verify_bench import LINK, MATMUL_SHARE, PCIE_LANE_GBPS, PCIE_SHARE, bench
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip
from gpudoctor.facts.verify import ModelRun, VerifyFacts

__all__ = [
    "CHECKS", "LINK", "MATMUL_SHARE", "PCIE_LANE_GBPS", "PCIE_SHARE", "PERFORMANCE", "SPEEDUP_EXPECTED",
    "SPEEDUP_REQUIRED", "bench", "nvml_gpu", "speedup",
]

SPEEDUP_REQUIRED = 1.0  # below: the GPU is slower than the CPU, acceleration not proven
SPEEDUP_EXPECTED = 2.0  # below: a warning


@check("verify.speedup", "The GPU trains faster than the CPU")
def speedup(facts: Facts) -> Iterator[Finding]:
    v = verify_facts(facts)
    cpu = {r.model: r for r in v.runs if r.device == "cpu" and r.samples_per_s and not r.error}
    pairs = [(r, cpu.get(r.model)) for r in v.runs if r.device != "cpu" and r.samples_per_s and not r.error]
    pairs = [(g, c) for g, c in pairs if c is not None]
    if not pairs:
        raise skip("no GPU run and CPU run of the same model to compare")
    for gpu_run, cpu_run in pairs:
        assert cpu_run is not None
        yield _speedup(facts, v, gpu_run, cpu_run)


def _speedup(facts: Facts, v: VerifyFacts, gpu_run: ModelRun, cpu_run: ModelRun) -> Finding:
    """The verdict on one model: from the large-batch comparison where both sides ran it, else from training."""
    assert gpu_run.samples_per_s and cpu_run.samples_per_s
    dev = next((d for d in v.devices if d.device == gpu_run.device), None)
    threads = f" ({cpu_run.threads} threads)" if cpu_run.threads else ""
    train_ratio = gpu_run.samples_per_s / cpu_run.samples_per_s
    training = (
        f"{gpu_run.model}: {gpu_run.device} trained {gpu_run.samples_per_s:,.0f} samples/s, the CPU{threads} "
        f"{cpu_run.samples_per_s:,.0f} samples/s: {train_ratio:.2f}x"
    )
    large = (
        gpu_run.speed_samples_per_s
        and cpu_run.speed_samples_per_s
        and gpu_run.speed_batch is not None
        and gpu_run.speed_batch == cpu_run.speed_batch
    )
    if large:
        assert gpu_run.speed_samples_per_s and cpu_run.speed_samples_per_s
        ratio = gpu_run.speed_samples_per_s / cpu_run.speed_samples_per_s
        observed = (
            f"{gpu_run.model} at batch {gpu_run.speed_batch}: {gpu_run.device} {gpu_run.speed_samples_per_s:,.0f} "
            f"samples/s, the CPU{threads} {cpu_run.speed_samples_per_s:,.0f} samples/s: {ratio:.2f}x"
        )
        context = (
            f"At the recipe's batch of {gpu_run.batch_size} ({training}) a GPU step is shorter than Python's kernel "
            "launches, so that ratio measures the host; at a large batch the arithmetic dominates on both sides."
        )
    else:
        ratio, observed, context = train_ratio, training, ""
    if ratio >= SPEEDUP_EXPECTED:
        return Finding(
            "verify.speedup",
            Severity.INFO,
            f"{observed} (required more than {SPEEDUP_REQUIRED:g}x)",
            detail=context,
            evidence=("verify.runs",),
        )
    workload = (
        "a batch large enough that the arithmetic, not Python, sets the pace"
        if large
        else f"a small workload (batch {gpu_run.batch_size}, a model of under a million parameters; seed 003 notes "
        "that small models and batches show little GPU speed-up), though this loop keeps the data on the GPU and "
        "syncs once per epoch"
    )
    causes = (
        f"The comparison used {workload}, so a healthy GPU wins clearly. Likely causes: the GPU is shared with other "
        "processes, held at low clocks (power cap, thermal limit, a low application clock), or a MIG slice; in "
        "your own code, also a DataLoader feeding from the CPU and .item() or .cpu() every step."
        + throttled(facts, dev)
        + (f" {context}" if context else "")
    )
    return Finding(
        "verify.no-speedup" if ratio < SPEEDUP_REQUIRED else "verify.low-speedup",
        Severity.ERROR if ratio < SPEEDUP_REQUIRED else Severity.WARNING,
        f"{observed}; required more than {SPEEDUP_REQUIRED:g}x"
        + ("" if ratio < SPEEDUP_REQUIRED else f", expected at least {SPEEDUP_EXPECTED:g}x"),
        detail=causes,
        fix=Fix("See what else runs on the GPU and what limits its clocks.", (HOLDERS, PERFORMANCE)),
        evidence=("verify.runs", "gpus.throttle_reasons"),
    )


CHECKS: List[Check] = [speedup] + BENCH_CHECKS
