"""What one rank has done so far, kept in the job's key-value store, and rank 0's gathering of every rank's result.

The store (torchrun's agent store, or rank 0's TCPStore under srun) outlives a rank that dies or hangs, so rank 0 can
still name that rank with its host, local rank, GPU and the step it was in.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from . import dist_collectives, dist_ddp

PREFIX = "gpudoctor/"
POLL = 0.2


class RankState:
    """This rank's progress and results; ``finish`` publishes them once (main thread, watchdog or signal thread)."""

    def __init__(self, rank: int, world: int, store: Any = None) -> None:
        self.rank, self.world, self.store = rank, world, store
        self.lock = threading.Lock()
        self.seq = 0
        self.stage = "start"
        self.started = time.monotonic()
        self.limit: Optional[float] = None
        self.record: Dict[str, Any] = {"rank": rank, "collectives": []}
        self.finished = False

    def enter(self, stage: str, limit: Optional[float]) -> None:
        with self.lock:
            self.seq += 1
            self.stage, self.started, self.limit = stage, time.monotonic(), limit
            seq = self.seq
        self.put(f"stage/{self.rank}", {"seq": seq, "stage": stage})

    def overdue(self) -> Optional[float]:
        """The limit of the current step once it has run past it, else None."""
        with self.lock:
            if self.limit is not None and time.monotonic() - self.started > self.limit:
                return self.limit
        return None

    def put(self, key: str, value: Any) -> None:
        if self.store is not None:
            try:
                self.store.set(PREFIX + key, json.dumps(value))
            except Exception:  # noqa: BLE001 - a lost store loses only the report, never the rank
                pass

    def get(self, key: str) -> Optional[Any]:
        if self.store is None:
            return None
        try:
            if not self.store.check([PREFIX + key]):
                return None
            return json.loads(self.store.get(PREFIX + key))
        except Exception:  # noqa: BLE001
            return None

    def finish(self, status: str, error: Optional[str] = None) -> bool:
        """Publish the result with ``status`` (ok | failed | timeout | stopped); False when already published."""
        with self.lock:
            if self.finished:
                return False
            self.finished = True
            self.limit = None  # published: gathering and reporting are not a step the watchdog times
            self.record.update(status=status, stage=self.stage if status != "ok" else None)
            if error:
                self.record["error"] = error[:600]
            record = dict(self.record)
        self.put(f"result/{self.rank}", record)
        return True


def gather(state: RankState, lost_after: float, stop: Callable[[], bool]) -> List[Dict[str, Any]]:
    """Every rank's result, in rank order: waits for each until it publishes one, or its progress stalls for
    ``lost_after`` seconds (then a "lost" row from its hello and last step), or ``stop()`` turns true."""
    seen: Dict[int, Any] = {}
    moved: Dict[int, float] = {}
    results: Dict[int, Dict[str, Any]] = {}
    while True:
        now = time.monotonic()
        for rank in range(state.world):
            if rank in results:
                continue
            found = state.record if rank == state.rank and state.finished else state.get(f"result/{rank}")
            if isinstance(found, dict):
                results[rank] = found
                continue
            stage = state.get(f"stage/{rank}")
            if rank not in moved or stage != seen.get(rank):
                seen[rank], moved[rank] = stage, now
        stalled = [r for r in range(state.world) if r not in results and now - moved[r] > lost_after]
        if len(results) == state.world or stop() or len(results) + len(stalled) == state.world:
            break
        time.sleep(POLL)
    rows = []
    for rank in range(state.world):
        if rank in results:
            rows.append(results[rank])
            continue
        stage = seen.get(rank)
        where = stage.get("stage") if isinstance(stage, dict) else None
        rows.append({"rank": rank, "status": "lost", "stage": where, "collectives": [],
                     "error": "its process ended without reporting a result (it exited, crashed or was killed)"})
    for row in rows:
        hello = state.get(f"hello/{row.get('rank')}")
        if isinstance(hello, dict):
            row.update({k: v for k, v in hello.items() if k not in row})
    return rows


