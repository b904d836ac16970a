"""Judges the micro-benchmarks of ``gpudoctor verify``: matrix products against the data sheet, copies against PCIe."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from gpudoctor.checks.support.verify_clocks import PERFORMANCE, clock_finding, nvml_gpu, throttled
from gpudoctor.checks.support.verify_common import HOLDERS, verify_facts
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip
from gpudoctor.facts.verify import DeviceResult

MATMUL_SHARE = 0.40  # of the data-sheet peak; large products reach 70-90% on a healthy GPU
PCIE_SHARE = 0.50  # of the link's rate, pinned memory; healthy links reach 75-90%

# GB/s per lane and direction after line coding: 8b/10b for Gen 1-2, 128b/130b for Gen 3-5, FLIT for Gen 6.
PCIE_LANE_GBPS: Dict[int, float] = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
LINK = (
    "nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,"
    "pcie.link.width.current,pcie.link.width.max --format=csv"
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
                    "or a MIG slice." + throttled(facts, dev),
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
        clock = clock_finding(dev, name)
        if clock is not None:
            yield clock
        yield from _copy_findings(facts, dev, name)


CHECKS: List[Check] = [bench]
