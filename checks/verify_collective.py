"""verify.collective: every collective returned exact values, and how its bandwidth compares with the link that
bounds it (NVLink or PCIe as NVML reports them for each rank's GPU; across nodes the slowest active InfiniBand/RoCE
port that /sys/class/infiniband shows); plus the helpers the distributed checks share.
"""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from gpudoctor.checks.support.verify_common import XID
from gpudoctor.checks.support.words import shell_of
from gpudoctor.facts.distributed import CollectiveResult, DistributedFacts, NetPort, RankResult
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need, skip
from gpudoctor.shell import Shell, join, literal

# GB/s per direction: one NVLink of each NVML version, and one PCIe lane of each generation (after encoding).
NVLINK_GB_S = {1: 20.0, 2: 25.0, 3: 25.0, 4: 25.0, 5: 50.0}
PCIE_LANE_GB_S = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
JUDGED_BYTES = 64 * 1024 * 1024  # smaller payloads measure latency, not the link
SLOW_SHARE = 0.25  # busbw under this share of the bound at a large payload is a link problem, not overhead
_HINTS_NCCL = (
    "NCCL_DEBUG=INFO shows the transports and the peer that failed; NCCL_P2P_DISABLE=1 tests whether direct GPU "
    "peer-to-peer transfers are at fault; NCCL_IB_DISABLE=1 falls back to sockets where InfiniBand is broken; "
    "NCCL_SOCKET_IFNAME=<interface> pins the network interface NCCL uses between nodes."
)
_HINTS_GLOO = (
    "TORCH_DISTRIBUTED_DEBUG=DETAIL and TORCH_CPP_LOG_LEVEL=INFO show what gloo did; GLOO_SOCKET_IFNAME=<interface> "
    "pins the network interface between nodes."
)


def dist_facts(facts: Facts) -> DistributedFacts:
    """The distributed part of the verify facts, or SKIP."""
    v = need(facts.verify, "verify", "gpudoctor verify was not run (only it trains models)")
    return need(v.distributed, "verify.distributed", "gpudoctor verify --distributed was not run")


def ranks_text(ranks: Iterable[int]) -> str:
    """'0-3, 6': sorted rank numbers with runs collapsed."""
    items = sorted(set(ranks))
    parts: List[str] = []
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        parts.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ", ".join(parts)


def rank_name(r: RankResult) -> str:
    """'1 (host n002, local rank 1, GPU-3f2a...)', with what is known."""
    parts = [f"host {r.host}" if r.host else "", f"local rank {r.local_rank}" if r.local_rank is not None else "",
             r.gpu_uuid or r.device or ""]
    known = ", ".join(p for p in parts if p)
    return f"{r.rank} ({known})" if known else str(r.rank)


RERUN = ("gpudoctor", "verify", "--distributed")


def with_env(facts: Facts, env: Sequence[Tuple[str, str]], argv: Sequence[str] = RERUN) -> str:
    """A command run with some variables set, in the user's shell: ``A=1 cmd`` (POSIX) or ``$env:A = '1'; cmd``
    (PowerShell, where the variables stay set in that session). Names and values are constants of the checks."""
    shell = shell_of(facts)
    if shell is Shell.POWERSHELL:
        return "; ".join([*(f"$env:{k} = {literal(v, shell)}" for k, v in env), join(argv, shell)])
    return " ".join([*(f"{k}={literal(v, shell)}" for k, v in env), join(argv, shell)])


def busy_command(facts: Facts) -> str:
    """What else competes for the CPU on a host, in its shell."""
    if shell_of(facts) is Shell.POWERSHELL:
        return "Get-Process | Sort-Object CPU -Descending | Select-Object -First 20"
    return "top -b -n 1 | head -20"


def env_fix(facts: Facts, d: DistributedFacts, r: Optional[RankResult]) -> Fix:
    """What to rerun with, the variables that matter for this backend, and what the failing rank had set."""
    nccl = d.backend != "gloo"
    text = _HINTS_NCCL if nccl else _HINTS_GLOO
    if r is not None and r.env:
        shown = ", ".join(f"{k}={v}" for k, v in r.env if not k.startswith("TORCH_NCCL_ASYNC"))
        if shown:
            text += f" That rank ran with {shown}."
    commands: Tuple[str, ...] = (with_env(facts, [("NCCL_DEBUG", "INFO")]),) if nccl else \
        (with_env(facts, [("TORCH_DISTRIBUTED_DEBUG", "DETAIL")]),)
    if nccl and r is not None and r.device and r.device.startswith("cuda"):
        commands += (XID,)
    return Fix(text, commands)


