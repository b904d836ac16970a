"""Checks of each GPU's health: compute mode, memory held by others, ECC, clock slowdown and the PCIe link."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from gpudoctor import plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.facts import Facts, Gpu
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need, skip

NVIDIA_SMI_DOCS = "https://docs.nvidia.com/deploy/nvidia-smi/index.html"
ROW_REMAPPING_DOCS = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
PAGE_RETIREMENT_DOCS = "https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html"
HELD_WARNING = 0.5  # other processes hold at least half of a GPU's memory
HELD_ERROR = 0.9  # ... or so much that under a tenth is left
HIDDEN_MIN_MIB = 1024  # used memory NVML lists no process for, worth naming
BUSY_PERCENT = 50  # utilization at which the PCIe link and power capping are judged
DISPLAY_PROCESSES = frozenset({"xorg", "xwayland", "gnome-shell", "kwin_x11", "kwin_wayland", "plasmashell", "mutter",
                               "cinnamon", "xfwm4", "sway", "hyprland", "dwm.exe", "explorer.exe"})
SLOWDOWNS = {
    "hw_slowdown": "hardware slowdown (over-temperature or a power-supply event)",
    "hw_thermal_slowdown": "hardware thermal slowdown (the GPU is too hot)",
    "sw_thermal_slowdown": "driver thermal slowdown (the GPU is above its target temperature)",
    "hw_power_brake_slowdown": "power brake (the system asserted its power-brake signal)",
}


def _gpus(facts: Facts) -> Tuple[Gpu, ...]:
    return need(facts.gpus or None, "gpus", "no GPU list from NVML")


def _label(g: Gpu) -> str:
    return f"GPU {g.index} ({g.name or 'unknown model'})"


def _finish(found: List[Finding], unknown: List[Gpu], what: str, note: str = "") -> Iterator[Finding]:
    """Yield the findings; with nothing above info and some GPUs unread, skip rather than pass."""
    yield from found
    if unknown and not any(f.severity is not Severity.INFO for f in found):
        raise skip(f"{what} of {', '.join(_label(g) for g in unknown)} was not read{note}")


def _admin(facts: Facts, command: str) -> str:
    """A command that needs root: sudo on Linux, an administrator prompt on Windows."""
    return command if _fix.is_windows(facts) else f"sudo {command}"


@check("gpu.exclusive-mode", "GPU compute mode")
def exclusive_mode(facts: Facts) -> Iterator[Finding]:
    busy = derived(facts).gpu_busy
    found: List[Finding] = []
    unknown: List[Gpu] = []
    for g in _gpus(facts):
        mode = g.compute_mode
        if mode is None:
            unknown.append(g)
            continue
        reset = Fix("Set the compute mode back to Default (needs root), or run one process per GPU.",
                    (_admin(facts, f"nvidia-smi -i {g.index} -c DEFAULT"),))
        evidence = (f"gpus[{g.index}].compute_mode", f"gpus[{g.index}].processes")
        if mode == "prohibited":
            found.append(Finding(
                "gpu.exclusive-mode", Severity.ERROR,
                f"{_label(g)} is in Prohibited compute mode: no process may use it for CUDA; required: Default",
                "CUDA reports such a GPU as 'busy or unavailable'.", reset, (NVIDIA_SMI_DOCS,), evidence))
        elif mode.startswith("exclusive"):
            holders = ", ".join(f"pid {p.pid} ({p.name or 'unknown'})" for p in g.processes if not _display(p.name))
            if holders or busy:
                held = f"{holders} already holds it" if holders else "CUDA reported it busy or unavailable"
                found.append(Finding(
                    "gpu.exclusive-mode", Severity.ERROR,
                    f"{_label(g)} is in {mode} compute mode and {held}: a second process gets 'CUDA-capable "
                    "device(s) is/are busy or unavailable'; required: Default mode, or no other CUDA process",
                    "Exclusive mode admits one CUDA context per GPU. A parent process that touches every GPU "
                    "(for example before spawning DDP workers) blocks its own children.",
                    reset, (NVIDIA_SMI_DOCS,), evidence))
            else:
                found.append(Finding(
                    "gpu.exclusive-mode", Severity.INFO,
                    f"{_label(g)} is in {mode} compute mode: one CUDA process at a time; no process holds it now",
                    "Clusters set this on purpose; it fails only when a second process opens the GPU.",
                    reset, (NVIDIA_SMI_DOCS,), evidence))
    yield from _finish(found, unknown, "the compute mode")


@check("gpu.memory-held", "GPU memory held by other processes")
def memory_held(facts: Facts) -> Iterator[Finding]:
    found: List[Finding] = []
    unknown: List[Gpu] = []
    for g in _gpus(facts):
        total, used = g.memory_total_mib, g.memory_used_mib
        listed = sum(p.used_mib or 0 for p in g.processes)
        if not total or (used is None and not listed):
            unknown.append(g)
            continue
        held = max(listed, used or 0)
        if held < HELD_WARNING * total:
            continue
        procs = sorted(g.processes, key=lambda p: -(p.used_mib or 0))
        names = [f"pid {p.pid} {p.name or 'unknown'} ({p.used_mib} MiB)" if p.used_mib is not None
                 else f"pid {p.pid} {p.name or 'unknown'}" for p in procs]
        hidden = (used or 0) - listed
        if hidden >= HIDDEN_MIN_MIB and all(p.used_mib is not None for p in procs):
            names.append(f"{hidden} MiB held by processes NVML does not list here (another container, or "
                         "another user's processes)")
        severity = Severity.ERROR if held >= HELD_ERROR * total else Severity.WARNING
        pids = " ".join(str(p.pid) for p in procs if not _display(p.name))
        commands: tuple[str, ...] = ("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",)
        if _fix.is_windows(facts):
            commands += (f"Stop-Process -Id {pids.replace(' ', ',')}",) if pids else ()
        else:
            commands += ((f"kill {pids}",) if pids else ()) + ("sudo lsof /dev/nvidia*",)
        found.append(Finding(
            "gpu.memory-held", severity,
            f"{_label(g)}: other processes hold {held} of {total} MiB ({round(100 * held / total)}%), "
            f"leaving {max(total - held, 0)} MiB: {'; '.join(names[:3])}; required: under "
            f"{round(100 * HELD_WARNING)}% held by others",
            "\n".join(names) + "\nDataLoader workers of a training run that was killed keep their GPU memory "
            "until they are killed too.",
            Fix("Find the holders and stop the ones that are yours (kill sends SIGTERM; use kill -9 only if "
                "they ignore it); the display server is left out.", commands),
            (NVIDIA_SMI_DOCS,),
            (f"gpus[{g.index}].processes", f"gpus[{g.index}].memory_used_mib", f"gpus[{g.index}].memory_total_mib"),
        ))
    yield from _finish(found, unknown, "memory use")


@check("gpu.ecc", "GPU memory errors (ECC)")
def ecc(facts: Facts) -> Iterator[Finding]:
    found: List[Finding] = []
    unknown: List[Gpu] = []
    for g in _gpus(facts):
        fields = (g.ecc_mode, g.ecc_uncorrected_volatile, g.ecc_uncorrected_aggregate, g.retired_pages_pending,
                  g.remapped_rows_pending, g.remapped_rows_failure)
        if all(v is None for v in fields):
            unknown.append(g)
            continue
        query = f"nvidia-smi -q -i {g.index} -d ECC,ROW_REMAPPER,PAGE_RETIREMENT"
        reset = _admin(facts, f"nvidia-smi -i {g.index} -r")
        evidence = (f"gpus[{g.index}].ecc_uncorrected_volatile", f"gpus[{g.index}].remapped_rows_pending")

        def add(severity: Severity, summary: str, detail: str, fix: Fix, link: str) -> None:
            found.append(Finding("gpu.ecc", severity, f"{_label(g)}: {summary}", detail, fix, (link,),  # noqa: B023
                                 evidence))  # noqa: B023 - called only inside this iteration

        reset_fix = Fix("Reset the GPU with no process using it (or reboot); if the errors return, the "
                        "board needs service.", (query, reset))
        if g.remapped_rows_failure:
            add(Severity.ERROR, "row remapping failed: the memory has run out of spare rows; required: no "
                "remapping failure", "The GPU keeps producing errors on that memory; only a replacement "
                "fixes it.", Fix("Record the state and contact the vendor for an RMA.", (query,)),
                ROW_REMAPPING_DOCS)
        if g.remapped_rows_pending:
            add(Severity.ERROR, "a memory row remapping is pending and takes effect only after a GPU reset; "
                "required: none pending", "Until the reset the bad row stays in use.", reset_fix,
                ROW_REMAPPING_DOCS)
        if g.retired_pages_pending:
            add(Severity.ERROR, "memory pages are waiting to be retired, which needs a GPU reset; required: "
                "none pending", "Until the reset the bad pages stay in use.", reset_fix, PAGE_RETIREMENT_DOCS)
        if g.ecc_uncorrected_volatile:
            add(Severity.ERROR, f"{g.ecc_uncorrected_volatile} uncorrected ECC error(s) since the driver "
                "loaded; required: 0", "CUDA contexts that hit one fail with 'uncorrectable ECC error "
                "encountered'.", reset_fix, ROW_REMAPPING_DOCS)
        elif g.ecc_uncorrected_aggregate:
            add(Severity.WARNING, f"{g.ecc_uncorrected_aggregate} uncorrected ECC error(s) over its lifetime, "
                "none since the driver loaded; required: 0", "If the count grows, the board needs service.",
                Fix("Watch the counters.", (query,)), ROW_REMAPPING_DOCS)
    yield from _finish(found, unknown, "the ECC state", "; GPUs without ECC memory, such as GeForce cards, report none")


def _display(name: Optional[str]) -> bool:
    return (name or "").replace("\\", "/").rsplit("/", 1)[-1].lower() in DISPLAY_PROCESSES


def _reason(name: str) -> str:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    for prefix in ("clocks_event_reason_", "clocks_throttle_reason_", "clocksthrottlereason", "clockseventreason"):
        key = key.removeprefix(prefix)
    return key


def _health_read(g: Gpu) -> bool:
    return bool(g.throttle_reasons) or g.utilization_percent is not None or g.temperature_c is not None


@check("gpu.throttled", "GPU clock slowdown")
def throttled(facts: Facts) -> Iterator[Finding]:
    found: List[Finding] = []
    unknown: List[Gpu] = []
    for g in _gpus(facts):
        if not _health_read(g):
            unknown.append(g)
            continue
        reasons = [_reason(r) for r in g.throttle_reasons]
        active = [SLOWDOWNS[r] for r in reasons if r in SLOWDOWNS]
        state = f" at {g.temperature_c} °C" if g.temperature_c is not None else ""
        evidence = (f"gpus[{g.index}].throttle_reasons", f"gpus[{g.index}].temperature_c")
        query = f"nvidia-smi -q -i {g.index} -d PERFORMANCE,TEMPERATURE,POWER"
        if active:
            found.append(Finding(
                "gpu.throttled", Severity.WARNING,
                f"{_label(g)}{state} is slowed down: {'; '.join(active)}; required: no thermal or power "
                "slowdown", "Clocks drop far below their rated speed while these are active. Thermal: clean "
                "the fans and heatsink, improve case airflow, check the fan curve. Power: check the PCIe "
                "power cables and that the power supply is large enough.",
                Fix("See which limits are active and watch them under load.",
                    (query, f"nvidia-smi -i {g.index} -q -d PERFORMANCE -l 1")),
                (NVIDIA_SMI_DOCS,), evidence))
        busy = (g.utilization_percent or 0) >= BUSY_PERCENT
        if "sw_power_cap" in reasons and busy:
            found.append(Finding(
                "gpu.throttled", Severity.INFO,
                f"{_label(g)} is held at its power limit while busy ({g.utilization_percent}% utilization)",
                "Normal at full load; it costs speed only if the limit was lowered below the default.",
                Fix("Compare 'Current Power Limit' with 'Default Power Limit'.",
                    (f"nvidia-smi -q -i {g.index} -d POWER",)),
                (NVIDIA_SMI_DOCS,), evidence))
    yield from _finish(found, unknown, "the clock slowdown state")


@check("gpu.pcie-link", "PCIe link under load")
def pcie_link(facts: Facts) -> Iterator[Finding]:
    found: List[Finding] = []
    unknown: List[Gpu] = []
    for g in _gpus(facts):
        gen, gen_max, width, width_max = g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current, g.pcie_width_max
        if gen is None or gen_max is None or width is None or width_max is None:
            unknown.append(g)
            continue
        if gen >= gen_max and width >= width_max:
            continue
        link = f"gen{gen} x{width} of gen{gen_max} x{width_max}"
        evidence = (f"gpus[{g.index}].pcie_gen_current", f"gpus[{g.index}].pcie_width_current",
                    f"gpus[{g.index}].utilization_percent")
        if g.utilization_percent is None:
            unknown.append(g)
        elif g.utilization_percent < BUSY_PERCENT:
            found.append(Finding(
                "gpu.pcie-link", Severity.INFO,
                f"{_label(g)} is idle ({g.utilization_percent}% utilization) and its link runs at {link}: normal "
                "power saving", f"The link is judged only under load (utilization of at least {BUSY_PERCENT}%).",
                None, (NVIDIA_SMI_DOCS,), evidence))
        else:
            bus = g.pci_bus_id or ""
            short = bus[-12:] if len(bus) > 12 else bus
            plain = plausible.pci_bus_id(bus) and _cmd.command(facts, ["sudo", "lspci", "-vv", "-s", short])
            lspci = f"{plain} | grep -E 'LnkCap|LnkSta'" if plain else ""
            found.append(Finding(
                "gpu.pcie-link", Severity.WARNING,
                f"{_label(g)} is busy ({g.utilization_percent}% utilization) but its PCIe link runs at {link}; "
                f"required: gen{gen_max} x{width_max} under load",
                "Host-to-GPU copies run at a fraction of their speed. Usual causes: a slot wired for fewer "
                "lanes, a riser cable, a card not fully seated, or a PCIe generation capped in the BIOS.",
                Fix("Confirm under load, then move the card to a full-width slot, reseat it, or raise the "
                    "PCIe setting in the BIOS.",
                    (f"nvidia-smi -i {g.index} --query-gpu=pcie.link.gen.current,pcie.link.gen.max,"
                     "pcie.link.width.current,pcie.link.width.max,utilization.gpu --format=csv",)
                    + ((lspci,) if lspci and not _fix.is_windows(facts) else ())),
                (NVIDIA_SMI_DOCS,), evidence))
    yield from _finish(found, unknown, "the PCIe link state under load")


CHECKS: List[Check] = [exclusive_mode, memory_held, ecc, throttled, pcie_link]
