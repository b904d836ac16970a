"""Where a distributed rank runs: its place from torchrun's or Slurm's variables, and what it runs on (for drift).

Standard library only, so the placement rules are testable without torch.
"""

from __future__ import annotations

import os
import platform
import re
import socket
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional

from . import dist_links

DEFAULT_PORT = 29500
# The variables that change how NCCL and gloo pick links and report errors: shown per rank, compared across ranks.
HINT_PREFIXES = ("NCCL_", "GLOO_", "TORCH_NCCL_", "TORCH_DISTRIBUTED_", "CUDA_VISIBLE_DEVICES", "UCX_")
HINT_LIMIT = 40
VALUE_LIMIT = 200


class PlacementError(ValueError):
    """The launcher's variables are missing or contradict each other; the message is one line for the user."""


@dataclass(frozen=True)
class Placement:
    """One rank's place in the job, as its launcher described it."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    master_addr: str
    master_port: int
    launcher: str  # torchrun | slurm | env | single
    node_rank: Optional[int] = None


def _int(env: Mapping[str, str], name: str) -> Optional[int]:
    value = env.get(name, "").strip()
    if not value:
        return None
    if not re.fullmatch(r"\d{1,9}", value):
        raise PlacementError(f"{name}={value[:40]!r} is not a non-negative whole number")
    return int(value)


def first_host(nodelist: str) -> Optional[str]:
    """The first host of a Slurm node list: ``gpu[003-008,010],login1`` -> ``gpu003``."""
    match = re.match(r"\s*([A-Za-z0-9._-]+)(?:\[([0-9]+)[^\]]*\])?", nodelist)
    if match is None:
        return None
    return match.group(1) + (match.group(2) or "")


def _tasks_on_node(env: Mapping[str, str]) -> Optional[int]:
    """SLURM_NTASKS_PER_NODE, or the first count of SLURM_TASKS_PER_NODE ("4(x2),2")."""
    direct = _int(env, "SLURM_NTASKS_PER_NODE")
    if direct is not None:
        return direct
    match = re.match(r"\s*(\d+)", env.get("SLURM_TASKS_PER_NODE", ""))
    return int(match.group(1)) if match else None


def placement(env: Mapping[str, str]) -> Placement:
    """torchrun's variables first, then Slurm's (``srun`` without torchrun), else a job of one rank."""
    rank, world = _int(env, "RANK"), _int(env, "WORLD_SIZE")
    if rank is not None and world is not None:
        local = _int(env, "LOCAL_RANK")
        launcher = "torchrun" if env.get("TORCHELASTIC_RUN_ID") else "env"
        addr, port = env.get("MASTER_ADDR", "127.0.0.1"), _int(env, "MASTER_PORT") or DEFAULT_PORT
        found = Placement(rank, world, local if local is not None else rank,
                          _int(env, "LOCAL_WORLD_SIZE") or world, addr, port, launcher, _int(env, "GROUP_RANK"))
    elif env.get("SLURM_PROCID") and env.get("SLURM_NTASKS"):
        rank, world = _int(env, "SLURM_PROCID") or 0, _int(env, "SLURM_NTASKS") or 1
        job = _int(env, "SLURM_JOB_ID") or _int(env, "SLURM_JOBID")
        master = env.get("MASTER_ADDR") or first_host(env.get("SLURM_NODELIST") or env.get("SLURM_JOB_NODELIST", ""))
        port = _int(env, "MASTER_PORT") or (DEFAULT_PORT if job is None else 15000 + job % 20000)
        found = Placement(rank, world, _int(env, "SLURM_LOCALID") or 0, _tasks_on_node(env) or world,
                          master or "127.0.0.1", port, "slurm", _int(env, "SLURM_NODEID"))
    else:
        return Placement(0, 1, 0, 1, "127.0.0.1", _int(env, "MASTER_PORT") or 0, "single", 0)
    if found.world_size < 1 or found.rank >= found.world_size:
        raise PlacementError(f"rank {found.rank} does not fit a world of {found.world_size} ranks")
    if not 0 < found.master_port < 65536 and found.launcher != "single":
        raise PlacementError(f"MASTER_PORT {found.master_port} is not a TCP port")
    return found


def hints(env: Mapping[str, str]) -> Dict[str, str]:
    """The NCCL/gloo variables set for this rank (values bounded), sorted by name."""
    chosen = sorted(k for k in env if k.startswith(HINT_PREFIXES))[:HINT_LIMIT]
    return {k: env[k][:VALUE_LIMIT] for k in chosen}


def driver_version() -> Optional[str]:
    """The NVIDIA kernel module's version from /proc (Linux), else None."""
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8", errors="replace") as handle:
            text = handle.read(4096)
    except OSError:
        return None
    match = re.search(r"Kernel Module(?: for \w+)?\s+(\d+\.\d+(?:\.\d+)?)", text)
    return match.group(1) if match else None


