"""Judges how fast ``gpudoctor verify`` found the GPU: training speed-up over the CPU, matmul and PCIe throughput."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from gpudoctor.checks.support.verify_common import HOLDERS, verify_facts
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip
from gpudoctor.facts.verify import ClockSummary, DeviceResult, ModelRun, VerifyFacts

SPEEDUP_REQUIRED = 1.0  # below: the GPU is slower than the CPU, acceleration not proven
SPEEDUP_EXPECTED = 2.0  # below: a warning
MATMUL_SHARE = 0.40  # of the data-sheet peak; large products reach 70-90% on a healthy GPU
PCIE_SHARE = 0.50  # of the link's rate, pinned memory; healthy links reach 75-90%

# GB/s per lane and direction after line coding: 8b/10b for Gen 1-2, 128b/130b for Gen 3-5, FLIT for Gen 6.
PCIE_LANE_GBPS: Dict[int, float] = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
PERFORMANCE = "nvidia-smi -q -d PERFORMANCE,CLOCK,POWER"
LINK = (
    "nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,"
    "pcie.link.width.current,pcie.link.width.max --format=csv"
)


def _bus(text: Optional[str]) -> Optional[Tuple[int, int, int]]:
    """(domain, bus, device) from "0000:65:00.0" (torch) or "00000000:65:00.0" (NVML)."""
    if not text:
        return None
    try:
        domain, bus, rest = text.strip().lower().split(":")
        return int(domain, 16), int(bus, 16), int(rest.split(".")[0], 16)
    except ValueError:
        return None


def nvml_gpu(facts: Facts, dev: DeviceResult) -> Optional[Gpu]:
    """The NVML GPU that torch's device is: by PCI bus id, or the only one there is."""
    wanted = _bus(dev.pci_bus_id)
    for gpu in facts.gpus:
        if wanted is not None and _bus(gpu.pci_bus_id) == wanted:
            return gpu
    if len(facts.gpus) == 1 and len(facts.verify.devices if facts.verify else ()) == 1:
        return facts.gpus[0]
    return None


def _throttled(facts: Facts, dev: Optional[DeviceResult]) -> str:
    """The clock limits seen under load (sampled during the benchmarks), else those NVML reported when probed."""
    if dev is not None and dev.clocks is not None and dev.clocks.samples:
        if dev.clocks.throttle_reasons:
            return f" While the benchmarks ran, NVML reported clock limits: {', '.join(dev.clocks.throttle_reasons)}."
        return ""
    gpu = nvml_gpu(facts, dev) if dev is not None else None
    reasons = [r for r in (gpu.throttle_reasons if gpu else ()) if r not in ("gpu_idle", "none")]
    return f" NVML reported clock limits: {', '.join(reasons)}." if reasons else ""


