"""The distributed part of the verify facts: every rank's results under torchrun or srun, gathered on rank 0."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class RankCollective:
    """One collective as one rank timed it."""

    op: str = ""  # all_reduce | all_gather | reduce_scatter | broadcast
    bytes: int = 0  # the whole buffer, as nccl-tests counts it
    seconds: Optional[float] = None  # mean time per call on this rank
    correct: Optional[bool] = None  # every element held the exact expected value
    supported: bool = True  # False: the backend has no such collective (not a failure)
    error: Optional[str] = None


@dataclass(frozen=True)
class CollectiveResult:
    """One collective of the whole group: the slowest rank's time, bandwidths by nccl-tests' formulas."""

    op: str = ""
    bytes: int = 0
    seconds: Optional[float] = None
    algbw_gb_s: Optional[float] = None  # bytes / seconds
    busbw_gb_s: Optional[float] = None  # algbw x 2(n-1)/n (all_reduce), x (n-1)/n (all_gather, reduce_scatter), x 1
    correct: Optional[bool] = None  # None: not every rank finished it
    supported: bool = True
    error: Optional[str] = None


@dataclass(frozen=True)
class PairResult:
    """One rank's exchange with one peer: both send the payload at once; the best of a few swaps."""

    peer: int = 0
    bytes: int = 0
    seconds: Optional[float] = None
    correct: Optional[bool] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class NetPort:
    """One InfiniBand/RoCE port of a node, from /sys/class/infiniband/<device>/ports/<port>."""

    device: str = ""  # mlx5_0
    port: int = 0
    rate: Optional[str] = None  # as sysfs reads: "100 Gb/sec (4X EDR)"
    rate_gbit_s: Optional[float] = None
    state: Optional[str] = None  # "4: ACTIVE"
    link_layer: Optional[str] = None  # InfiniBand | Ethernet (RoCE)


@dataclass(frozen=True)
class GpuLink:
    """How a rank's GPU reaches another GPU of its node, as ``nvidia-smi topo -m`` names it."""

    peer_uuid: str = ""
    level: str = ""  # NV<n> (NVLinks) | PIX | PXB | PHB | NODE | SYS | INT (one board) | ?
    nvlinks: int = 0


@dataclass(frozen=True)
class RankResult:
    """One rank: where it ran, what it runs on, and what it measured (or how it ended)."""

    rank: int = 0
    local_rank: Optional[int] = None
    node_rank: Optional[int] = None
    host: Optional[str] = None
    pid: Optional[int] = None
    device: Optional[str] = None  # cuda:N (as the rank numbers it) | cpu
    gpu_uuid: Optional[str] = None
    gpu_name: Optional[str] = None
    status: str = ""  # ok | failed | timeout | stopped | lost
    error: Optional[str] = None
    stage: Optional[str] = None  # the step it was in when it did not end well
    python_version: Optional[str] = None
    torch_version: Optional[str] = None
    cuda_build: Optional[str] = None
    nccl_version: Optional[str] = None
    driver_version: Optional[str] = None
    env: Tuple[Tuple[str, str], ...] = ()  # NCCL_*, GLOO_*, TORCH_NCCL_* ... as this rank saw them
    smoke_ok: Optional[bool] = None
    smoke_error: Optional[str] = None
    work_seconds: Optional[float] = None  # a fixed local workload, the same on every rank (stragglers)
    pcie_gen: Optional[int] = None  # the link NVML reports for this rank's GPU
    pcie_width: Optional[int] = None
    nvlink_links: Optional[int] = None  # active NVLinks
    nvlink_version: Optional[int] = None
    ib_ports: Tuple[NetPort, ...] = ()  # the node's InfiniBand/RoCE ports (read by local rank 0)
    topology: Tuple[GpuLink, ...] = ()  # this GPU's path to each other GPU of the node (NVML)
    collectives: Tuple[RankCollective, ...] = ()
    pairs: Tuple[PairResult, ...] = ()  # pairwise exchanges with every other rank
    ddp_seconds: Optional[float] = None


@dataclass(frozen=True)
class TrainingResult:
    """DDP of a reference model over all ranks against one process over the same global batch."""

    model: str = ""  # fnn | cnn
    steps: Optional[int] = None
    batch_per_rank: Optional[int] = None
    global_batch: Optional[int] = None
    losses: Tuple[float, ...] = ()  # the mean of the ranks' losses per step
    reference_losses: Tuple[float, ...] = ()  # one process over the global batch
    max_rel_diff: Optional[float] = None
    tolerance: Optional[float] = None
    samples_per_s: Optional[float] = None  # all ranks together
    single_samples_per_s: Optional[float] = None  # one process over one rank's batch
    scaling_efficiency: Optional[float] = None  # samples_per_s / (ranks x single_samples_per_s)
    error: Optional[str] = None


@dataclass(frozen=True)
class DistributedFacts:
    """``gpudoctor verify --distributed``: the group, every rank's row, the collectives and the DDP training."""

    backend: Optional[str] = None  # nccl | gloo
    world_size: int = 0
    nodes: Optional[int] = None
    launcher: Optional[str] = None  # torchrun | slurm | env | single
    master: Optional[str] = None  # MASTER_ADDR:MASTER_PORT
    timeout_s: Optional[float] = None  # per step and per collective
    max_bytes: Optional[int] = None
    ranks: Tuple[RankResult, ...] = ()
    collectives: Tuple[CollectiveResult, ...] = ()
    training: Optional[TrainingResult] = None  # the FNN
    training_cnn: Optional[TrainingResult] = None  # the CNN
    error: Optional[str] = None  # the run itself failed (launcher, rendezvous)
