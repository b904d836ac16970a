"""Checks of how CUDA numbers the GPUs: its device order against nvidia-smi's, and MIG instances."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from gpudoctor import plausible
from gpudoctor.checks.support import words as _cmd
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need, skip
from gpudoctor.shell import Shell, quote

CUDA_ENV_DOCS = "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html"
MIG_GUIDE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"
MIG_CAPABLE = (
    "A100", "A30", "H100", "H200", "H800", "H20", "B200", "B300", "RTX PRO 6000 BLACKWELL", "RTX PRO 5000 BLACKWELL",
)
ORDER_ASSUMPTION = (
    "predicted, not observed: CUDA documents only that FASTEST_FIRST puts the fastest GPU first by a "
    "simple heuristic; assumed here: higher compute capability first, equal ones in PCI bus order"
)


def _bus_key(bus: Optional[str]) -> Optional[Tuple[int, ...]]:
    match = re.fullmatch(r"(?:([0-9a-fA-F]+):)?([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-7])", (bus or "").strip())
    if not match:
        return None
    return tuple(int(part or "0", 16) for part in match.groups())


def _uuid_key(uuid: Optional[str]) -> str:
    return (uuid or "").lower().removeprefix("gpu-")


def _pci_order(gpus: Sequence[Gpu]) -> List[Gpu]:
    keys = [_bus_key(g.pci_bus_id) for g in gpus]
    if any(k is None for k in keys):
        return sorted(gpus, key=lambda g: g.index)
    return sorted(gpus, key=lambda g: _bus_key(g.pci_bus_id) or ())


def _fastest_first(gpus: Sequence[Gpu]) -> Tuple[List[Gpu], bool]:
    """The assumed FASTEST_FIRST order, and whether it is unambiguous (no two models share a capability)."""
    pci = _pci_order(gpus)
    if any(g.compute_capability is None for g in gpus):
        return pci, False
    ordered = sorted(pci, key=lambda g: tuple(-v for v in (g.compute_capability or (0, 0))))
    by_cc: Dict[Optional[Tuple[int, int]], Set[Optional[str]]] = {}
    for g in gpus:
        by_cc.setdefault(g.compute_capability, set()).add(g.name)
    return ordered, all(len(names) == 1 for names in by_cc.values())


def _apply_visible(order: List[Gpu], cvd: Optional[str]) -> List[Gpu]:
    """CUDA_VISIBLE_DEVICES applied to CUDA's own enumeration, by CUDA's rules.

    Indices count in CUDA's order and are read like strtoul; CUDA stops at the first entry it cannot use,
    and a repeated or ambiguous entry empties the list (the devices check reports those entries).
    """
    if cvd is None:
        return list(order)
    visible: List[Gpu] = []
    for token in (t.strip() for t in cvd.split(",")):
        number = re.match(r"^\+?(\d+)", token)
        if token.upper().startswith("GPU-"):
            hits = [g for g in order if g.uuid and _uuid_key(g.uuid).startswith(_uuid_key(token))]
            if len(hits) > 1:
                return []
            gpu = hits[0] if hits else None
        else:
            gpu = order[int(number.group(1))] if number and int(number.group(1)) < len(order) else None
        if gpu is None:
            return visible
        if gpu in visible:
            return []
        visible.append(gpu)
    return visible


def _observed(facts: Facts) -> Optional[List[Gpu]]:
    """The physical GPU behind each torch device, matched by PCI bus id or UUID; None when any is unmatched."""
    devices = facts.torch.devices
    if not devices:
        return None
    found: List[Gpu] = []
    for dev in sorted(devices, key=lambda d: d.index):
        key, uuid = _bus_key(dev.pci_bus_id), _uuid_key(dev.uuid)
        hits = [g for g in facts.gpus
                if (key and _bus_key(g.pci_bus_id) == key) or (uuid and _uuid_key(g.uuid) == uuid)]
        if len(hits) != 1:
            return None
        found.append(hits[0])
    return found


def _table(gpus: Sequence[Gpu]) -> str:
    rows = [("CUDA", "nvidia-smi", "name", "bus id")] + [
        (f"cuda:{i}", f"GPU {g.index}", g.name or "unknown", g.pci_bus_id or "unknown") for i, g in enumerate(gpus)
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(3)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3] for row in rows)


def _gpus_with_names(facts: Facts) -> Tuple[Gpu, ...]:
    gpus = need(facts.gpus or None, "gpus", "no GPU list from NVML, so CUDA's numbering cannot be compared with it")
    if any(g.name is None for g in gpus):
        raise skip("the GPU models are not known, so whether CUDA reorders them is not known")
    return gpus


@check("devices.order", "CUDA device order vs nvidia-smi")
def device_order(facts: Facts) -> Iterator[Finding]:
    if any(key == "paste.gpus_from_prose" for key, _ in facts.extra):
        raise skip("the GPUs are only named in sentences, which need not be one machine's")
    gpus = _gpus_with_names(facts)
    setting = facts.env.get("CUDA_DEVICE_ORDER")
    pci_bus_order = (setting or "").strip() == "PCI_BUS_ID"
    cvd = facts.env.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None and "MIG-" in cvd.upper():
        raise skip("CUDA_VISIBLE_DEVICES names MIG instances; see the devices.mig check")
    nvml_order = sorted(gpus, key=lambda g: g.index)
    expected = _apply_visible(nvml_order, cvd)
    mixed = len({g.name for g in gpus}) > 1
    if pci_bus_order or not mixed:
        enumeration, certain = _pci_order(gpus), True
    else:
        enumeration, certain = _fastest_first(gpus)
    predicted = _apply_visible(enumeration, cvd)
    observed = _observed(facts)
    actual = observed if observed is not None else predicted
    if observed is not None:
        basis = "observed from torch's devices"
    else:
        basis = "CUDA_DEVICE_ORDER=PCI_BUS_ID" if pci_bus_order else ORDER_ASSUMPTION if mixed else "identical GPUs, PCI bus order"
    table = f"{_table(actual)}\n({basis})"
    order_text = f"CUDA_DEVICE_ORDER={setting}" if setting is not None else "CUDA_DEVICE_ORDER unset (FASTEST_FIRST)"
    cvd_text = f", CUDA_VISIBLE_DEVICES={cvd}" if cvd is not None else ""
    evidence = ("gpus", "env.variables") + (("torch.devices",) if observed is not None else ())
    uuids = [g.uuid for g in expected if g.uuid]
    pin = (
        _cmd.export(facts, "CUDA_VISIBLE_DEVICES", ",".join(uuids))
        if expected and len(uuids) == len(expected) and plausible.gpu_selectors(uuids) else None
    ) or "nvidia-smi -L"
    differs = [i for i, (a, e) in enumerate(zip(actual, expected)) if a is not e]
    guessing = observed is None and mixed and not certain
    if not pci_bus_order and (differs or guessing):
        if differs:
            i = differs[0]
            what = (f"cuda:{i} is nvidia-smi GPU {actual[i].index} ({actual[i].name}), not GPU "
                    f"{expected[i].index} ({expected[i].name})")
        else:
            what = "CUDA's numbering of these GPUs cannot be predicted and may differ from nvidia-smi's"
        models = " and the GPUs are different models" if mixed else ""
        yield Finding(
            code="devices.order",
            severity=Severity.WARNING,
            summary=f"{what}: {order_text}{cvd_text}{models}; required: CUDA_DEVICE_ORDER=PCI_BUS_ID, "
            "so cuda:N and CUDA_VISIBLE_DEVICES indices follow nvidia-smi",
            detail=table,
            fix=_cmd.fix(
                "Number CUDA devices in PCI bus order like nvidia-smi (set it before the process starts), "
                "or select GPUs by UUID, which no ordering changes.",
                (_cmd.export(facts, "CUDA_DEVICE_ORDER", "PCI_BUS_ID"), pin), "",
            ),
            links=(CUDA_ENV_DOCS,),
            evidence=evidence,
        )
    elif actual and (cvd is not None or mixed):
        cause = f"CUDA_VISIBLE_DEVICES={cvd} renumbers the GPUs" if cvd is not None else order_text
        yield Finding(
            code="devices.order",
            severity=Severity.INFO,
            summary=f"{cause}: " + ", ".join(f"cuda:{i} = nvidia-smi GPU {g.index}" for i, g in enumerate(actual)),
            detail=table,
            links=(CUDA_ENV_DOCS,),
            evidence=evidence,
        )


def _per_process(facts: Facts, named: Sequence[str]) -> Tuple[Optional[str], ...]:
    """``CUDA_VISIBLE_DEVICES=MIG-... python train.py`` per named instance; None for a name that is no MIG UUID."""
    if _cmd.shell_of(facts) is not Shell.POSIX:
        return tuple(_cmd.export(facts, "CUDA_VISIBLE_DEVICES", t) if plausible.gpu_selector(t) else None for t in named)
    return tuple(f"CUDA_VISIBLE_DEVICES={quote(t, Shell.POSIX)} python train.py" if plausible.gpu_selector(t) else None
                 for t in named)


def _mig_capable(name: Optional[str]) -> bool:
    upper = (name or "").upper()
    return any(model in upper for model in MIG_CAPABLE)


@check("devices.mig", "MIG instances")
def mig(facts: Facts) -> Iterator[Finding]:
    gpus = need(facts.gpus or None, "gpus", "no GPU list from NVML, so the MIG mode is not known")
    enabled = [g for g in gpus if g.mig_mode]
    unknown = [g for g in gpus if g.mig_mode is None and _mig_capable(g.name)]
    if not enabled:
        if unknown:
            raise skip(f"the MIG mode of GPU {unknown[0].index} ({unknown[0].name}) was not read")
        return
    if facts.meta.redacted and not any(g.mig_devices for g in enabled):
        raise skip("MIG is on, but the MIG instance UUIDs were removed by redaction")
    for g in enabled:
        if g.mig_devices:
            continue
        yield Finding(
            code="devices.mig",
            severity=Severity.ERROR,
            summary=f"GPU {g.index} ({g.name}) has MIG mode on but no MIG instances: CUDA sees no device on "
            "it; required: at least one GPU instance with a compute instance, or MIG off",
            detail="Profile 0 is one instance spanning the whole GPU; -lgip lists every profile.",
            fix=Fix(
                "Create GPU and compute instances, or switch MIG off (that needs the GPU idle and reset).",
                (f"sudo nvidia-smi mig -i {g.index} -lgip", f"sudo nvidia-smi mig -i {g.index} -cgi 0 -C",
                 f"sudo nvidia-smi -i {g.index} -mig 0"),
            ),
            links=(MIG_GUIDE,),
            evidence=(f"gpus[{g.index}].mig_mode", f"gpus[{g.index}].mig_devices"),
        )
    instances = [(g, uuid) for g in enabled for uuid in g.mig_devices]
    if not instances:
        return
    cvd = facts.env.get("CUDA_VISIBLE_DEVICES")
    named = [t.strip() for t in (cvd or "").split(",") if t.strip().upper().startswith("MIG-")]
    known = [uuid.lower() for _, uuid in instances]
    strangers = [t for t in named if "/" not in t and not any(k.startswith(t.lower()) for k in known)]
    listing = "\n".join(f"GPU {g.index} ({g.name}): {uuid}" for g, uuid in instances)
    first = instances[0][1]
    pick = _cmd.export(facts, "CUDA_VISIBLE_DEVICES", first) if plausible.gpu_selector(first) else None
    by_uuid = "Set CUDA_VISIBLE_DEVICES to the MIG UUID that nvidia-smi -L prints for the instance."
    if strangers:
        yield Finding(
            code="devices.mig",
            severity=Severity.ERROR,
            summary=f"CUDA_VISIBLE_DEVICES names {strangers[0]}, which is not a MIG instance on this machine",
            detail=f"MIG instances here:\n{listing}",
            fix=_cmd.fix("Name an existing instance (nvidia-smi -L lists them).", ("nvidia-smi -L", pick), by_uuid),
            links=(MIG_GUIDE,),
            evidence=("env.variables", "gpus"),
        )
    elif len(named) > 1:
        yield Finding(
            code="devices.mig",
            severity=Severity.WARNING,
            summary=f"CUDA_VISIBLE_DEVICES names {len(named)} MIG instances, but a CUDA process uses only "
            f"one: {named[0]}",
            detail="Run one process per MIG instance, each with its own CUDA_VISIBLE_DEVICES.\n"
            f"MIG instances here:\n{listing}",
            fix=_cmd.fix("Give each process one instance.", _per_process(facts, named),
                         "Start each process with CUDA_VISIBLE_DEVICES set to one MIG UUID from nvidia-smi -L."),
            links=(MIG_GUIDE,),
            evidence=("env.variables", "gpus"),
        )
    else:
        chosen = named[0] if named else "the first one CUDA enumerates"
        yield Finding(
            code="devices.mig",
            severity=Severity.INFO,
            summary=f"MIG is on: {len(instances)} instance(s); a CUDA process uses one of them ({chosen}) as cuda:0",
            detail=f"Select an instance by UUID:\n{listing}",
            fix=_cmd.fix("Pick the instance per process.", (pick,), by_uuid),
            links=(MIG_GUIDE,),
            evidence=("gpus", "env.variables"),
        )


CHECKS: List[Check] = [device_order, mig]