def link_bound(d: DistributedFacts, gpus: Tuple[Gpu, ...] = ()) -> Tuple[Optional[float], str]:
    """The bus bandwidth no collective can exceed (GB/s) and the link it comes from; None with the reason when
    no link bounds it (gloo on CPUs, nodes talking over a network gpudoctor does not measure, NVML unread).
    ``gpus``: this node's GPUs from the facts, for PCIe links the ranks could not read themselves."""
    if d.backend == "gloo":
        return None, "on gloo (CPU) no GPU link bounds these numbers: they measure host memory and local sockets"
    if (d.nodes or 1) > 1:
        return network_bound(d)
    nvlink = [r.nvlink_links * NVLINK_GB_S.get(r.nvlink_version or 0, 25.0) for r in d.ranks if r.nvlink_links]
    if nvlink and len(nvlink) == len(d.ranks):
        worst = min(d.ranks, key=lambda r: (r.nvlink_links or 0) * NVLINK_GB_S.get(r.nvlink_version or 0, 25.0))
        return min(nvlink), f"NVLink ({worst.nvlink_links} links of version {worst.nvlink_version or '?'} per GPU)"
    pcie = [(PCIE_LANE_GB_S[r.pcie_gen] * r.pcie_width, r) for r in d.ranks
            if r.pcie_gen in PCIE_LANE_GB_S and r.pcie_width]
    if pcie and len(pcie) == len(d.ranks):
        bound, r = min(pcie, key=lambda item: item[0])
        return bound, f"PCIe gen {r.pcie_gen} x{r.pcie_width} (rank {r.rank}'s GPU, the narrowest)"
    known = [(PCIE_LANE_GB_S[g.pcie_gen_current] * g.pcie_width_current, g) for g in gpus
             if g.pcie_gen_current in PCIE_LANE_GB_S and g.pcie_width_current]
    if known and len(known) >= len(d.ranks):
        bound, g = min(known, key=lambda item: item[0])
        return bound, f"PCIe gen {g.pcie_gen_current} x{g.pcie_width_current} (GPU {g.index}, the narrowest)"
    return None, "NVML did not report the GPUs' links, so no link bound is known"


def _node(r: RankResult) -> Tuple[Optional[str], Optional[int]]:
    return r.host, r.node_rank


def network_bound(d: DistributedFacts) -> Tuple[Optional[float], str]:
    """Across nodes: the slowest active InfiniBand/RoCE port of the slowest node (GB/s), or None and why."""
    nodes = {_node(r): r for r in sorted(d.ranks, key=lambda r: r.rank)}
    active: Dict[Tuple[Optional[str], Optional[int]], List[NetPort]] = {}
    for r in d.ranks:
        ports = [p for p in r.ib_ports if p.rate_gbit_s and "ACTIVE" in (p.state or "").upper()]
        if ports:
            active.setdefault(_node(r), []).extend(ports)
    if not active:
        return None, ("across nodes the network bounds them, and no node has an active InfiniBand/RoCE port: the "
                      "inter-node link is unknown (TCP sockets)")
    missing = [key for key in nodes if key not in active]
    if missing:
        return None, (f"across nodes the network bounds them, and host {missing[0][0] or '?'} has no active "
                      "InfiniBand/RoCE port: the inter-node link is unknown there (TCP sockets)")
    # NCCL spreads the traffic over every active port of a node (one rail per GPU), each at the slowest one's pace
    per_node = [(len(ports) * (worst.rate_gbit_s or 0.0) / 8, worst, len(ports), key)
                for key, ports in active.items() for worst in [min(ports, key=lambda p: p.rate_gbit_s or 0.0)]]
    bound, port, count, key = min(per_node, key=lambda item: item[0])
    kind = "RoCE" if (port.link_layer or "").lower() == "ethernet" else "InfiniBand"
    rate = port.rate or f"{port.rate_gbit_s:g} Gb/sec"
    ports_text = f"{count} active ports of host {key[0] or '?'}, the slowest" if count > 1 else f"host {key[0] or '?'}'s"
    return bound, f"{kind} ({ports_text} {port.device} port {port.port} at {rate})"


