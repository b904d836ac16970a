"""What is compared across nodes: versions, GPU count, ECC mode and clock slowdown, read from one node's facts."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.checks.gpu_health import SLOWDOWNS
from gpudoctor.compat.cudnn import cudnn_version_text
from gpudoctor.facts import Facts


class Trait(enum.Enum):
    """A property every node of a fleet should share (hardware ones within nodes of one GPU model)."""

    DRIVER = "driver"
    TORCH = "torch"
    CUDA = "cuda"
    NCCL = "nccl"
    CUDNN = "cudnn"
    GPU_COUNT = "gpu_count"
    ECC = "ecc"
    SLOWDOWN = "slowdown"

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def per_model(self) -> bool:
        """Compared among nodes with the same GPU model only: a fleet may mix 4- and 8-GPU machines."""
        return self in (Trait.GPU_COUNT, Trait.ECC, Trait.SLOWDOWN)


_LABELS = {
    Trait.DRIVER: "NVIDIA driver",
    Trait.TORCH: "torch",
    Trait.CUDA: "torch's CUDA",
    Trait.NCCL: "NCCL",
    Trait.CUDNN: "cuDNN",
    Trait.GPU_COUNT: "GPU count",
    Trait.ECC: "ECC mode",
    Trait.SLOWDOWN: "clock slowdown",
}


@dataclass(frozen=True)
class NodeTraits:
    """One node's comparable values (None: unknown, never drift) and what its fixes need."""

    values: Tuple[Optional[str], ...]  # in Trait order
    model: Optional[str] = None  # the GPU model, e.g. "8x NVIDIA H100 80GB HBM3"
    python: Optional[str] = None  # the target interpreter, for pip commands
    torchvision: Optional[str] = None

    def get(self, trait: Trait) -> Optional[str]:
        return self.values[_INDEX[trait]]

    def interned(self, intern: Dict[str, str]) -> NodeTraits:
        """The same traits, their strings shared through ``intern`` with every other node's."""

        def keep(value: Optional[str]) -> Optional[str]:
            return None if value is None else intern.setdefault(value, value)

        return NodeTraits(tuple(keep(v) for v in self.values), keep(self.model), keep(self.python),
                          keep(self.torchvision))


_INDEX = {trait: i for i, trait in enumerate(Trait)}


def _nccl(facts: Facts) -> Optional[str]:
    for dist in facts.packages:
        if canonicalize_name(dist.name).startswith("nvidia-nccl"):
            return dist.version or None
    return None


def _ecc(facts: Facts) -> Optional[str]:
    modes = [g.ecc_mode for g in facts.gpus if g.ecc_mode is not None]
    if not modes:
        return None
    on = sum(1 for m in modes if m)
    return "on" if on == len(modes) else "off" if on == 0 else f"on for {on} of {len(modes)} GPUs"


def _slowdown(facts: Facts) -> Optional[str]:
    if not facts.gpus:
        return None
    reasons = set()
    for g in facts.gpus:
        for reason in g.throttle_reasons:
            key = reason.strip().lower().replace(" ", "_").replace("-", "_")
            for prefix in ("clocks_event_reason_", "clocks_throttle_reason_"):
                key = key.removeprefix(prefix)
            if key in SLOWDOWNS:
                reasons.add(key)
    return ", ".join(sorted(reasons)) or "none"


def _model(facts: Facts) -> Optional[str]:
    names = Counter(g.name or "unnamed GPU" for g in facts.gpus)
    if not names:
        return None
    return " + ".join(f"{count}x {name}" for name, count in sorted(names.items()))


def _gpu_model(facts: Facts) -> Optional[str]:
    names = Counter(g.name or "unnamed GPU" for g in facts.gpus)
    return names.most_common(1)[0][0] if names else None


def node_traits(facts: Facts, intern: Dict[str, str]) -> NodeTraits:
    """The node's values; equal strings share one object through ``intern`` (a fleet repeats them)."""
    count = len(facts.gpus) if facts.gpus else facts.driver.gpu_count
    cudnn = facts.torch.cudnn_version
    raw = {
        Trait.DRIVER: facts.driver.version,
        Trait.TORCH: facts.torch.version,
        Trait.CUDA: facts.torch.cuda,
        Trait.NCCL: _nccl(facts),
        Trait.CUDNN: cudnn_version_text(cudnn) if isinstance(cudnn, int) and cudnn > 0 else None,
        Trait.GPU_COUNT: str(count) if count is not None else None,
        Trait.ECC: _ecc(facts),
        Trait.SLOWDOWN: _slowdown(facts),
    }

    def keep(value: Optional[str]) -> Optional[str]:
        if value is None:
            return None
        value = value[:200]
        return intern.setdefault(value, value)

    return NodeTraits(
        tuple(keep(raw[t]) for t in Trait),
        keep(_gpu_model(facts)),
        keep(facts.platform.python_executable),
        keep(facts.torchvision.version),
    )


def describe_model(facts: Facts) -> Optional[str]:
    """The node's GPUs for the fleet overview, e.g. "8x NVIDIA H100 80GB HBM3"."""
    return _model(facts)
