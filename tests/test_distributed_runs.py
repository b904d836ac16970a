"""``verify --distributed`` on real torchrun jobs of gloo ranks: clean runs of 2 and 4 ranks, two "nodes" on
loopback, and faults planted into real runs (a slow rank, a rank that exits, one that hangs, one whose settings
differ). Payloads stay small; nothing here asserts on speed: the planted faults are large against the work they
disturb, and the checks judge ratios to the median.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

from gpudoctor.checks.verify_distributed import CHECKS
from gpudoctor.probes.verify.distributed import run_distributed, verify_facts, worker_args
from gpudoctor.facts.distributed import DistributedFacts
from gpudoctor.facts import Facts
from gpudoctor.model import Finding
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks
from gpudoctor.trainers.distributed import FAULT_ENV
from gpudoctor.facts.verify import VerifyFacts

pytestmark = pytest.mark.distributed
ENTRY = [sys.executable, "-m", "gpudoctor.trainers.distributed"]
SMALL = 4096


def _env(fault: str = "", **extra: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != FAULT_ENV}
    if fault:
        env[FAULT_ENV] = fault
    env.update(extra)
    return env


def _findings(dist: DistributedFacts) -> List[Finding]:
    facts = Facts(verify=VerifyFacts(distributed=dist))
    report = run_checks(Catalogue(tuple(CHECKS)), facts)
    return [f for r in report.results for f in r.findings]


def _codes(dist: DistributedFacts) -> List[str]:
    return [f.code for f in _findings(dist)]


def _run(nproc: int, fault: str = "", step_timeout: float = 20.0) -> DistributedFacts:
    result = run_distributed(None, nproc, worker_args("gloo", SMALL, step_timeout), 240.0, env=_env(fault))
    assert result.distributed is not None
    return result.distributed


def _exact(dist: DistributedFacts, world: int) -> None:
    """Every collective at every size ran on every rank and returned exact values."""
    ops = {(c.op, c.bytes) for c in dist.collectives}
    assert {op for op, _ in ops} == {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}
    assert all(c.correct for c in dist.collectives if c.supported)
    assert [r.rank for r in dist.ranks] == list(range(world))
    assert all(len(r.collectives) == len(dist.collectives) for r in dist.ranks)


def test_cli_two_ranks_writes_a_report_that_rediagnoses(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "verify", "--distributed", "--backend", "gloo", "--max-bytes",
         str(SMALL), "--step-timeout", "20", "--format", "json", "-o", str(out)],
        capture_output=True, text=True, timeout=240, env=_env(),
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    dist = Facts.from_dict(report["facts"]).verify.distributed  # type: ignore[union-attr]
    assert dist is not None and dist.backend == "gloo" and dist.world_size == 2
    _exact(dist, 2)
    assert all(r.status == "ok" and r.host and r.smoke_ok for r in dist.ranks)
    assert dist.training is not None and dist.training.max_rel_diff is not None
    assert dist.training.max_rel_diff <= (dist.training.tolerance or 0.0)
    cnn = dist.training_cnn
    assert cnn is not None and cnn.model == "cnn" and cnn.max_rel_diff is not None and cnn.steps
    assert cnn.max_rel_diff <= (cnn.tolerance or 0.0) and len(cnn.losses) == len(cnn.reference_losses) == cnn.steps
    assert cnn.scaling_efficiency is not None and cnn.global_batch == 2 * (cnn.batch_per_rank or 0)
    codes = _codes(dist)
    assert {"verify.ranks-ok", "verify.collective-ok", "verify.ddp-parity-ok", "verify.rank-drift-ok"} <= set(codes)
    assert {f.summary.split(" over ")[0] for f in _findings(dist) if f.code == "verify.ddp-parity-ok"} == \
        {"DDP of the FNN", "DDP of the CNN"}
    assert "verify.rank-failed" not in codes


def test_four_ranks_one_sleeping_is_named_a_straggler_and_slow_in_every_pair() -> None:
    dist = _run(4, fault="sleep@2")
    _exact(dist, 4)
    assert dist.training is not None and (dist.training.max_rel_diff or 0.0) <= (dist.training.tolerance or 0.0)
    assert dist.training_cnn is not None and dist.training_cnn.max_rel_diff is not None
    assert dist.training_cnn.max_rel_diff <= (dist.training_cnn.tolerance or 0.0)
    slow = [f for f in _findings(dist) if f.code in ("verify.straggler", "verify.slow-rank-link")]
    assert sorted(f.code for f in slow) == ["verify.slow-rank-link", "verify.straggler"]
    assert all(f.summary.startswith("Rank 2 (host ") for f in slow)
    assert all(len(r.pairs) == 3 and all(p.correct for p in r.pairs) for r in dist.ranks)


def test_worker_only_ranks_under_users_torchrun_report_a_rank_that_exits(tmp_path: Path) -> None:
    """`gpudoctor verify --distributed --worker-only` as every rank of a torchrun job: rank 1 exits, torchrun stops
    rank 0, and rank 0 still writes the report naming rank 1 (torchrun's exit status is not known in here)."""
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "--max-restarts=0",
         "--no-python", sys.executable, "-m", "gpudoctor", "verify", "--distributed", "--worker-only",
         "--backend", "gloo", "--max-bytes", str(SMALL), "--step-timeout", "20", "--format", "json", "-o", str(out)],
        capture_output=True, text=True, timeout=240, env=_env("exit@1"),
    )
    assert done.returncode != 0  # torchrun reports the rank that exited
    dist = Facts.from_dict(json.loads(out.read_text(encoding="utf-8"))["facts"]).verify.distributed  # type: ignore[union-attr]
    assert dist is not None and [r.status for r in dist.ranks][1] == "lost"
    assert (dist.ranks[1].stage or "").startswith("all_reduce")
    failed = [f for f in _findings(dist) if f.code == "verify.rank-failed"]
    assert len(failed) == 1 and failed[0].summary.startswith("Rank 1 (host ")
    assert "ended without reporting a result" in failed[0].summary


