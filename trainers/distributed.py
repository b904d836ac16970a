"""The distributed verify worker, one per rank under torchrun or srun: ``python -m gpudoctor.trainers.distributed``.

Each rank runs the smoke test, a fixed local workload (to find stragglers), the collectives and DDP trainings; rank 0
gathers every rank's results from the job's store and prints one ``distributed`` record (and writes ``--output``).
No hang survives: every collective has a time limit, a watchdog ends a rank stuck past its step's limit, and a rank
told to stop by its launcher (SIGTERM) publishes what it has first.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import dist_collectives, dist_ddp, dist_env, dist_gather, dist_pairs
from .protocol import FATAL, STAGE, Emitter

DISTRIBUTED = "distributed"  # the protocol event rank 0 prints: the facts' distributed part
FAULT_ENV = "GPUDOCTOR_DIST_TEST_FAULT"  # tests only: sleep@R | exit@R[:STAGE] | hang@R[:STAGE], comma-separated
WORK_STEPS = 40
WORK_REPEATS = 5
HURRY = 3.0
INIT_TIMEOUT = 120.0
GATHER_WAIT = 60.0  # seconds a stopping thread waits for rank 0's report to be written
Deliver = Callable[[Dict[str, Any]], Optional[int]]  # may return the exit status rank 0 should end with


def parse(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m gpudoctor.trainers.distributed")
    p.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds any one step or collective may take")
    p.add_argument("--max-bytes", type=int, default=dist_collectives.MAX_BYTES)
    p.add_argument("--ddp-steps", type=int, default=20)
    p.add_argument("--ddp-batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--output", help="rank 0 writes the distributed facts (JSON) here")
    return p.parse_args(list(argv))


def faults(rank: int, env: Dict[str, str]) -> Dict[str, str]:
    """This rank's planted faults: kind -> the step prefix where it fires."""
    found = {}
    defaults = {"sleep": "work", "exit": "all_reduce", "hang": "all_reduce"}
    for item in env.get(FAULT_ENV, "").split(","):
        kind, _, rest = item.strip().partition("@")
        who, _, where = rest.partition(":")
        if kind in defaults and who.strip() == str(rank):
            found[kind] = where.strip() or defaults[kind]
    return found


