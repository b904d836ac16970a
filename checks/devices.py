"""Check that CUDA_VISIBLE_DEVICES leaves torch the GPUs the machine has, the way CUDA itself parses it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from gpudoctor import plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, Skip, check

VAR = "CUDA_VISIBLE_DEVICES"


@dataclass(frozen=True)
class Visible:
    """What CUDA makes of CUDA_VISIBLE_DEVICES: the devices it keeps, in order, and where it stopped."""

    devices: Tuple[Tuple[str, str], ...]  # (entry, description of the device it selects)
    stopped_at: Optional[str] = None  # the first entry CUDA could not use; it ignores it and everything after
    why: str = ""  # why it stopped, or why the whole list was thrown away
    emptied: bool = False  # a repeated or ambiguous entry makes CUDA discard the whole list


def describe(gpu: Gpu) -> str:
    parts = [p for p in (gpu.name, gpu.pci_bus_id) if p]
    return f"GPU {gpu.index}" + (f" ({', '.join(parts)})" if parts else "")


def _ordinal(entry: str) -> Optional[int]:
    """CUDA reads each entry like strtoul: leading digits count, ``1gpu`` is 1, anything else stops the list."""
    match = re.match(r"^\+?(\d+)", entry.strip())
    return int(match.group(1)) if match else None


def parse_visible(value: str, gpus: Tuple[Gpu, ...], count: int) -> Visible:
    """Apply CUDA's rules to the variable's value for a machine with these GPUs (NVML order)."""
    entries = value.split(",")
    kept: List[Tuple[str, str]] = []
    seen: List[str] = []
    by_uuid = value.strip().startswith(("GPU-", "MIG-"))
    for entry in entries:
        if by_uuid:
            target, why, ambiguous = _match_uuid(entry.strip(), gpus)
        else:
            number = _ordinal(entry)
            ambiguous = False
            if number is None:
                target, why = None, f"{entry.strip()!r} is not a GPU index" if entry.strip() else "an empty entry"
            elif number >= count:
                target, why = None, f"GPU {number} does not exist (NVML sees {_count_text(count)})"
            else:
                gpu = next((g for g in gpus if g.index == number), None)
                target, why = (describe(gpu) if gpu else f"GPU {number}", "")
        if ambiguous:
            return Visible((), entry.strip(), why, emptied=True)
        if target is None:
            return Visible(tuple(kept), entry.strip(), why)
        if target in seen:
            return Visible((), entry.strip(), f"{target.split(' (')[0]} is listed twice", emptied=True)
        seen.append(target)
        kept.append((entry.strip(), target))
    return Visible(tuple(kept))


def _match_uuid(entry: str, gpus: Tuple[Gpu, ...]) -> Tuple[Optional[str], str, bool]:
    """A GPU-/MIG- entry selects the one device whose UUID starts with it."""
    if not entry.startswith(("GPU-", "MIG-")):
        return None, f"{entry!r} is not a UUID like the entries before it", False
    matches: List[str] = []
    for gpu in gpus:
        if gpu.uuid and gpu.uuid.startswith(entry):
            matches.append(describe(gpu))
        for mig in gpu.mig_devices:
            if mig.startswith(entry):
                matches.append(f"MIG device {mig} on {describe(gpu)}")
    if not matches:
        return None, f"{entry} is not the UUID of any GPU on this machine", False
    if len(matches) > 1:
        return None, f"{entry} matches more than one device", True
    return matches[0], "", False


def _count_text(count: int) -> str:
    return "1 GPU, index 0" if count == 1 else f"{count} GPUs, indices 0-{count - 1}"


def _plural(count: int) -> str:
    return f"{count} GPU" + ("" if count == 1 else "s")


def _mapping(visible: Visible, facts: Optional[Facts] = None) -> str:
    text = "\n".join(f"cuda:{i} = {target}" for i, (_, target) in enumerate(visible.devices))
    if facts is not None and _order_may_differ(facts):
        text += ("\nIndices are read in nvidia-smi's (PCI bus) order; without CUDA_DEVICE_ORDER=PCI_BUS_ID, "
                 "CUDA numbers different GPU models fastest first.")
    return text


def _order_may_differ(facts: Facts) -> bool:
    value = facts.env.get(VAR) or ""
    by_index = not value.strip().startswith(("GPU-", "MIG-"))
    models = {g.name for g in facts.gpus}
    return by_index and len(models) > 1 and facts.env.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID"


def _gpu_list(gpus: Tuple[Gpu, ...]) -> str:
    return "\n".join(describe(g) + (f", {g.uuid}" if g.uuid else "") for g in gpus)


def _fix_for(facts: Facts, count: int, keep: Optional[str] = None) -> Fix:
    commands = [_cmd.unset(facts, VAR)]
    if keep:
        plain = plausible.gpu_selectors(t.strip() for t in keep.split(","))
        commands.append(_cmd.export(facts, VAR, keep) if plain else None)
    elif count > 0:
        commands.append(_cmd.export(facts, VAR, _fix.ordinal_list(count)))
    return _cmd.fix(
        "Unset the variable to use every GPU, or list only GPUs that exist. Set it before Python starts: "
        "CUDA reads it once, when it initialises.",
        commands, "List the GPU indices or UUIDs that nvidia-smi -L shows.",
    )


def _no_cuda_device(facts: Facts) -> bool:
    t = facts.torch
    return t.is_available is False or t.device_count == 0


def _unknown_count(facts: Facts, value: str) -> Finding:
    """CUDA found no device while CUDA_VISIBLE_DEVICES was set, and the GPUs themselves are not known."""
    entries = [e.strip() for e in value.split(",") if e.strip()]
    numbers = [int(e) for e in entries if e.isdigit()]
    why = ("an empty value hides every GPU" if not entries else
           f"it names GPU {', '.join(str(n) for n in numbers)}; a machine with N GPUs has indices 0..N-1, so on a "
           f"machine with {min(numbers)} or fewer GPUs CUDA sees none" if numbers and min(numbers) > 0 else
           "when it names no GPU this process may use, CUDA sees none")
    return Finding(
        code="devices.visible",
        severity=Severity.WARNING,
        summary=f'CUDA finds no GPU while {VAR}="{value}" is set: {why}',
        detail="The GPUs themselves are not listed in the input, so the indices cannot be checked against them.",
        fix=_cmd.fix(f"Unset {VAR}, or set it to an index or UUID that nvidia-smi -L lists (0 for the first GPU).",
                     ["nvidia-smi -L", _cmd.unset(facts, VAR)], "List the GPU indices or UUIDs that nvidia-smi -L shows."),
        evidence=("env.variables", "torch.is_available"),
    )


@check("devices", "Visible devices")
def visible_devices(facts: Facts) -> Iterator[Finding]:
    count = max(len(facts.gpus), facts.driver.gpu_count or 0)
    value = facts.env.get(VAR)
    if count == 0:
        if value is not None and _no_cuda_device(facts):
            yield _unknown_count(facts, value)
            return
        raise Skip("no NVIDIA GPU is known, so no devices can be hidden", "gpus")
    torch = facts.torch
    torch_count = torch.device_count if torch.cuda_compiled and not torch.hip and not torch.init_error else None
    mig = any(g.mig_mode for g in facts.gpus)
    if value is None:
        if torch_count == 0 and torch.is_available is False:
            return  # CUDA did not start at all: torch.cuda states that, and a count of 0 follows from it
        if torch_count is not None and not mig and torch_count != count:
            unset = "its value was not recorded" if facts.probe_error("env") else "is not set"
            yield Finding(
                code="devices.visible",
                severity=Severity.WARNING,
                summary=f"torch sees {_plural(torch_count)}, NVML sees {count} and {VAR} {unset}",
                detail="NVML:\n" + _gpu_list(facts.gpus),
                fix=Fix("Check every GPU's state with nvidia-smi; a GPU in a bad state is counted by NVML but not "
                        "by CUDA.",
                        ("nvidia-smi -q -d PAGE_RETIREMENT,ECC,PERFORMANCE",)),
                evidence=("gpus", "torch.device_count", "env.variables"),
            )
        return
    shown = f'{VAR}="{value}"'
    visible = parse_visible(value, facts.gpus, count)
    if not visible.devices:
        if value.strip() == "":
            why = "an empty value hides every GPU"
        elif value.strip() == "NoDevFiles":
            why = "the batch scheduler sets NoDevFiles when the job was given no GPU; request GPUs for the job"
        elif visible.emptied:
            why = f"{visible.why}, and CUDA then discards the whole list"
        else:
            why = f"{visible.why}, and CUDA stops at the first entry it cannot use"
        yield Finding(
            code="devices.visible",
            severity=Severity.ERROR,
            summary=f"{shown} hides every GPU: NVML sees {_plural(count)}, CUDA is left with none",
            detail=f"{why[0].upper()}{why[1:]}.\nGPUs on this machine:\n{_gpu_list(facts.gpus)}",
            fix=_fix_for(facts, count),
            evidence=("env.variables", "gpus"),
        )
        return
    if visible.stopped_at is not None:
        entries = [e.strip() for e in value.split(",")]
        valid = [e for e in entries if parse_visible(e, facts.gpus, count).devices]
        keep = ",".join(dict.fromkeys(valid))
        yield Finding(
            code="devices.visible",
            severity=Severity.WARNING,
            summary=(f"{shown}: {visible.why}; CUDA stops at the first invalid entry, so only "
                     f"{_plural(len(visible.devices))} {'is' if len(visible.devices) == 1 else 'are'} visible"),
            detail=f"What torch sees:\n{_mapping(visible, facts)}\nIgnored from {visible.stopped_at!r} on.",
            fix=_fix_for(facts, count, keep),
            evidence=("env.variables", "gpus"),
        )
        return
    if torch_count is not None and not mig and torch_count != len(visible.devices):
        yield Finding(
            code="devices.visible",
            severity=Severity.WARNING,
            summary=f"torch sees {_plural(torch_count)}, but {shown} selects {len(visible.devices)}",
            detail=f"Expected:\n{_mapping(visible, facts)}",
            fix=Fix("Make sure the program does not change the variable after start-up, and check the GPUs with "
                    "nvidia-smi.",
                    ("nvidia-smi -L",)),
            evidence=("env.variables", "gpus", "torch.device_count"),
        )
        return
    flag = next((v for k, v in facts.extra if k == "paste.env_flag"), None)
    if flag and len(visible.devices) < count:
        yield Finding(
            code="devices.visible",
            severity=Severity.WARNING,
            summary=f"the launcher flag {flag} sets {shown}, so the program sees {_plural(len(visible.devices))} "
                    f"of the {count} on this machine",
            detail=f"The launcher sets {VAR} from the flag before torch starts; every other GPU is hidden from it.\n"
                   f"What torch sees:\n{_mapping(visible, facts)}",
            fix=Fix(f"Start the program without {flag.split()[0]} to let it see every GPU (and pick one inside it), "
                    "or list every GPU it should use.", ()),
            evidence=("env.variables", "gpus"),
        )
        return
    yield Finding(
        code="devices.mapping",
        severity=Severity.INFO,
        summary=f"{shown} selects {_plural(len(visible.devices))} of {count}",
        detail=_mapping(visible, facts),
        evidence=("env.variables", "gpus"),
    )


CHECKS: List[Check] = [visible_devices]
