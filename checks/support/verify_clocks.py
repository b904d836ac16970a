"""What a GPU's clocks did during ``gpudoctor verify``: the NVML GPU behind a torch device, and its clock limits."""

from __future__ import annotations

from typing import Optional, Tuple

from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.facts.verify import ClockSummary, DeviceResult

PERFORMANCE = "nvidia-smi -q -d PERFORMANCE,CLOCK,POWER"


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


def throttled(facts: Facts, dev: Optional[DeviceResult]) -> str:
    """The clock limits seen under load (sampled during the benchmarks), else those NVML reported when probed."""
    if dev is not None and dev.clocks is not None and dev.clocks.samples:
        if dev.clocks.throttle_reasons:
            return f" While the benchmarks ran, NVML reported clock limits: {', '.join(dev.clocks.throttle_reasons)}."
        return ""
    gpu = nvml_gpu(facts, dev) if dev is not None else None
    reasons = [r for r in (gpu.throttle_reasons if gpu else ()) if r not in ("gpu_idle", "none")]
    return f" NVML reported clock limits: {', '.join(reasons)}." if reasons else ""


def clock_finding(dev: DeviceResult, name: str) -> Optional[Finding]:
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
