"""Container start commands read from a paste (docker run, podman run, a compose service) and whether each asks
for GPUs; the parser writes them into ``Facts.extra`` and the checks read them back from there."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.facts import Facts

RUN_KEY = "paste.container.run"  # one per container start command: "<runtime> <request> <image or -> <line>"
NO_GPU_KEY = "paste.container.no_gpu"  # a line saying that no GPU (or CUDA) was found where the program ran
WSL_DISTRO_KEY = "paste.wsl.distro"  # the WSL distribution `wsl -l -v` marks as the default
_IMAGE = re.compile(r"^[A-Za-z0-9][\w./:@-]{0,199}$")


class Runtime(enum.Enum):
    """What started the container: the fix for GPU access differs for each."""

    DOCKER = "docker"
    PODMAN = "podman"
    COMPOSE = "compose"


class GpuRequest(enum.Enum):
    """How a container start asks for GPUs; NONE is a command seen whole that asks for none."""

    NONE = "none"
    GPUS = "gpus"  # --gpus, or a compose device reservation with capabilities [gpu]
    RUNTIME = "runtime"  # --runtime=nvidia / runtime: nvidia
    CDI = "cdi"  # --device nvidia.com/gpu=...
    DEVICE = "device"  # --device /dev/nvidia*
    ENV = "env"  # NVIDIA_VISIBLE_DEVICES set for the container
    UNKNOWN = "unknown"  # a compose up whose service definition the paste does not show

    @property
    def asks(self) -> bool:
        return self not in (GpuRequest.NONE, GpuRequest.UNKNOWN)


@dataclass(frozen=True)
class ContainerRun:
    """One container start command of a paste; ``image`` only when it looks like an image reference."""

    runtime: Runtime
    request: GpuRequest
    image: Optional[str] = None
    line: int = 0

    def encode(self) -> str:
        return f"{self.runtime.value} {self.request.value} {self.image or '-'} {self.line}"

    @staticmethod
    def decode(value: str) -> Optional["ContainerRun"]:
        parts = value.split(" ")
        if len(parts) != 4 or not parts[3].isdigit():
            return None
        try:
            runtime, request = Runtime(parts[0]), GpuRequest(parts[1])
        except ValueError:
            return None
        return ContainerRun(runtime, request, image_name(parts[2]), int(parts[3]))


def image_name(value: str) -> Optional[str]:
    """``value`` when it is plausible as an image reference (registry/name:tag@digest), else None."""
    return value if value != "-" and _IMAGE.match(value) and ".." not in value else None


def container_runs(facts: Facts) -> Tuple[ContainerRun, ...]:
    """The container start commands of a pasted report, in paste order, with the line each was read from."""
    runs = (ContainerRun.decode(value) for key, value in facts.extra if key == RUN_KEY)
    return tuple(run for run in runs if run is not None)


def no_gpu_lines(facts: Facts) -> Tuple[str, ...]:
    """The pasted lines ("line N: text") that say a program found no GPU or no CUDA."""
    return tuple(f"line {v.partition(': ')[0]}: {v.partition(': ')[2]}" for k, v in facts.extra
                 if k.startswith("paste.line.container.no_gpu."))


def wsl_distro(facts: Facts) -> Optional[str]:
    return next((value for key, value in facts.extra if key == WSL_DISTRO_KEY), None)
