"""The links around one rank: InfiniBand/RoCE ports from sysfs (the network between nodes) and, through NVML, how
this rank's GPU reaches every other GPU of its node (``nvidia-smi topo -m``'s matrix, one row).

Both readers are bounded and never raise: what cannot be read is left out.
"""

from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional

IB_ROOT = "/sys/class/infiniband"
MAX_DEVICES = 32
MAX_PORTS = 16
READ_LIMIT = 256
MAX_GPUS = 64
MAX_NVLINKS = 18
# NVML_TOPOLOGY_* (nvmlDeviceGetTopologyCommonAncestor) -> the label nvidia-smi topo -m prints.
TOPOLOGY_LEVELS = {0: "INT", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return " ".join(handle.read(READ_LIMIT).split()) or None
    except (OSError, ValueError):
        return None


def _listing(path: str, limit: int) -> List[str]:
    try:
        names = sorted(os.listdir(path))
    except (OSError, ValueError):
        return []
    return [n for n in names if _NAME.match(n)][:limit]


def rate_gbit(text: Optional[str]) -> Optional[float]:
    """Gbit/s from sysfs' rate text: ``100 Gb/sec (4X EDR)`` -> 100.0."""
    match = re.match(r"\s*(\d+(?:\.\d+)?)\s*Gb/sec", text or "")
    return float(match.group(1)) if match else None


def ib_ports(root: str = IB_ROOT) -> List[Dict[str, Any]]:
    """Every InfiniBand/RoCE port under ``root``: device, port, rate (text and Gbit/s), state, link layer."""
    found: List[Dict[str, Any]] = []
    try:
        for device in _listing(root, MAX_DEVICES):
            ports = os.path.join(root, device, "ports")
            for port in _listing(ports, MAX_PORTS):
                if not port.isdigit():
                    continue
                where = os.path.join(ports, port)
                rate = _read(os.path.join(where, "rate"))
                found.append({"device": device, "port": int(port), "rate": rate, "rate_gbit_s": rate_gbit(rate),
                              "state": _read(os.path.join(where, "state")),
                              "link_layer": _read(os.path.join(where, "link_layer"))})
    except Exception:  # noqa: BLE001 - a strange sysfs loses the ports, never the rank
        return found
    return found


def _bus_id(nvml: Any, handle: Any) -> Optional[str]:
    try:
        bus = nvml.nvmlDeviceGetPciInfo(handle).busId
        text = bus.decode() if isinstance(bus, bytes) else str(bus)
        return text.lower()[-12:]  # the domain's width differs between NVML calls: compare bus:device.function
    except Exception:  # noqa: BLE001
        return None


def _nvlinks_to(nvml: Any, handle: Any, peer_bus: Optional[str]) -> int:
    count = 0
    for link in range(MAX_NVLINKS):
        try:
            if not nvml.nvmlDeviceGetNvLinkState(handle, link):
                continue
            remote = nvml.nvmlDeviceGetNvLinkRemotePciInfo(handle, link).busId
        except Exception:  # noqa: BLE001 - no such link
            break
        text = remote.decode() if isinstance(remote, bytes) else str(remote)
        if peer_bus and text.lower()[-12:] == peer_bus:
            count += 1
    return count


def topology(nvml: Any, uuid: Optional[str]) -> List[Dict[str, Any]]:
    """How the GPU ``uuid`` reaches every other GPU NVML sees: ``{"peer_uuid", "level", "nvlinks"}`` per peer, the
    level as nvidia-smi topo -m names it (NV<n> when NVLinks join the pair). ``nvml``: an initialised pynvml."""
    found: List[Dict[str, Any]] = []
    try:
        count = min(int(nvml.nvmlDeviceGetCount()), MAX_GPUS)
        handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        uuids = [_text(nvml.nvmlDeviceGetUUID(h)) for h in handles]
        if not uuid or uuid not in uuids:
            return found
        mine = handles[uuids.index(uuid)]
        for handle, peer in zip(handles, uuids):
            if peer == uuid:
                continue
            try:
                level = TOPOLOGY_LEVELS.get(int(nvml.nvmlDeviceGetTopologyCommonAncestor(mine, handle)), "?")
            except Exception:  # noqa: BLE001 - the pair's path is unknown, its NVLinks may still be read
                level = "?"
            links = _nvlinks_to(nvml, mine, _bus_id(nvml, handle))
            found.append({"peer_uuid": peer, "level": f"NV{links}" if links else level, "nvlinks": links})
    except Exception:  # noqa: BLE001 - partial answers are kept
        return found
    return found


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
