"""Slow ranks and slow links from the pairwise exchanges of ``verify --distributed``, and the thresholds shared with
verify.straggler: a rank whose every exchange is slow has a slow GPU or link; a single slow pair, a slow path
between two GPUs."""

from __future__ import annotations

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


def median_of(values: Sequence[float]) -> float:
    """``statistics.median``, imported on first use: it loads decimal and fractions, and every diagnose loads these
    checks though only verify facts reach them."""
    import statistics

    return statistics.median(values)


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
        if mine and others and median_of(others) / max(median_of(mine), 1e-12) >= ratio_for(r):
            found.append((r, median_of(others) / max(median_of(mine), 1e-12)))
    return found


def slow_pairs(d: DistributedFacts, rates: Dict[Pair, float], skip: Sequence[int]) -> List[Tuple[Pair, float]]:
    """Pairs of ranks not already named, ``ratio_for`` times slower than the median of the other such pairs."""
    by_rank = {r.rank: r for r in d.ranks}
    left = {k: v for k, v in rates.items() if k[0] not in skip and k[1] not in skip}
    found = []
    for key, rate in left.items():
        rest = [v for k, v in left.items() if k != key]
        ratio = median_of(rest) / max(rate, 1e-12) if len(rest) >= 2 else 0.0
        if key[0] in by_rank and ratio >= ratio_for(by_rank[key[0]]):
            found.append((key, ratio))
    return found


# nvidia-smi topo -m's labels, in words.
PATH_WORDS = {
    "INT": "on one board",
    "PIX": "through a single PCIe switch",
    "PXB": "through several PCIe switches",
    "PHB": "through a CPU's PCIe host bridge",
    "NODE": "between PCIe host bridges within one NUMA node",
    "SYS": "crosses the CPU interconnect between NUMA nodes",
}


def _gpu(r: RankResult) -> str:
    index = (r.device or "").partition(":")[2]
    return f"GPU {index}" if index.isdigit() else f"rank {r.rank}'s GPU"


def pair_path(a: RankResult, b: RankResult) -> str:
    """How the two ranks' GPUs are connected, as nvidia-smi topo -m names it, or why that is not known."""
    if not ((a.device or "").startswith("cuda") and (b.device or "").startswith("cuda")):
        return "CPU ranks: no GPU topology applies"
    if (a.host, a.node_rank) != (b.host, b.node_rank):
        return f"on different nodes ({a.host or '?'} and {b.host or '?'}): the network joins them"
    link = next((x for x in a.topology if b.gpu_uuid and x.peer_uuid == b.gpu_uuid), None) or \
        next((x for x in b.topology if a.gpu_uuid and x.peer_uuid == a.gpu_uuid), None)
    if link is None:
        return "the GPU topology was not read (NVML was not available to the ranks)"
    words = f"{link.nvlinks} NVLinks: it should be the fastest pair" if link.nvlinks else \
        PATH_WORDS.get(link.level, "an unknown path")
    return f"{_gpu(a)} <-> {_gpu(b)}: {link.level} ({words})"


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
            f"({rates[(a, b)]:.3g} GB/s per direction); {pair_path(by_rank[a], by_rank[b])}",
            detail=f"observed: {ratio:.1f}x; required: under {ratio_for(by_rank[a]):g}x. Only this pair is slow: the "
            "path between these two GPUs or hosts (a PCIe switch, a CPU socket link, a cable) is at fault.",
            fix=_fix(facts, (by_rank[a].device or "").startswith("cuda")),
            evidence=("verify.distributed.ranks",),
        )