def _clock_finding(dev: DeviceResult, name: str) -> Optional[Finding]:
    """What the clocks did under load: a warning when power, heat or a slowdown held them back."""
    c = dev.clocks
    if c is None:
        return None
    if not c.samples:
        why = f": {c.error}" if c.error else ""
        return Finding(
            "verify.clocks", Severity.INFO, f"{name}: clocks were not sampled{why}", evidence=("verify.devices",)
        )
    parts = []
    if c.sm_clock_mhz_min is not None and c.sm_clock_mhz_max is not None:
        top = f" (highest {c.max_sm_clock_mhz} MHz)" if c.max_sm_clock_mhz else ""
        parts.append(f"SM clock {c.sm_clock_mhz_min}-{c.sm_clock_mhz_max} MHz{top}")
    if c.temperature_c_max is not None:
        parts.append(f"up to {c.temperature_c_max} C")
    if c.power_w_max is not None:
        parts.append(f"up to {c.power_w_max:.0f} W")
    observed = f"{name}: during the benchmarks ({c.samples} readings) " + ", ".join(parts or ["no readings"])
    limiting = [r for r in c.throttle_reasons if r not in _BENIGN]
    if limiting == ["sw_power_cap"] and not _power_limit_lowered(c):
        limit = f"the {c.power_limit_w:.0f} W power limit" if c.power_limit_w else "the power limit"
        return Finding(
            "verify.clocks", Severity.INFO,
            f"{observed}; {limit} held the clocks, as it does on any GPU that a large matrix product keeps fully "
            "busy",
            detail="observed: NVML's software power cap while the matrix products ran, with the power limit at "
            "its default" if c.power_limit_default_w else "observed: NVML's software power cap while the matrix "
            "products ran; the default power limit was not readable, so a lowered limit cannot be ruled out.",
            evidence=("verify.devices",),
        )
    if not limiting:
        return Finding("verify.clocks", Severity.INFO, observed, evidence=("verify.devices",))
    if _power_limit_lowered(c):
        assert c.power_limit_w is not None and c.power_limit_default_w is not None
        observed += f"; power limit {c.power_limit_w:.0f} W, below the board's default {c.power_limit_default_w:.0f} W"
    return Finding(
        "verify.clocks-limited",
        Severity.WARNING,
        f"{observed}; clocks were held back: {', '.join(limiting)}",
        detail="observed: NVML's clock-event reasons while the matrix products ran; required: none of power cap, "
        "thermal or hardware slowdown under a short load. A power cap set below the default, poor cooling or a "
        "failing power supply hold the GPU back in training too.",
        fix=Fix("Compare the power limit with its default and look at temperatures under load.", (PERFORMANCE,)),
        evidence=("verify.devices",),
    )


_BENIGN = ("sync_boost", "applications_clocks_setting", "display_clock_setting")


def _power_limit_lowered(c: ClockSummary) -> bool:
    """Whether someone set the power limit clearly below the board's default (nvidia-smi -pl)."""
    return bool(c.power_limit_w and c.power_limit_default_w and c.power_limit_w < 0.95 * c.power_limit_default_w)


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
        + _throttled(facts, dev)
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


def _link_rate(gpu: Gpu) -> Optional[Tuple[float, str]]:
    """Theoretical GB/s per direction of the GPU's best link, and how the link stood when probed."""
    gen = gpu.pcie_gen_max or gpu.pcie_gen_current
    width = gpu.pcie_width_max or gpu.pcie_width_current
    if not gen or not width or gen not in PCIE_LANE_GBPS:
        return None
    now = ""
    if gpu.pcie_gen_current and gpu.pcie_width_current:
        now = f"; when probed it ran at Gen{gpu.pcie_gen_current} x{gpu.pcie_width_current} (GPUs lower it when idle)"
    return PCIE_LANE_GBPS[gen] * width, f"PCIe Gen{gen} x{width}: {PCIE_LANE_GBPS[gen] * width:.1f} GB/s{now}"


def _matmul_findings(facts: Facts, dev: DeviceResult, name: str) -> Iterator[Finding]:
    for m in dev.matmul:
        if m.error or m.tflops is None:
            yield Finding(
                "verify.bench-error",
                Severity.WARNING,
                f"{name}: the {m.dtype} matrix product failed: {m.error}",
                evidence=("verify.devices",),
            )
        elif m.dtype == "tf32" and (m.tf32_override or "").strip() == "0":
            yield Finding(
                "verify.tf32-disabled",
                Severity.INFO,
                f"{name}: tf32 matmul {m.tflops:,.1f} TFLOP/s: NVIDIA_TF32_OVERRIDE=0 turned TF32 off, so this row "
                "measured plain fp32",
                detail="observed: NVIDIA_TF32_OVERRIDE=0 in the environment; the CUDA libraries then ignore torch's "
                "allow_tf32. Unset it to let fp32 training use the tensor cores.",
                fix=Fix("Unset the variable where TF32 is wanted.", ("unset NVIDIA_TF32_OVERRIDE",)),
                evidence=("verify.devices",),
            )
        elif m.peak_tflops:
            share = m.tflops / m.peak_tflops
            peak = f"{m.peak_tflops:,.1f} TFLOP/s peak"
            observed = f"{name}: {m.dtype} matmul {m.tflops:,.1f} TFLOP/s, {share:.0%} of the {peak}"
            if share < MATMUL_SHARE:
                yield Finding(
                    "verify.matmul-slow",
                    Severity.WARNING,
                    f"{observed}; expected at least {MATMUL_SHARE:.0%}",
                    detail=f"The peak is from the {m.peak_source}. A healthy GPU reaches 70-90% of it on an n={m.n} "
                    "product; far less means low clocks (power cap, thermal limit), another process on the GPU, "
                    "or a MIG slice." + _throttled(facts, dev),
                    fix=Fix("See what limits the GPU's clocks and what else runs on it.", (PERFORMANCE, HOLDERS)),
                    evidence=("verify.devices",),
                )
            else:
                yield Finding(
                    "verify.matmul", Severity.INFO, f"{observed} ({m.peak_source})", evidence=("verify.devices",)
                )
        else:
            yield Finding(
                "verify.matmul",
                Severity.INFO,
                f"{name}: {m.dtype} matmul {m.tflops:,.1f} TFLOP/s (no data-sheet peak known for this GPU)",
                evidence=("verify.devices",),
            )