class Rank:
    """One rank's run; ``deliver`` receives the gathered section on rank 0, from whichever thread ends the run."""

    def __init__(self, args: argparse.Namespace, place: dist_env.Placement, deliver: Deliver,
                 emit: Optional[Emitter] = None) -> None:
        self.args, self.place, self.deliver, self.emit = args, place, deliver, emit
        self.state = dist_gather.RankState(place.rank, place.world_size)
        self.planted = faults(place.rank, dict(os.environ))
        self.stopping = threading.Event()
        self.reference: Optional[Dict[str, Any]] = None  # model -> one process's run (rank 0)
        self.common: Dict[str, Any] = {"world_size": place.world_size, "launcher": place.launcher,
                                       "master": f"{place.master_addr}:{place.master_port}",
                                       "timeout_s": args.timeout, "max_bytes": args.max_bytes}
        self.ended = threading.Lock()
        self.delivered = threading.Event()
        self.code = 0  # rank 0's exit status once the report is delivered
        self.hurry_at: Optional[float] = None  # the job is going down: gather what is there by then

    def step(self, stage: str, limit: Optional[float] = None) -> None:
        self.state.enter(stage, limit if limit is not None else self.args.timeout * 1.5 + 2.0)
        if self.emit is not None and self.place.rank == 0:
            self.emit.emit(STAGE, stage=stage)
        where = self.planted
        if where.get("exit") and stage.startswith(where["exit"]):
            os._exit(17)
        if where.get("hang") and stage.startswith(where["hang"]):
            while True:
                time.sleep(60)

    def end(self, status: str, error: Optional[str] = None) -> None:
        """Publish this rank's result; on rank 0 gather everyone's and deliver them (once)."""
        self.state.finish(status, error)
        if self.place.rank != 0:
            return
        if not self.ended.acquire(blocking=False):
            self.hurry()
            self.delivered.wait(GATHER_WAIT)  # another thread gathers: let it finish before this one exits
            return
        if status in ("stopped", "timeout"):
            self.hurry()
        lost_after = self.args.timeout * 1.5 + 10.0
        rows = dist_gather.gather(self.state, lost_after,
                                  lambda: self.hurry_at is not None and time.monotonic() > self.hurry_at)
        try:
            self.code = self.deliver(dist_gather.assemble(rows, self.place.world_size, self.common,
                                                          self.reference)) or 0
        finally:
            self.delivered.set()

    def hurry(self) -> None:
        """The job is being stopped: the other ranks get a few seconds to publish what they have."""
        if self.hurry_at is None:
            self.hurry_at = time.monotonic() + HURRY

    def watch(self) -> None:
        """The watchdog: a step past its limit ends the rank (its result says where it hung)."""
        while not self.stopping.wait(0.5):
            limit = self.state.overdue()
            if limit is not None:
                self.end("timeout", f"did not finish {self.state.stage} within {limit:g} s (it hung)")
                os._exit(self.code if self.place.rank == 0 else 3)

    def on_sigterm(self) -> None:
        """The launcher stops the job (another rank failed): publish what this rank has, then exit."""
        if hasattr(signal, "sigwait"):
            signal.sigwait({signal.SIGTERM})
            self.end("stopped", f"was stopped by its launcher (SIGTERM) during {self.state.stage}")
            os._exit(self.code if self.place.rank == 0 else 143)

    def run(self) -> int:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # threads made from here on inherit it
            threading.Thread(target=self.on_sigterm, daemon=True).start()
        threading.Thread(target=self.watch, daemon=True).start()
        try:
            return self._run()
        except Exception as exc:  # noqa: BLE001 - reported as this rank's failure
            error = exc.row.get("error") if isinstance(exc, dist_collectives.CollectiveFailed) else None
            self.end("failed", str(error or " ".join(f"{type(exc).__name__}: {exc}".split())))
            return self.code if self.place.rank == 0 else 4
        finally:
            self.stopping.set()

    def _run(self) -> int:
        self.step("import torch", max(300.0, self.args.timeout * 1.5 + 5.0))
        import torch
        import torch.distributed as dist

        from .sanity import smoke

        backend = self.args.backend
        if backend == "auto":
            backend = "nccl" if torch.cuda.is_available() and dist.is_nccl_available() else "gloo"
        # a launcher that gives each task its own GPU (srun --gpus-per-task 1) shows every rank one device
        index = self.place.local_rank % max(torch.cuda.device_count(), 1) if backend == "nccl" else 0
        device = torch.device(f"cuda:{index}" if backend == "nccl" else "cpu")
        self.common["backend"] = backend
        self.step("init_process_group", max(self.args.timeout, INIT_TIMEOUT) * 1.5 + 2.0)
        _init(torch, dist, self.place, backend, device, self.args.timeout)
        self.state.store = dist.distributed_c10d._get_default_store()
        hello = dict(dist_env.identity(torch, str(device), self.place.local_rank), device=str(device),
                     local_rank=self.place.local_rank, node_rank=self.place.node_rank)
        self.state.put(f"hello/{self.place.rank}", hello)
        self.state.record.update(hello)
        self.step("smoke")
        result = smoke(device)
        self.state.record.update(smoke_ok=bool(result.get("ok")), smoke_error=result.get("error"))
        self.step("work")
        self.state.record["work_seconds"] = self._work(torch, device)
        coll = dist_collectives.Collectives(torch, dist, device, self.args.timeout, self.step)
        rows: List[Dict[str, Any]] = self.state.record["collectives"]
        for size in dist_collectives.sizes(self.args.max_bytes):
            for op in dist_collectives.OPS:
                try:
                    rows.append(coll.run(op, size))
                except dist_collectives.CollectiveFailed as exc:
                    rows.append(exc.row)
                    raise
        self._pairs(torch, dist, device, coll)
        for name in dist_ddp.MODELS:
            self.step(f"ddp {name}")
            self.state.record[dist_gather.ddp_key(name)] = dist_ddp.local(torch, dist, device, self.args.ddp_steps,
                                                                          self.args.ddp_batch, name)
        self.step("reference")
        if self.place.rank == 0:
            self.reference = {name: dist_ddp.reference(torch, device, self.args.ddp_steps, self.args.ddp_batch,
                                                       self.place.world_size, name) for name in dist_ddp.MODELS}
        dist.barrier()
        self.end("ok")
        dist.destroy_process_group()
        return self.code

    def _pairs(self, torch: Any, dist: Any, device: Any, coll: dist_collectives.Collectives) -> None:
        """Every pair of ranks swaps one payload, a round of disjoint pairs at a time."""
        rank, size = self.place.rank, min(self.args.max_bytes, dist_pairs.PAIR_BYTES)
        rows: List[Dict[str, Any]] = self.state.record.setdefault("pairs", [])

        def delay(took: float) -> None:
            if "sleep" in self.planted:
                time.sleep(10 * took + 0.05)  # the planted slow rank is slow in its links too

        for number, group in enumerate(dist_pairs.rounds(self.place.world_size)):
            self.step(f"pairs round {number + 1}")
            mine = next((pair for pair in group if rank in pair), None)
            if mine is not None:
                peer = mine[1] if mine[0] == rank else mine[0]
                rows.append(dist_pairs.exchange(torch, dist, device, peer, size, self.args.timeout, delay))
            coll.sync()

    def _work(self, torch: Any, device: Any) -> float:
        """Seconds of a fixed local workload (matrix products), the same on every rank: a straggler takes longer.
        The best of WORK_REPEATS, so that a moment of interference on a shared machine does not count."""
        best = float("inf")
        for _ in range(WORK_REPEATS):
            a = torch.randn(256, 256, device=device)
            start = time.perf_counter()
            for _ in range(WORK_STEPS):
                a = torch.tanh(a @ a)
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            if "sleep" in self.planted:
                time.sleep(10 * (time.perf_counter() - start) + 0.1)  # far more than the work, however loaded
            best = min(best, time.perf_counter() - start)
        return best