def table(ranks: List[Dict[str, Any]], world: int) -> List[Dict[str, Any]]:
    """The group's collectives: per op and size the slowest rank's time (the group waits for it), correct only
    when every rank got the exact values, bandwidths by nccl-tests' formulas."""
    order: List[Any] = []
    cells: Dict[Any, List[Dict[str, Any]]] = {}
    for rank in ranks:
        for row in rank.get("collectives") or []:
            key = (row.get("op"), row.get("bytes"))
            if key not in cells:
                order.append(key)
                cells[key] = []
            cells[key].append(row)
    rows = []
    for op, size in order:
        got = cells[(op, size)]
        times = [float(r["seconds"]) for r in got if isinstance(r.get("seconds"), (int, float))]
        complete = len(got) == world and len(times) == world
        seconds = max(times) if complete and times else None
        algbw = size / seconds / 1e9 if seconds else None
        errors = sorted({str(r["error"]) for r in got if r.get("error")})
        rows.append({
            "op": op,
            "bytes": size,
            "seconds": seconds,
            "algbw_gb_s": algbw,
            "busbw_gb_s": algbw * dist_collectives.bus_factor(str(op), world) if algbw is not None else None,
            "correct": all(r.get("correct") is True for r in got) if complete else None,
            "supported": all(r.get("supported", True) for r in got),
            "error": "; ".join(errors)[:600] or None,
        })
    return rows


TRAINING_KEYS = {"fnn": "training", "cnn": "training_cnn"}  # where each model's DDP result goes in the facts


def ddp_key(name: str) -> str:
    """A rank's record key for its DDP run of model ``name``."""
    return "ddp" if name == "fnn" else f"ddp_{name}"


def assemble(ranks: List[Dict[str, Any]], world: int, common: Dict[str, Any],
             reference: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The ``distributed`` part of the verify facts; ``reference``: model -> one process's run of it."""
    section = dict(common)
    section["ranks"] = [_rank_row(r) for r in ranks]
    section["collectives"] = table(ranks, world)
    for name in dist_ddp.MODELS:
        key = ddp_key(name)
        mine = (reference or {}).get(name)
        if mine is not None or any(r.get(key) for r in ranks):
            section[TRAINING_KEYS[name]] = dist_ddp.summarise([r.get(key) or {} for r in ranks], mine or {}, world,
                                                              name)
    nodes = {(r.get("host"), r.get("node_rank")) for r in ranks if r.get("host")}
    section["nodes"] = len(nodes) or None  # torchrun's node rank tells apart "nodes" that share one host
    return section


_RANK_KEYS = ("rank", "local_rank", "node_rank", "host", "pid", "device", "gpu_uuid", "gpu_name", "status", "error",
              "stage", "python_version", "torch_version", "cuda_build", "nccl_version", "driver_version", "env",
              "smoke_ok", "smoke_error", "work_seconds", "pcie_gen", "pcie_width", "nvlink_links", "nvlink_version")
_PORT_KEYS = ("device", "port", "rate", "rate_gbit_s", "state", "link_layer")
_LINK_KEYS = ("peer_uuid", "level", "nvlinks")


def _rank_row(rank: Dict[str, Any]) -> Dict[str, Any]:
    row = {k: rank.get(k) for k in _RANK_KEYS if rank.get(k) is not None}
    env = row.get("env")
    if isinstance(env, dict):
        row["env"] = sorted([str(k), str(v)] for k, v in env.items())
    row["collectives"] = [
        {k: c.get(k) for k in ("op", "bytes", "seconds", "correct", "supported", "error") if c.get(k) is not None}
        for c in rank.get("collectives") or []
    ]
    row["pairs"] = [
        {k: c.get(k) for k in ("peer", "bytes", "seconds", "correct", "error") if c.get(k) is not None}
        for c in rank.get("pairs") or [] if isinstance(c, dict)
    ]
    for key, keys in (("ib_ports", _PORT_KEYS), ("topology", _LINK_KEYS)):
        items = rank.get(key)
        if isinstance(items, list) and items:
            row[key] = [{k: c.get(k) for k in keys if c.get(k) is not None} for c in items if isinstance(c, dict)]
    ddp = rank.get("ddp")
    if isinstance(ddp, dict) and ddp.get("seconds") is not None:
        row["ddp_seconds"] = ddp["seconds"]
    return row
