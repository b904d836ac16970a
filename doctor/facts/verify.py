"""The verify section of the facts: what training the reference models on each device proved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.facts.codec import Vocabulary
from gpudoctor.facts.distributed import DistributedFacts


class FailureKind(Vocabulary):
    """Why a verify worker did not run to its end: the value of ``WorkerFailure.kind``."""

    # what the launcher saw
    CRASHED = "crashed"  # killed by a signal (or a Windows crash code)
    TIMEOUT = "timeout"  # stopped answering within its time limit
    GARBAGE = "garbage"  # printed what is not the protocol, or too much of it
    EXITED = "exited"  # exited before its last record
    START = "start"  # the interpreter could not be started
    # the kind of the worker's own FATAL record (trainers/protocol.py)
    IMPORT = "import"  # torch did not import
    DEVICE = "device"  # the device asked for does not exist
    DATA = "data"  # the dataset could not be read
    INTERNAL = "internal"  # anything else the worker raised


@dataclass(frozen=True)
class ModelRun:
    """One reference model trained on one device (on the CPU possibly stopped early by its time budget)."""

    model: str = ""  # fnn | cnn | lenet
    device: str = ""  # cpu | cuda:0
    epochs: int = 0  # epochs completed
    samples: int = 0  # training images processed
    seconds: Optional[float] = None  # training time, evaluation excluded
    samples_per_s: Optional[float] = None
    first_loss: Optional[float] = None  # test loss of the untrained model
    final_loss: Optional[float] = None  # test loss after training
    accuracy: Optional[float] = None  # test accuracy, 0..1
    accuracy_required: Optional[float] = None
    error: Optional[str] = None
    accuracy_basis: Optional[str] = None  # where the required accuracy comes from
    batch_size: Optional[int] = None
    planned_epochs: Optional[int] = None
    planned_samples: Optional[int] = None  # the whole workload: epochs x training images
    complete: Optional[bool] = None  # False: stopped by the time budget or an error
    estimated_seconds: Optional[float] = None  # the whole workload at the measured rate, for runs stopped early
    train_size: Optional[int] = None
    test_size: Optional[int] = None
    threads: Optional[int] = None  # CPU threads torch used (CPU runs)
    epoch_losses: Tuple[float, ...] = ()  # mean training loss per epoch
    epoch_accuracies: Tuple[float, ...] = ()  # test accuracy after each completed epoch
    # The speed comparison: training steps at a large batch, where the arithmetic outweighs Python's dispatch.
    speed_batch: Optional[int] = None
    speed_steps: Optional[int] = None
    speed_samples_per_s: Optional[float] = None
    speed_error: Optional[str] = None


@dataclass(frozen=True)
class ParityResult:
    """Forward and backward of one model with identical weights and batch on the CPU and on the GPU (TF32 off).

    Logits and loss are compared in fp32; gradients in float64, where ReLU and max-pool flips do not happen (records
    without ``grad_tolerance`` compared fp32 gradients against ``tolerance``).
    """

    model: str = ""
    loss_rel_diff: Optional[float] = None
    grad_rel_diff: Optional[float] = None  # the largest over all parameters
    worst: Optional[str] = None  # the parameter whose gradient differs most
    tolerance: Optional[float] = None  # for the logits and the loss
    logits_rel_diff: Optional[float] = None
    grad_tolerance: Optional[float] = None  # for the float64 gradients
    ok: Optional[bool] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class MatmulResult:
    """Throughput of an n x n x n matrix product in one precision."""

    dtype: str = ""  # fp32 | tf32 | bf16
    n: Optional[int] = None
    tflops: Optional[float] = None
    peak_tflops: Optional[float] = None  # the data-sheet peak of this GPU model, where known
    peak_source: Optional[str] = None
    error: Optional[str] = None
    tf32_override: Optional[str] = None  # NVIDIA_TF32_OVERRIDE in the worker (tf32 rows); "0" turns TF32 off


@dataclass(frozen=True)
class CopyResult:
    """Throughput of one kind of host/device copy."""

    direction: str = ""  # h2d | d2h
    memory: str = ""  # pageable | pinned
    bytes: Optional[int] = None
    gb_per_s: Optional[float] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class ClockSummary:
    """What NVML reported while the matrix products ran: SM clocks, heat, power and the reasons clocks were held."""

    samples: int = 0
    sm_clock_mhz_min: Optional[int] = None
    sm_clock_mhz_max: Optional[int] = None
    max_sm_clock_mhz: Optional[int] = None  # the GPU's highest SM clock
    temperature_c_max: Optional[int] = None
    power_w_max: Optional[float] = None
    throttle_reasons: Tuple[str, ...] = ()  # gpu_idle left out: the GPU was busy
    error: Optional[str] = None  # why NVML could not be read (no library, no permission)
    power_limit_w: Optional[float] = None  # the power limit NVML enforced
    power_limit_default_w: Optional[float] = None  # the board's default power limit


@dataclass(frozen=True)
class DeviceResult:
    """Everything verify measured on one GPU besides training: smoke test, parity and micro-benchmarks."""

    device: str = ""  # cuda:0, as torch numbers it
    name: Optional[str] = None
    compute_capability: Optional[Tuple[int, int]] = None
    total_memory_mib: Optional[int] = None
    pci_bus_id: Optional[str] = None  # "0000:65:00.0", to match NVML's GPU
    sm_count: Optional[int] = None  # streaming multiprocessors torch sees (a MIG slice has a share of them)
    smoke_ok: Optional[bool] = None
    smoke_error: Optional[str] = None
    smoke_step: Optional[str] = None  # the step that failed: context, copy, elementwise, reduction, matmul, copy back
    parity: Tuple[ParityResult, ...] = ()
    matmul: Tuple[MatmulResult, ...] = ()
    copies: Tuple[CopyResult, ...] = ()
    clocks: Optional[ClockSummary] = None  # sampled during the matrix products
    error: Optional[str] = None  # the worker for this device failed: crash, hang, bad output
    last_stage: Optional[str] = None  # the step it was in when it failed


@dataclass(frozen=True)
class WorkerFailure:
    """A worker process that did not run to its end."""

    worker: str = ""  # the device it verified: cuda:0 | cpu
    kind: str = ""  # a FailureKind value
    error: str = ""  # completes "the worker ...": "was killed by signal 11 (SIGSEGV) during train fnn"
    stage: Optional[str] = None  # the step it was in: data, smoke, parity fnn, train cnn, bench


@dataclass(frozen=True)
class VerifyFacts:
    """Results of ``gpudoctor verify``; filled in from the verify workers' records."""

    dataset: Optional[str] = None  # synthetic | mnist | cifar10
    device: Optional[str] = None  # the first GPU verified, e.g. cuda:0; None when no GPU was usable
    # Summary over every verified device: all smoke tests passed, and the largest parity difference.
    smoke_ok: Optional[bool] = None
    smoke_error: Optional[str] = None
    parity_max_rel_diff: Optional[float] = None
    parity_tolerance: Optional[float] = None
    runs: Tuple[ModelRun, ...] = ()
    worker_error: Optional[str] = None  # every failure below, joined into one line
    failures: Tuple[WorkerFailure, ...] = ()
    python: Optional[str] = None  # the interpreter the workers ran under
    torch_version: Optional[str] = None
    cuda_build: Optional[str] = None  # torch.version.cuda in the worker
    cuda_available: Optional[bool] = None
    cuda_error: Optional[str] = None  # why torch could not use CUDA, as the worker saw it
    cuda_warnings: Tuple[str, ...] = ()  # warnings while initialising CUDA (e.g. "sm_120 is not compatible")
    device_count: Optional[int] = None
    devices: Tuple[DeviceResult, ...] = ()
    epochs: Optional[int] = None
    cpu_seconds: Optional[float] = None  # the CPU baseline's time budget per model
    data_dir: Optional[str] = None
    distributed: Optional[DistributedFacts] = None  # verify --distributed: every rank's results
