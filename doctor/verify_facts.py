"""The verify section of the facts: what training the reference models on each device proved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class ModelRun:
    """One reference model trained on one device."""

    model: str = ""  # fnn | cnn | lenet
    device: str = ""  # cpu | cuda:0
    epochs: int = 0
    samples: int = 0
    seconds: Optional[float] = None
    samples_per_s: Optional[float] = None
    first_loss: Optional[float] = None
    final_loss: Optional[float] = None
    accuracy: Optional[float] = None  # test accuracy, 0..1
    accuracy_required: Optional[float] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class VerifyFacts:
    """Results of ``gpudoctor verify``; filled in by the verify worker."""

    dataset: Optional[str] = None  # synthetic | mnist | cifar10
    device: Optional[str] = None  # the GPU that was verified, e.g. cuda:0
    smoke_ok: Optional[bool] = None
    smoke_error: Optional[str] = None
    parity_max_rel_diff: Optional[float] = None
    parity_tolerance: Optional[float] = None
    runs: Tuple[ModelRun, ...] = ()
    worker_error: Optional[str] = None