def _copy_findings(facts: Facts, dev: DeviceResult, name: str) -> Iterator[Finding]:
    gpu = nvml_gpu(facts, dev)
    link = _link_rate(gpu) if gpu is not None else None
    for c in dev.copies:
        label = f"{name}: {'host to device' if c.direction == 'h2d' else 'device to host'} from {c.memory} memory"
        if c.error or c.gb_per_s is None:
            yield Finding(
                "verify.bench-error", Severity.WARNING, f"{label} failed: {c.error}", evidence=("verify.devices",)
            )
            continue
        if link is None:
            yield Finding(
                "verify.copy",
                Severity.INFO,
                f"{label}: {c.gb_per_s:.1f} GB/s (the PCIe link is not known)",
                evidence=("verify.devices",),
            )
            continue
        rate, text = link
        observed = f"{label}: {c.gb_per_s:.1f} GB/s, {c.gb_per_s / rate:.0%} of {text}"
        if c.memory == "pinned" and c.gb_per_s < PCIE_SHARE * rate:
            yield Finding(
                "verify.pcie-slow",
                Severity.WARNING,
                f"{observed}; expected at least {PCIE_SHARE:.0%}",
                detail="Pinned copies reach 75-90% of a healthy link. Less means the card sits in a slot or riser with "
                "fewer lanes, the link trained at a lower generation, a virtualisation layer is in the way"
                + _shared_link(facts)
                + ".",
                fix=Fix("Compare the link's current and maximum generation and width under load.", (LINK,)),
                evidence=("verify.devices", "gpus.pcie_gen_max", "gpus.pcie_width_max"),
            )
        else:
            yield Finding("verify.copy", Severity.INFO, observed, evidence=("verify.devices", "gpus.pcie_gen_max"))


def _shared_link(facts: Facts) -> str:
    """With several GPUs, the switch that connects them may be what is narrow or busy, not this GPU's slot."""
    if len(facts.gpus) < 2:
        return ", or the link to the CPU is shared"
    return (
        f", or this GPU shares a PCIe switch's uplink with the other {len(facts.gpus) - 1} GPU(s) or NICs, whose "
        "traffic or narrower uplink then sets the rate (nvidia-smi topo -m shows PIX/PXB between devices behind "
        "one switch)"
    )


@check("verify.bench", "Matrix products and host/device copies reach the GPU's rated speed")
def bench(facts: Facts) -> Iterator[Finding]:
    v = verify_facts(facts)
    measured = [d for d in v.devices if d.matmul or d.copies]
    if not measured:
        raise skip("no micro-benchmark result: no GPU got that far (see verify.smoke and verify.worker)")
    for dev in measured:
        name = f"{dev.device} ({dev.name})" if dev.name else dev.device
        yield from _matmul_findings(facts, dev, name)
        clock = _clock_finding(dev, name)
        if clock is not None:
            yield clock
        yield from _copy_findings(facts, dev, name)


CHECKS: List[Check] = [speedup, bench]
