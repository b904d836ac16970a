"""Recorded machines shipped with gpudoctor, so ``gpudoctor diagnose --example NAME`` works right after install."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Tuple

from gpudoctor.errors import UserError


class UnknownExample(UserError, ValueError):
    """An example name that is not shipped; the message is one line for the user."""


@dataclass(frozen=True)
class Example:
    """One recorded machine: its name, the facts file inside the package and what it shows."""

    name: str
    summary: str

    @property
    def filename(self) -> str:
        return f"{self.name}.json"


EXAMPLES: Tuple[Example, ...] = (
    Example("rtx5090-cu126", "RTX 5090 (sm_120) with torch 2.6.0+cu126, whose kernels stop at sm_90"),
    Example("driver-too-old", "driver 470.82.01 under torch 2.1.2+cu121, whose CUDA 12.1 needs a newer driver"),
    Example("cpu-wheel", "a CPU-only torch wheel on a machine with an RTX 4080"),
    Example("broken-torchvision", "torchvision from another torch release: operator torchvision::nms does not exist"),
    Example("healthy-h100", "an H100 with a matching torch and torchvision: what a healthy machine looks like"),
)


def find(name: str) -> Example:
    """The example called ``name``, or UnknownExample naming the ones there are."""
    for example in EXAMPLES:
        if example.name == name:
            return example
    known = ", ".join(e.name for e in EXAMPLES)
    raise UnknownExample(f"no example named {name!r}; the examples are: {known} (see `gpudoctor examples`)")


def read_text(name: str) -> str:
    """The facts file of the example called ``name``, as shipped inside the package."""
    example = find(name)
    return resources.files(__name__).joinpath(example.filename).read_text(encoding="utf-8")


def render_examples() -> str:
    """The table ``gpudoctor examples`` prints: one example per line, then how to run one."""
    width = max(len(e.name) for e in EXAMPLES)
    lines = [f"{e.name.ljust(width)}  {e.summary}" for e in EXAMPLES]
    lines += ["", f"Run one with: gpudoctor diagnose --example {EXAMPLES[0].name}"]
    return "\n".join(lines) + "\n"
