"""Judges ``gpudoctor verify --distributed``: every rank ran, ranks agree on what they run, none lags, DDP is exact.

Its CHECKS list also holds verify.collective (verify_collective), so the built-in catalogue adds one list.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from gpudoctor.checks.verify_collective import CHECKS as COLLECTIVE_CHECKS
from gpudoctor.checks.support.verify_pairs import median_of, pair_findings, ratio_for
from gpudoctor.checks.verify_collective import busy_command, dist_facts, env_fix, rank_name, ranks_text, with_env
from gpudoctor.facts.distributed import DistributedFacts, RankResult, TrainingResult
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip

STRAGGLER_MIN_EXCESS_S = 0.02  # below this the difference is timer noise, whatever the ratio
ROOTS = ("lost", "timeout")  # ranks that died or hung; "failed" and "stopped" ranks usually waited on them
_ENDED = {"lost": "died", "timeout": "hung", "failed": "failed", "stopped": "was stopped"}
# Versions that must agree across ranks (NCCL and torch mismatches hang or corrupt collectives), then the rest.
_VERSIONS: Tuple[Tuple[str, str, Severity], ...] = (
    ("torch_version", "torch", Severity.ERROR),
    ("nccl_version", "NCCL", Severity.ERROR),
    ("cuda_build", "torch's CUDA", Severity.ERROR),
    ("driver_version", "the NVIDIA driver", Severity.WARNING),
    ("python_version", "Python", Severity.WARNING),
)
_PER_RANK_ENV = ("CUDA_VISIBLE_DEVICES",)  # may differ by design (one GPU per rank)


@check("verify.rank-failed", "Every rank of the distributed run ran to its end")
def rank_failed(facts: Facts) -> Iterator[Finding]:
    d = dist_facts(facts)
    if d.error and not d.ranks:
        yield Finding(
            "verify.distributed-failed",
            Severity.ERROR,
            f"The distributed run did not get going: {d.error}",
            detail="observed: no rank reported a result; required: torchrun starts every rank and they meet at "
            f"{d.master or 'the rendezvous address'}.",
            fix=env_fix(facts, d, None),
            evidence=("verify.distributed.error",),
        )
        return
    for r in d.ranks:
        if r.smoke_ok is False:
            yield Finding(
                "verify.rank-smoke-failed",
                Severity.ERROR,
                f"Rank {rank_name(r)} failed the smoke test: {r.smoke_error or 'no error text'}",
                detail="observed: allocating, running a kernel and copying back did not give the CPU's result on "
                "that rank's device; required: it does on every rank.",
                fix=Fix("Run gpudoctor verify on that host alone; it names the cause.", ("gpudoctor verify",)),
                evidence=("verify.distributed.ranks",),
            )
    bad = [r for r in d.ranks if r.status != "ok"]
    if not bad and not any(r.smoke_ok is False for r in d.ranks):
        nodes = f" on {d.nodes} node{'s' if d.nodes != 1 else ''}" if d.nodes else ""
        yield Finding("verify.ranks-ok", Severity.INFO, f"All {len(d.ranks)} ranks{nodes} ran every step",
                      evidence=("verify.distributed.ranks",), short=f"{len(d.ranks)} ranks, {d.backend}")
        return
    roots = [r for r in bad if r.status in ROOTS] or [r for r in bad if r.status == "failed"] or bad
    for r in roots:
        waited = [o for o in bad if o is not r and o not in roots]
        others = ""
        if waited:
            first = waited[0]
            others = f" Ranks {ranks_text(o.rank for o in waited)} stopped with it (rank {first.rank}: " \
                     f"{first.error or first.status})."
        yield Finding(
            "verify.rank-failed",
            Severity.ERROR,
            f"Rank {rank_name(r)} {_ENDED.get(r.status, r.status)}" + (f" during {r.stage}" if r.stage else "")
            + (f": {r.error}" if r.error else ""),
            detail=f"observed: status {r.status}" + (f" in step {r.stage}" if r.stage else "")
            + f"; required: every rank finishes each step within {d.timeout_s or 0:g} s.{others}",
            fix=env_fix(facts, d, r),
            evidence=("verify.distributed.ranks",),
        )


def _spread(d: DistributedFacts, values: Dict[int, str]) -> Optional[str]:
    """'2.21.5 on ranks 0-5 (n001), 2.18.1 on ranks 6-7 (n002)', majority first; None when all agree."""
    counts = Counter(values.values())
    if len(counts) < 2:
        return None
    hosts = {r.rank: r.host for r in d.ranks if r.host}
    parts = []
    for value, _ in counts.most_common():
        who = [rank for rank, v in values.items() if v == value]
        names = sorted({hosts[w] for w in who if w in hosts})
        parts.append(f"{value} on ranks {ranks_text(who)}" + (f" ({', '.join(names[:4])})" if names else ""))
    return ", ".join(parts)


@check("verify.rank-drift", "Every rank runs the same torch, CUDA, NCCL, driver and NCCL/gloo settings")
def rank_drift(facts: Facts) -> Iterator[Finding]:
    d = dist_facts(facts)
    seen = [r for r in d.ranks if r.torch_version]
    if len(seen) < 2:
        raise skip("fewer than two ranks reported what they run on")
    found = False
    for field, label, severity in _VERSIONS:
        values = {r.rank: str(getattr(r, field)) for r in seen if getattr(r, field)}
        spread = _spread(d, values)
        if spread:
            found = True
            yield Finding(
                "verify.rank-drift",
                severity,
                f"The ranks run different versions of {label}: {spread}",
                detail=f"observed: {spread}; required: one {label} version on every rank. Mismatched NCCL or "
                "torch versions across nodes make collectives hang or fail at the first call.",
                fix=Fix(f"Install the same {label} on every node (one container image or one environment for the "
                        "whole job), then run verify --distributed again."),
                evidence=("verify.distributed.ranks",),
            )
    names = sorted({k for r in seen for k, _ in r.env if k not in _PER_RANK_ENV})
    for name in names:
        values = {r.rank: dict(r.env).get(name, "(unset)") for r in seen}
        spread = _spread(d, values)
        if spread:
            found = True
            yield Finding(
                "verify.rank-drift",
                Severity.WARNING,
                f"{name} differs across ranks: {spread}",
                detail=f"observed: {spread}; required: the same NCCL/gloo settings on every rank, or NCCL picks "
                "different transports on different nodes (a common cause of hangs and slow collectives).",
                fix=Fix(f"Set {name} once for the whole job (in the job script or the container), not per node."),
                evidence=("verify.distributed.ranks",),
            )
    if not found:
        yield Finding("verify.rank-drift-ok", Severity.INFO,
                      f"All {len(seen)} ranks run torch {seen[0].torch_version} with the same settings",
                      evidence=("verify.distributed.ranks",))


def stragglers(ranks: Sequence[RankResult]) -> List[Tuple[RankResult, float, float]]:
    """(rank, its ratio to the median of the other ranks, that median) for each straggler."""
    timed = [r for r in ranks if r.work_seconds is not None and r.work_seconds > 0]
    found = []
    for r in timed:
        others = [float(o.work_seconds or 0.0) for o in timed if o is not r]
        if not others:
            continue
        median = median_of(others)
        seconds = float(r.work_seconds or 0.0)
        if median > 0 and seconds / median >= ratio_for(r) and seconds - median >= STRAGGLER_MIN_EXCESS_S:
            found.append((r, seconds / median, median))
    return found


@check("verify.straggler", "No rank or link is much slower than the others")
def straggler(facts: Facts) -> Iterator[Finding]:
    d = dist_facts(facts)
    timed = [r for r in d.ranks if r.work_seconds]
    if len(timed) < 2:
        raise skip("fewer than two ranks timed the fixed workload")
    links = list(pair_findings(facts, d))
    yield from links
    slow = stragglers(d.ranks)
    for r, ratio, median in slow:
        gpu = r.device is not None and r.device.startswith("cuda")
        commands = ("nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE",
                    "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv") if gpu else \
            (busy_command(facts),)
        yield Finding(
            "verify.straggler",
            Severity.WARNING,
            f"Rank {rank_name(r)} is a straggler: its fixed workload took {r.work_seconds:.3g} s, {ratio:.1f}x the "
            f"median of the other ranks ({median:.3g} s)",
            detail=f"observed: {ratio:.1f}x the median; required: under {ratio_for(r):g}x. Every collective "
            "waits for the slowest rank, so the whole job runs at its pace.",
            fix=Fix(("On its host, see whether that GPU is held at low clocks (power, heat) or shared with other "
                     "processes.") if gpu else "On its host, see what else competes for the CPU.", commands),
            evidence=("verify.distributed.ranks",),
        )
    if not slow and not links:
        worst = max(float(r.work_seconds or 0.0) for r in timed) / max(median_of(
            [float(r.work_seconds or 0.0) for r in timed]), 1e-12)
        yield Finding("verify.straggler-ok", Severity.INFO,
                      f"No straggler: the slowest of {len(timed)} ranks took {worst:.2f}x the median "
                      f"(a straggler takes {ratio_for(timed[0]):g}x)", evidence=("verify.distributed.ranks",))


@check("verify.ddp-parity", "DDP over all ranks follows one process's loss curve")
def ddp_parity(facts: Facts) -> Iterator[Finding]:
    d = dist_facts(facts)
    runs = [t for t in (d.training, d.training_cnn) if t is not None]
    if not runs:
        raise skip("no DDP training result: the ranks stopped before it (see verify.rank-failed)")
    for t in runs:
        yield from _parity(facts, d, t)


def _parity(facts: Facts, d: DistributedFacts, t: TrainingResult) -> Iterator[Finding]:
    """One model's DDP run against one process's."""
    model = (t.model or "model").upper()
    evidence = ("verify.distributed.training_cnn" if t.model == "cnn" else "verify.distributed.training",)
    if t.error or t.max_rel_diff is None or t.tolerance is None:
        yield Finding("verify.ddp-failed", Severity.ERROR,
                      f"The DDP training of the {model} did not finish: {t.error or 'no result'}",
                      detail="observed: no loss curve from every rank; required: every rank trains each step.",
                      fix=env_fix(facts, d, None), evidence=evidence)
        return
    speed = ""
    if t.samples_per_s and t.single_samples_per_s and t.scaling_efficiency is not None:
        speed = (f" {t.samples_per_s:,.0f} samples/s over {d.world_size} ranks is {t.scaling_efficiency:.0%} of "
                 f"{d.world_size} x one rank alone ({t.single_samples_per_s:,.0f} samples/s).")
        if d.backend == "gloo":
            speed += " gloo ranks share this machine's CPU cores, so this does not measure links."
    if t.max_rel_diff > t.tolerance:
        diffs = [abs(a - b) / max(abs(b), 1e-12) for a, b in zip(t.losses, t.reference_losses)]
        step = next((i for i, v in enumerate(diffs) if v > t.tolerance), None)
        where = f", first at step {step + 1}" if step is not None else ""
        seen = f"mean loss {t.losses[step]:.6g} against {t.reference_losses[step]:.6g} at step {step + 1}" \
            if step is not None else f"a largest relative difference of {t.max_rel_diff:.3g}"
        yield Finding(
            "verify.ddp-parity",
            Severity.ERROR,
            f"DDP of the {model} over {d.world_size} ranks does not follow one process over the same batch: the loss "
            "differs by "
            f"{t.max_rel_diff:.3g} (tolerance {t.tolerance:g}){where}",
            detail=f"observed: {seen}; required: within {t.tolerance:g}, what summation order alone explains. "
            "Gradients were lost, doubled or corrupted on the way between ranks." + speed,
            fix=Fix("Look for wrong collectives (verify.collective) and rank drift (verify.rank-drift); rerun with "
                    "NCCL_DEBUG=INFO to see the transports NCCL chose.",
                    (with_env(facts, [("NCCL_DEBUG", "INFO")]),)),
            evidence=evidence,
        )
        return
    yield Finding(
        "verify.ddp-parity-ok",
        Severity.INFO,
        f"DDP of the {model} over {d.world_size} ranks follows one process over the same global batch of "
        f"{t.global_batch}: within {t.max_rel_diff:.2g} over {t.steps} steps (tolerance {t.tolerance:g}).{speed}",
        evidence=evidence,
    )


CHECKS: List[Check] = [rank_failed, rank_drift, *COLLECTIVE_CHECKS, straggler, ddp_parity]
