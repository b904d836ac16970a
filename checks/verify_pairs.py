"""Slow ranks and slow links from the pairwise exchanges of ``verify --distributed``, and the thresholds shared with
verify.straggler: a rank whose every exchange is slow has a slow GPU or link; a single slow pair, a slow path
between two GPUs."""

from __future__ import annotations

import statistics
from typing import Dict, Iterator, List, Sequence, Tuple

from gpudoctor.checks.verify_collective import busy_command, rank_name
from gpudoctor.facts.distributed import DistributedFacts, RankResult
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity

# A rank (or pair) this many times slower than the median of the others is named; a healthy group stays within a
# few tens of percent, while a throttled, shared or failing GPU or link is off by whole multiples.
STRAGGLER_RATIO = 2.0
# CPU ranks (gloo) on one host share its cores with each other and with everything else: twice the median is
# ordinary contention there, so only four times is named.
CPU_STRAGGLER_RATIO = 4.0
Pair = Tuple[int, int]


def ratio_for(r: RankResult) -> float:
    return STRAGGLER_RATIO if r.device and r.device.startswith("cuda") else CPU_STRAGGLER_RATIO


def pair_rates(d: DistributedFacts) -> Dict[Pair, float]:
    """GB/s per direction of each pair that both ranks timed: the payload over the slower side's time."""
    seconds: Dict[Pair, List[float]] = {}
    sizes: Dict[Pair, int] = {}
    for r in d.ranks:
        for p in r.pairs:
            if p.seconds and p.seconds > 0 and p.peer != r.rank:
                key = (min(r.rank, p.peer), max(r.rank, p.peer))
                seconds.setdefault(key, []).append(p.seconds)
                sizes[key] = p.bytes
    return {k: sizes[k] / max(v) / 1e9 for k, v in seconds.items() if len(v) == 2 and sizes[k] > 0}


def slow_ranks(d: DistributedFacts, rates: Dict[Pair, float]) -> List[Tuple[RankResult, float]]:
    """Ranks whose exchanges are, at their median, ``ratio_for`` times slower than the pairs without them."""
    found = []
    for r in d.ranks:
        mine = [v for k, v in rates.items() if r.rank in k]
        others = [v for k, v in rates.items() if r.rank not in k]
        if mine and others and statistics.median(others) / max(statistics.median(mine), 1e-12) >= ratio_for(r):
            found.append((r, statistics.median(others) / max(statistics.median(mine), 1e-12)))
    return found


def slow_pairs(d: DistributedFacts, rates: Dict[Pair, float], skip: Sequence[int]) -> List[Tuple[Pair, float]]:
    """Pairs of ranks not already named, ``ratio_for`` times slower than the median of the other such pairs."""
    by_rank = {r.rank: r for r in d.ranks}
    left = {k: v for k, v in rates.items() if k[0] not in skip and k[1] not in skip}
    found = []
    for key, rate in left.items():
        rest = [v for k, v in left.items() if k != key]
        ratio = statistics.median(rest) / max(rate, 1e-12) if len(rest) >= 2 else 0.0
        if key[0] in by_rank and ratio >= ratio_for(by_rank[key[0]]):
            found.append((key, ratio))
    return found


def _fix(facts: Facts, gpu: bool) -> Fix:
    if gpu:
        return Fix("See how the GPUs are connected and whether NCCL uses a slower path for these; run nccl-tests' "
                   "sendrecv_perf between the two GPUs to confirm.", ("nvidia-smi topo -m",
                                                                     "nvidia-smi -q -d PERFORMANCE,CLOCK"))
    return Fix("On that host, see what else competes for the CPU and the network.", (busy_command(facts),))


def pair_findings(facts: Facts, d: DistributedFacts) -> Iterator[Finding]:
    """Findings for slow ranks and slow pairs in the pairwise exchanges (none with fewer than three pairs)."""
    rates = pair_rates(d)
    if len(rates) < 3:
        return
    for r, ratio in slow_ranks(d, rates):
        gpu = bool(r.device and r.device.startswith("cuda"))
        yield Finding(
            "verify.slow-rank-link",
            Severity.WARNING,
            f"Rank {rank_name(r)} is slow in every exchange: its pairs move data {ratio:.1f}x slower than the pairs "
            "without it",
            detail=f"observed: {ratio:.1f}x; required: under {ratio_for(r):g}x. Every pair it is part of is slow and "
            "the others are not, so its GPU, its link or its host is at fault, not the fabric as a whole.",
            fix=_fix(facts, gpu),
            evidence=("verify.distributed.ranks",),
        )
    named = [r.rank for r, _ in slow_ranks(d, rates)]
    by_rank = {r.rank: r for r in d.ranks}
    for (a, b), ratio in slow_pairs(d, rates, named):
        yield Finding(
            "verify.slow-pair",
            Severity.WARNING,
            f"Ranks {a} and {b} exchange data {ratio:.1f}x slower than the median pair "
            f"({rates[(a, b)]:.3g} GB/s per direction)",
            detail=f"observed: {ratio:.1f}x; required: under {ratio_for(by_rank[a]):g}x. Only this pair is slow: the "
            "path between these two GPUs or hosts (a PCIe switch, a CPU socket link, a cable) is at fault.",
            fix=_fix(facts, (by_rank[a].device or "").startswith("cuda")),
            evidence=("verify.distributed.ranks",),
        )