def identity(torch: Any, device: str, local_rank: int) -> Dict[str, Any]:
    """Host, versions and the GPU this rank drives: what must agree across ranks, and what names the rank."""
    found: Dict[str, Any] = {
        "host": socket.gethostname()[:200],
        "pid": os.getpid(),
        "python_version": platform.python_version(),
        "torch_version": str(torch.__version__),
        "cuda_build": torch.version.cuda,
        "driver_version": driver_version(),
        "nccl_version": None,
        "gpu_uuid": None,
        "gpu_name": None,
        "env": hints(os.environ),
    }
    if local_rank == 0:  # one rank per node reads the node's network ports
        found["ib_ports"] = dist_links.ib_ports()
    if device.startswith("cuda"):
        try:
            version = torch.cuda.nccl.version()
            found["nccl_version"] = ".".join(str(p) for p in version) if isinstance(version, tuple) else str(version)
        except Exception:  # noqa: BLE001 - a build without NCCL
            pass
        try:
            props = torch.cuda.get_device_properties(torch.device(device))
            found["gpu_name"] = str(props.name)
            uuid = getattr(props, "uuid", None)
            found["gpu_uuid"] = f"GPU-{uuid}" if uuid is not None and not str(uuid).startswith("GPU-") else uuid
        except Exception:  # noqa: BLE001 - named by the smoke test instead
            pass
        found.update(links(found.get("gpu_uuid")))
    return found


def links(uuid: Optional[str]) -> Dict[str, Any]:
    """PCIe generation/width, active NVLinks and the path to every other GPU of the node (``topology``) of this GPU
    from NVML (nvidia-ml-py), where it can be read."""
    try:
        import pynvml  # type: ignore[import-untyped, import-not-found, unused-ignore]  # optional: without it no link bound is known

        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001 - no NVML: no link bound
        return {}
    found: Dict[str, Any] = {}
    try:
        handle = pynvml.nvmlDeviceGetHandleByUUID(str(uuid)) if uuid else pynvml.nvmlDeviceGetHandleByIndex(0)
        found["pcie_gen"] = int(pynvml.nvmlDeviceGetCurrPcieLinkGeneration(handle))
        found["pcie_width"] = int(pynvml.nvmlDeviceGetCurrPcieLinkWidth(handle))
        active: List[int] = []
        for link in range(18):
            try:
                if pynvml.nvmlDeviceGetNvLinkState(handle, link):
                    active.append(int(pynvml.nvmlDeviceGetNvLinkVersion(handle, link)))
            except Exception:  # noqa: BLE001 - no such link
                break
        found["nvlink_links"] = len(active)
        found["nvlink_version"] = max(active) if active else None
        found["topology"] = dist_links.topology(pynvml, str(uuid) if uuid else None)
    except Exception:  # noqa: BLE001 - partial answers are kept
        pass
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass
    return found