def _peak(rows: List[CollectiveResult], op: str) -> Optional[CollectiveResult]:
    done = [c for c in rows if c.op == op and c.busbw_gb_s is not None and c.correct]
    return max(done, key=lambda c: c.bytes) if done else None


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


@check("verify.collective", "Collectives return exact values at every size, at a speed the links explain")
def collective(facts: Facts) -> Iterator[Finding]:
    d = dist_facts(facts)
    rows = list(d.collectives)
    if not rows:
        raise skip("no collective ran: the ranks stopped first (see verify.rank-failed)")
    if all(c.correct is None and c.supported for c in rows):
        raise skip("no collective completed on every rank (see verify.rank-failed)")
    for c in [c for c in rows if c.correct is False]:
        yield Finding(
            "verify.collective-wrong",
            Severity.ERROR,
            f"{c.op} of {_size(c.bytes)} over {d.world_size} ranks returned wrong values: {c.error or 'no detail'}",
            detail="observed: values differ from the exact sums every rank should receive; required: exact values "
            "(small whole numbers, exact in fp32). Data was corrupted on a link or in a GPU's memory.",
            fix=env_fix(facts, d, None),
            evidence=("verify.distributed.collectives",),
        )
    for c in [c for c in rows if not c.supported][:1]:
        yield Finding("verify.collective-unsupported", Severity.INFO,
                      f"{d.backend} has no {c.op} here: reported, not judged ({c.error or 'unsupported'})",
                      evidence=("verify.distributed.collectives",))
    bound, link = link_bound(d, facts.gpus)
    peaks = [p for p in (_peak(rows, op) for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast")) if p]
    shown = "; ".join(f"{p.op} {p.busbw_gb_s:.3g} GB/s at {_size(p.bytes)}" for p in peaks)
    top = _peak(rows, "all_reduce")
    if bound is not None and top is not None and top.busbw_gb_s is not None:
        share = top.busbw_gb_s / bound
        where = f"all_reduce busbw {top.busbw_gb_s:.3g} GB/s at {_size(top.bytes)} is {share:.0%} of {link}'s " \
                f"{bound:.3g} GB/s"
        if top.bytes >= JUDGED_BYTES and share < SLOW_SHARE:
            yield Finding(
                "verify.collective-slow",
                Severity.WARNING,
                f"Collectives run far below the link that bounds them: {where}",
                detail=f"observed: {share:.0%} of the bound; required: at least {SLOW_SHARE:.0%} at payloads of "
                f"{_size(JUDGED_BYTES)} and more (nccl-tests reach 70-90%). " + (
                    "NCCL may have fallen back to TCP sockets instead of InfiniBand/RoCE (NCCL_IB_DISABLE set, "
                    "NCCL_SOCKET_IFNAME or NCCL_IB_HCA naming the wrong interface) or share the port with other "
                    "traffic." if (d.nodes or 1) > 1 else "NCCL may have fallen back to a slower path (P2P "
                    "disabled, traffic through host memory or a CPU socket link)."),
                fix=Fix("See the transports NCCL picks, and " + ("the state and rate of each node's InfiniBand/RoCE "
                        "ports." if (d.nodes or 1) > 1 else "the GPU topology."),
                        (with_env(facts, [("NCCL_DEBUG", "INFO"), ("NCCL_DEBUG_SUBSYS", "INIT,GRAPH")]),
                         "ibstat" if (d.nodes or 1) > 1 else "nvidia-smi topo -m")),
                evidence=("verify.distributed.collectives", "verify.distributed.ranks"),
            )
            return
        shown += f". {where}"
    else:
        shown += f". {link[0].upper()}{link[1:]}"
    judged = [c for c in rows if c.correct]
    if not any(c.correct is False for c in rows) and judged:
        yield Finding(
            "verify.collective-ok",
            Severity.INFO,
            f"{len(judged)} collectives over {d.world_size} ranks ({d.backend}) returned exact values, "
            f"{_size(min(c.bytes for c in judged))} to {_size(max(c.bytes for c in judged))}. Bus bandwidth: {shown}",
            evidence=("verify.distributed.collectives",),
        )


CHECKS: List[Check] = [collective]
