"""The verify --distributed checks on recorded and edited runs (tests/fixtures/distributed, made by make.py from a
real 2-rank gloo run), and the pure parts of the worker: placement from launcher variables, bandwidth formulas,
the group's table, DDP parity, planted faults, and torchrun's exit-status summary."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from gpudoctor.checks.verify_collective import link_bound, ranks_text
from gpudoctor.checks.verify_distributed import CHECKS, stragglers
from gpudoctor.probes.verify.distributed import DistributedInputError, _exit_codes, local_ranks, torchrun_argv, worker_args
from gpudoctor.facts.distributed import DistributedFacts, RankResult
from gpudoctor.facts import Facts, Gpu, TorchFacts
from gpudoctor.model import Finding
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks
from gpudoctor.trainers import dist_collectives, dist_ddp, dist_env, dist_gather
from gpudoctor.trainers.distributed import faults

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "distributed"

# fixture -> (finding codes expected at warning or error, in order; the report's exit code)
EXPECTED: Dict[str, Tuple[List[str], int]] = {
    "clean_gloo": ([], 0),
    "gloo_unsupported": ([], 0),
    "nvlink_ok": ([], 0),
    "two_nodes": ([], 0),
    "rank_lost": (["verify.rank-failed"], 1),
    "rank_hung": (["verify.rank-failed"], 1),
    "run_failed": (["verify.distributed-failed"], 1),
    "straggler_gpu": (["verify.straggler"], 0),
    "drift_nccl": (["verify.rank-drift"], 1),
    "wrong_collective": (["verify.collective-wrong"], 1),
    "ddp_mismatch": (["verify.ddp-parity"], 1),
    "nvlink_slow": (["verify.collective-slow"], 0),
    "slow_pair_gpu": (["verify.slow-pair"], 0),
}


def _report(name: str) -> Tuple[List[Finding], int]:
    facts = Facts.from_json((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    report = run_checks(Catalogue(tuple(CHECKS)), facts)
    return [f for r in report.results for f in r.findings], report.exit_code()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_verdicts(name: str) -> None:
    findings, code = _report(name)
    problems = [f.code for f in findings if f.severity.value in ("warning", "error")]
    assert (problems, code) == EXPECTED[name]
    for f in findings:
        if f.severity.value in ("warning", "error"):
            assert "observed:" in f.detail and "required:" in f.detail and f.fix is not None


def test_every_fixture_is_listed() -> None:
    assert {p.stem for p in FIXTURES.glob("*.json")} - {"base"} == set(EXPECTED)


def test_findings_name_the_rank_its_host_and_gpu() -> None:
    lost = next(f for f in _report("rank_lost")[0] if f.code == "verify.rank-failed")
    assert lost.summary.startswith("Rank 1 (host vm, local rank 1, cpu) died during all_reduce 1024")
    assert "exited with status 17" in lost.summary and "Ranks 0 stopped with it" in lost.detail
    assert "GLOO_SOCKET_IFNAME" in lost.fix.text  # type: ignore[union-attr]
    slow = next(f for f in _report("straggler_gpu")[0] if f.code == "verify.straggler")
    assert "Rank 3 (host n001, local rank 3, GPU-00000000-0000-0000-0000-000000000003)" in slow.summary
    assert "3.5x the median" in slow.summary
    drift = next(f for f in _report("drift_nccl")[0] if f.code == "verify.rank-drift")
    assert "2.27.3 on ranks 0-1 (n001), 2.21.5 on ranks 2-3 (n002)" in drift.summary


def test_link_bounds_are_named() -> None:
    ok = next(f for f in _report("nvlink_ok")[0] if f.code == "verify.collective-ok")
    assert "80% of NVLink (18 links of version 4 per GPU)'s 450 GB/s" in ok.summary
    slow = next(f for f in _report("nvlink_slow")[0] if f.code == "verify.collective-slow")
    assert "9% of NVLink" in slow.summary and "nvidia-smi topo -m" in slow.fix.commands  # type: ignore[union-attr]
    gloo = next(f for f in _report("clean_gloo")[0] if f.code == "verify.collective-ok")
    assert "no GPU link bounds these numbers" in gloo.summary
    nodes = next(f for f in _report("two_nodes")[0] if f.code == "verify.collective-ok")
    assert "across nodes the network bounds them" in nodes.summary.lower()
    pcie = DistributedFacts(backend="nccl", nodes=1, ranks=(RankResult(rank=0, pcie_gen=4, pcie_width=16),
                                                           RankResult(rank=1, pcie_gen=3, pcie_width=8)))
    bound, link = link_bound(pcie)
    assert bound == pytest.approx(0.985 * 8) and "PCIe gen 3 x8 (rank 1's GPU" in link


def test_straggler_is_judged_against_the_other_ranks() -> None:
    gpu = [RankResult(rank=r, device=f"cuda:{r}", work_seconds=s) for r, s in enumerate((0.1, 0.1, 0.19, 0.1))]
    assert stragglers(gpu) == []
    gpu[2] = RankResult(rank=2, device="cuda:2", work_seconds=0.21)
    assert [r.rank for r, _, _ in stragglers(gpu)] == [2]
    cpu = [RankResult(rank=r, device="cpu", work_seconds=s) for r, s in enumerate((0.1, 0.3))]
    assert stragglers(cpu) == []  # contention on shared cores: under 4x
    tiny = [RankResult(rank=r, device="cuda:0", work_seconds=s) for r, s in enumerate((0.001, 0.01))]
    assert stragglers(tiny) == []  # ten times, but 9 ms is timer noise


def test_placement_from_torchrun_slurm_and_nothing() -> None:
    torchrun = dist_env.placement({"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
                                   "MASTER_ADDR": "n001", "MASTER_PORT": "29400", "TORCHELASTIC_RUN_ID": "x",
                                   "GROUP_RANK": "1"})
    assert (torchrun.rank, torchrun.world_size, torchrun.local_rank, torchrun.launcher, torchrun.node_rank) == \
        (3, 8, 1, "torchrun", 1)
    slurm = dist_env.placement({"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1",
                                "SLURM_NODELIST": "gpu[003-006,010],login1", "SLURM_TASKS_PER_NODE": "4(x2)",
                                "SLURM_JOB_ID": "123456", "SLURM_NODEID": "1"})
    assert (slurm.rank, slurm.world_size, slurm.local_rank, slurm.local_world_size) == (5, 8, 1, 4)
    assert (slurm.master_addr, slurm.master_port, slurm.launcher) == ("gpu003", 15000 + 123456 % 20000, "slurm")
    assert dist_env.placement({}).launcher == "single"
    with pytest.raises(dist_env.PlacementError, match="does not fit"):
        dist_env.placement({"RANK": "4", "WORLD_SIZE": "4"})
    with pytest.raises(dist_env.PlacementError, match="not a non-negative whole number"):
        dist_env.placement({"RANK": "x; rm", "WORLD_SIZE": "4"})


def test_env_hints_are_the_transport_variables() -> None:
    hints = dist_env.hints({"NCCL_IB_DISABLE": "1", "GLOO_SOCKET_IFNAME": "eth0", "HOME": "/root",
                            "NCCL_DEBUG": "x" * 500})
    assert list(hints) == ["GLOO_SOCKET_IFNAME", "NCCL_DEBUG", "NCCL_IB_DISABLE"] and len(hints["NCCL_DEBUG"]) == 200


def test_bus_bandwidth_factors_and_sizes() -> None:
    assert dist_collectives.bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert dist_collectives.bus_factor("all_gather", 4) == pytest.approx(3 / 4)
    assert dist_collectives.bus_factor("reduce_scatter", 2) == pytest.approx(1 / 2)
    assert dist_collectives.bus_factor("broadcast", 8) == 1.0
    assert dist_collectives.sizes(dist_collectives.MAX_BYTES)[0] == 1024
    assert dist_collectives.sizes(dist_collectives.MAX_BYTES)[-1] == 256 * 1024 * 1024
    assert dist_collectives.sizes(5000) == [1024, 4096]


def test_group_table_takes_the_slowest_rank_and_every_ranks_verdict() -> None:
    ranks = [{"rank": 0, "collectives": [{"op": "all_reduce", "bytes": 4096, "seconds": 1e-3, "correct": True}]},
             {"rank": 1, "collectives": [{"op": "all_reduce", "bytes": 4096, "seconds": 2e-3, "correct": False,
                                          "error": "wrong result"}]}]
    row = dist_gather.table(ranks, 2)[0]
    assert row["seconds"] == 2e-3 and row["correct"] is False and row["error"] == "wrong result"
    assert row["algbw_gb_s"] == pytest.approx(4096 / 2e-3 / 1e9) and row["busbw_gb_s"] == row["algbw_gb_s"]
    assert dist_gather.table(ranks[:1], 2)[0]["correct"] is None  # a rank is missing: not judged


def test_ddp_summary_compares_the_mean_of_the_ranks_with_one_process() -> None:
    ref = {"losses": [2.0, 1.5], "single_seconds": 1.0}
    ranks = [{"losses": [2.1, 1.4], "seconds": 1.0, "batch": 8}, {"losses": [1.9, 1.6], "seconds": 2.0, "batch": 8}]
    got = dist_ddp.summarise(ranks, ref, 2)
    assert got["losses"] == pytest.approx([2.0, 1.5]) and got["max_rel_diff"] == pytest.approx(0.0, abs=1e-12)
    assert got["samples_per_s"] == pytest.approx(16 * 2 / 2.0) and got["scaling_efficiency"] == pytest.approx(0.5)
    assert "error" in dist_ddp.summarise(ranks[:1], ref, 2)


def test_planted_faults_belong_to_their_rank() -> None:
    env = {"GPUDOCTOR_DIST_TEST_FAULT": "sleep@1, exit@2:ddp,hang@1:broadcast"}
    assert faults(1, env) == {"sleep": "work", "hang": "broadcast"}
    assert faults(2, env) == {"exit": "ddp"} and faults(0, env) == {}


def test_torchrun_summary_gives_a_lost_ranks_exit_status() -> None:
    section = {"ranks": [{"rank": 0, "status": "failed"}, {"rank": 1, "status": "lost"}]}
    _exit_codes(section, ["[0]:", "  rank      : 1 (local_rank: 1)", "  exitcode  : -9 (pid: 42)"])
    assert section["ranks"][1]["error"] == "its process was killed by signal 9 without reporting a result " \
                                           "(torchrun's summary)"
    assert "error" not in section["ranks"][0]


def test_launcher_options() -> None:
    assert local_ranks(Facts(), None) == 2
    assert local_ranks(Facts(gpus=(Gpu(index=0), Gpu(index=1), Gpu(index=2))), None) == 3
    assert local_ranks(Facts(torch=TorchFacts(is_available=True, device_count=4)), None) == 4
    with pytest.raises(DistributedInputError):
        local_ranks(Facts(), 0)
    with pytest.raises(DistributedInputError):
        worker_args("mpi", None, 10.0)
    with pytest.raises(DistributedInputError):
        worker_args("auto", 10, 10.0)
    argv = torchrun_argv("/usr/bin/python3", 4, worker_args("gloo", 4096, 5.0))
    assert argv[:5] == ["/usr/bin/python3", "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=4"]
    assert argv[-6:] == ["--backend", "gloo", "--timeout", "5", "--max-bytes", "4096"]


def test_ranks_text_collapses_runs() -> None:
    assert ranks_text([6, 0, 1, 2, 3, 9, 10]) == "0-3, 6, 9-10"


def test_inconsistent_facts_are_judged_without_a_crash() -> None:
    from gpudoctor.facts.distributed import TrainingResult
    from gpudoctor.facts.verify import VerifyFacts

    dist = DistributedFacts(backend="nccl", world_size=2, nodes=1,
                            ranks=(RankResult(rank=0, status="ok", work_seconds=0.0),
                                   RankResult(rank=1, status="ok", work_seconds=-1.0, nvlink_links=4,
                                              nvlink_version=99)),
                            training=TrainingResult(model="fnn", max_rel_diff=0.5, tolerance=1e-4))
    report = run_checks(Catalogue(tuple(CHECKS)), Facts(verify=VerifyFacts(distributed=dist)))
    assert [r.check for r in report.results if r.status.value == "crash"] == []
    parity = [f for r in report.results for f in r.findings if f.code == "verify.ddp-parity"]
    assert len(parity) == 1 and "a largest relative difference of 0.5" in parity[0].detail


@pytest.mark.parametrize("args, message", [
    (["--max-bytes", "4096"], "--max-bytes only apply with --distributed"),
    (["--distributed", "--worker-only", "--nproc-per-node", "2"], "--nproc-per-node and --worker-only exclude"),
    (["--distributed", "--backend", "gloo", "--max-bytes", "10"], "--max-bytes 10: at least 1024"),
    (["--distributed", "--step-timeout", "0"], "--step-timeout 0: the time limit must be positive"),
])
def test_distributed_options_refuse_bad_input(args: List[str], message: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from gpudoctor import cli
    from gpudoctor.facts import Facts as RealFacts

    monkeypatch.setattr("gpudoctor.app.collect", lambda python, timeout, spinner=True: RealFacts())
    result = CliRunner().invoke(cli.main, ["verify", *args])
    assert result.exit_code == 2 and message in result.output


def test_single_device_checks_step_aside_for_a_distributed_run() -> None:
    from gpudoctor.checks.verify import CHECKS as SINGLE

    facts = Facts.from_json((FIXTURES / "clean_gloo.json").read_text(encoding="utf-8"))
    report = run_checks(Catalogue(tuple(SINGLE)), facts)
    assert {(r.status.value, (r.reason or "").split(":")[0]) for r in report.results} == \
        {("skip", "only verify --distributed ran")}


def test_link_bound_falls_back_to_the_nodes_gpu_facts() -> None:
    ranks = (RankResult(rank=0, device="cuda:0"), RankResult(rank=1, device="cuda:1"))
    dist = DistributedFacts(backend="nccl", nodes=1, ranks=ranks)
    assert link_bound(dist)[0] is None
    gpus = (Gpu(index=0, pcie_gen_current=5, pcie_width_current=16), Gpu(index=1, pcie_gen_current=4,
                                                                       pcie_width_current=16))
    bound, link = link_bound(dist, gpus)
    assert bound == pytest.approx(1.969 * 16) and link == "PCIe gen 4 x16 (GPU 1, the narrowest)"


def test_a_published_rank_is_no_longer_timed_by_the_watchdog() -> None:
    state = dist_gather.RankState(0, 1)
    state.enter("reference", 0.0)
    assert state.overdue() == 0.0
    assert state.finish("ok") and state.overdue() is None and not state.finish("timeout")
    assert state.record["status"] == "ok" and "stage" in state.record and state.record["stage"] is None


def test_pair_rounds_cover_every_pair_once_in_disjoint_rounds() -> None:
    from gpudoctor.trainers.dist_pairs import rounds

    for world in (2, 3, 4, 7, 8):
        found = rounds(world)
        pairs = [p for group in found for p in group]
        assert sorted(pairs) == [(a, b) for a in range(world) for b in range(a + 1, world)]
        assert all(len({r for p in group for r in p}) == 2 * len(group) for group in found)
        assert len(found) == (world - 1 if world % 2 == 0 else world)


def test_a_rank_slow_in_every_pair_is_named_not_its_pairs() -> None:
    from gpudoctor.checks.support.verify_pairs import pair_rates, slow_pairs, slow_ranks
    from gpudoctor.facts.distributed import PairResult

    def rank(r: int) -> RankResult:
        pairs = tuple(PairResult(peer=p, bytes=1_000_000, seconds=0.01 if 2 in (r, p) else 0.001)
                      for p in range(4) if p != r)
        return RankResult(rank=r, device=f"cuda:{r}", pairs=pairs)

    dist = DistributedFacts(backend="nccl", ranks=tuple(rank(r) for r in range(4)))
    rates = pair_rates(dist)
    assert rates[(0, 1)] == pytest.approx(1.0) and rates[(1, 2)] == pytest.approx(0.1)
    assert [(r.rank, round(x)) for r, x in slow_ranks(dist, rates)] == [(2, 10)]
    assert slow_pairs(dist, rates, [2]) == []
    finding = next(f for f in _report("slow_pair_gpu")[0] if f.code == "verify.slow-pair")
    assert finding.summary.startswith("Ranks 1 and 3 exchange data 5.0x slower than the median pair")


def test_distributed_runs_only_under_an_interpreter_that_can_run_the_worker(tmp_path: Path) -> None:
    from gpudoctor.errors import UserError
    from gpudoctor.probes.verify.distributed import run_distributed

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'not a python'\n", encoding="utf-8")
    fake.chmod(0o755)
    with pytest.raises(UserError, match="no such interpreter"):
        run_distributed(str(tmp_path / "missing"), 2, [], 60.0)
    with pytest.raises(UserError, match=str(fake)):
        run_distributed(str(fake), 2, [], 60.0)
