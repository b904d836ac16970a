"""Libraries with GPU kernels of their own that pin one torch release: vLLM and xformers built for another torch."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.packages import index_for, torch_version
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip

# The torch each release's wheels require exactly (torch==X), as their PyPI metadata states. Only releases whose pin
# is known for certain are listed; any other release of these libraries is not judged. flash-attn is absent on
# purpose: its PyPI release is a source build against whatever torch is present, so it pins none.
PINS: Dict[str, Dict[str, str]] = {
    "vllm": {
        "0.4.0": "2.1.2", "0.4.0.post1": "2.1.2", "0.4.1": "2.2.1", "0.4.2": "2.3.0", "0.4.3": "2.3.0",
        "0.5.0": "2.3.0", "0.5.0.post1": "2.3.0", "0.5.1": "2.3.0", "0.5.2": "2.3.1", "0.5.3": "2.3.1",
        "0.5.3.post1": "2.3.1", "0.5.4": "2.4.0", "0.5.5": "2.4.0", "0.6.0": "2.4.0", "0.6.1": "2.4.0",
        "0.6.1.post1": "2.4.0", "0.6.1.post2": "2.4.0", "0.6.2": "2.4.0", "0.6.3": "2.4.0", "0.6.3.post1": "2.4.0",
        "0.6.4": "2.5.1", "0.6.4.post1": "2.5.1", "0.6.5": "2.5.1", "0.6.6": "2.5.1", "0.6.6.post1": "2.5.1",
        "0.7.0": "2.5.1", "0.7.1": "2.5.1", "0.7.2": "2.5.1", "0.7.3": "2.5.1", "0.8.0": "2.6.0", "0.8.1": "2.6.0",
        "0.8.2": "2.6.0", "0.8.3": "2.6.0", "0.8.4": "2.6.0", "0.8.5": "2.6.0", "0.8.5.post1": "2.6.0",
        "0.9.0": "2.7.0", "0.9.0.1": "2.7.0", "0.9.1": "2.7.0",
    },
    "xformers": {
        "0.0.20": "2.0.1", "0.0.21": "2.0.1", "0.0.22": "2.0.1", "0.0.23.post1": "2.1.2", "0.0.24": "2.2.0",
        "0.0.25": "2.2.1", "0.0.25.post1": "2.2.2", "0.0.26.post1": "2.3.0", "0.0.27": "2.3.1",
        "0.0.28.post1": "2.4.1", "0.0.28.post3": "2.5.1", "0.0.29.post3": "2.6.0", "0.0.30": "2.7.0",
    },
}
_WHAT = {"vllm": "vLLM's compiled ops fail to import (undefined symbols) or crash",
         "xformers": "xformers cannot load its C++/CUDA extensions and falls back to slower code"}


def pinned_torch(name: str, version: str) -> Optional[str]:
    """The torch release a library release requires exactly; None where it is not known."""
    return PINS.get(name, {}).get(_fix.base_version(version))


def releases_for(name: str, torch_base: str) -> List[str]:
    """The known releases of ``name`` built for this torch release, oldest first."""
    return [release for release, torch in PINS.get(name, {}).items() if torch == torch_base]


def _mismatches(facts: Facts, torch: str) -> Iterator[Tuple[str, str, str]]:
    for name in PINS:
        dist = facts.package(name)
        if dist is None or not dist.version:
            continue
        pin = pinned_torch(name, dist.version)
        if pin and pin != _fix.base_version(torch):
            yield name, dist.version, pin


@check("packages.kernel-pins", "Libraries with GPU kernels built for the installed torch")
def kernel_pins(facts: Facts) -> Iterator[Finding]:
    torch = torch_version(facts)
    if not torch:
        raise skip("the torch version is not known")
    if not any(facts.package(name) for name in PINS):
        raise skip("no library that pins one torch release (vllm, xformers) is listed")
    found = list(_mismatches(facts, torch))
    if not found:
        raise skip("every listed vllm/xformers release matches the installed torch, or its pin is not known")
    torch_base = _fix.base_version(torch)
    local = _fix.split_version(torch)[1]
    for name, version, pin in found:
        matching = releases_for(name, torch_base)
        commands = [_fix.pip_install(facts, [f"{name}=={matching[-1]}"])] if matching else []
        commands.append(_fix.pip_install(facts, [f"torch=={pin}"], index_for(local)))
        lead = (f"Install {name} {matching[-1]}, the release built for torch {torch_base}, or torch {pin}"
                if matching else f"Install torch {pin}, the release {name} {version} was built for, or a {name} "
                                 f"release built for torch {torch_base}")
        yield Finding(
            code="packages.kernel-pin-mismatch",
            severity=Severity.WARNING,
            summary=f"{name} {version} was built for torch {pin}; torch {torch} is installed",
            detail=f"{name} {version} requires torch=={pin} exactly; with another torch {_WHAT[name]}.",
            fix=Fix(lead + " (with torchvision and torchaudio to match).", tuple(commands)),
            evidence=("packages", "torch.version"),
        )


CHECKS: List[Check] = [kernel_pins]