def _init(torch: Any, dist: Any, place: dist_env.Placement, backend: str, device: Any, timeout: float) -> None:
    from datetime import timedelta

    if device.type == "cuda":
        torch.cuda.set_device(device)
    # Ranks start minutes apart on a loaded node (importing torch): the rendezvous and the group's own limit get
    # at least INIT_TIMEOUT, while each collective's wait keeps the step's limit (Collectives._wait).
    limit = timedelta(seconds=max(timeout, INIT_TIMEOUT))
    if place.launcher in ("torchrun", "env"):
        dist.init_process_group(backend, timeout=limit)
    else:
        port = place.master_port or _free_port()
        dist.init_process_group(backend, init_method=f"tcp://{place.master_addr}:{port}", rank=place.rank,
                                world_size=place.world_size, timeout=limit)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(argv: Sequence[str], deliver: Deliver, emit: Optional[Emitter] = None,
        env: Optional[Dict[str, str]] = None) -> int:
    """Run this process's rank; rank 0 hands the gathered section to ``deliver``. Exit status 2 for bad input."""
    try:
        place = dist_env.placement(os.environ if env is None else env)
    except dist_env.PlacementError as exc:
        print(f"gpudoctor: {exc}", file=sys.stderr)
        return 2
    return Rank(parse(argv), place, deliver, emit).run()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The module entry: protocol records on stdout (rank 0 only), everything else on stderr."""
    args = parse(sys.argv[1:] if argv is None else argv)
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    stream = os.fdopen(protocol_fd, "w", encoding="utf-8", buffering=1)
    sys.stdout = sys.stderr
    emit = Emitter(stream)
    lock = threading.Lock()

    def deliver(section: Dict[str, Any]) -> Optional[int]:
        with lock:
            if args.output:
                try:
                    with open(args.output, "w", encoding="utf-8") as handle:
                        json.dump(section, handle, indent=2)
                except OSError as exc:
                    emit.emit(FATAL, kind="output", error=f"{args.output}: {exc.strerror or exc}")
            emit.emit(DISTRIBUTED, **section)
        return None

    return run(sys.argv[1:] if argv is None else argv, deliver, emit)


if __name__ == "__main__":
    sys.exit(main())