def test_a_rank_that_hangs_in_a_collective_is_stopped_and_named() -> None:
    dist = _run(2, fault="hang@1", step_timeout=3.0)
    hung = {r.rank: r for r in dist.ranks}[1]
    assert hung.status == "timeout" and "hung" in (hung.error or "")
    failed = [f for f in _findings(dist) if f.code == "verify.rank-failed"]
    assert [f.summary.split(" (")[0] for f in failed] == ["Rank 1"]
    assert "hung during all_reduce" in failed[0].summary


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _node(rank: int, port: int, out: Optional[Path], extra: Dict[str, str]) -> "subprocess.Popen[str]":
    argv: Sequence[str] = [
        sys.executable, "-m", "torch.distributed.run", "--nnodes=2", f"--node-rank={rank}", "--nproc-per-node=1",
        "--rdzv-backend=static", f"--rdzv-endpoint=127.0.0.1:{port}", "--max-restarts=0", *ENTRY[1:],
        "--backend", "gloo", "--max-bytes", str(SMALL), "--timeout", "20",
    ]
    if out is not None:
        argv = [*argv, "--output", str(out)]
    return subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=_env(**extra))


def test_two_nodes_on_loopback_with_drift(tmp_path: Path) -> None:
    port = _free_port()
    out = tmp_path / "dist.json"
    # both "nodes" share this host's cores: one thread each, as torchrun sets for several local ranks
    nodes = [_node(0, port, out, {"OMP_NUM_THREADS": "1"}),
             _node(1, port, out, {"OMP_NUM_THREADS": "1", "NCCL_IB_DISABLE": "1"})]
    for node in nodes:
        try:
            node.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            node.kill()
            pytest.fail("a torchrun node did not finish")
    dist = verify_facts(json.loads(out.read_text(encoding="utf-8")), None).distributed
    assert dist is not None and dist.world_size == 2 and dist.nodes == 2
    _exact(dist, 2)
    assert sorted(r.node_rank for r in dist.ranks) == [0, 1]
    assert dist.training is not None and (dist.training.max_rel_diff or 0.0) <= (dist.training.tolerance or 0.0)
    drift = [f for f in _findings(dist) if f.code == "verify.rank-drift"]
    assert len(drift) == 1 and drift[0].summary.startswith("NCCL_IB_DISABLE differs across ranks")
    ib_rank = next(r.rank for r in dist.ranks if dict(r.env).get("NCCL_IB_DISABLE") == "1")
    assert f"1 on ranks {ib_rank}" in drift[0].summary
