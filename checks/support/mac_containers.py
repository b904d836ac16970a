"""A Linux container on a Mac (Docker Desktop's Linux VM): it reaches neither the Mac's GPU (MPS) nor any CUDA."""

from __future__ import annotations

from typing import Optional

from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity

LINKS = ("https://docs.pytorch.org/docs/stable/notes/mps.html", "https://docs.docker.com/desktop/setup/install/mac-install/")


def _host(facts: Facts) -> Optional[str]:
    return next((value for key, value in facts.extra if key == "paste.container.host"), None)


def on_mac(facts: Facts) -> Optional[Finding]:
    """The container runs in Docker Desktop's Linux VM on a Mac: MPS exists only for native macOS processes."""
    if _host(facts) != "macOS":
        return None
    where = next((v for k, v in facts.extra if k == "paste.line.container.host" or k.startswith("paste.line.container.host.")),
                 None)
    mps = facts.torch.mps_available
    return Finding(
        "platform.container", Severity.ERROR if mps is False or facts.torch.is_available is False else Severity.WARNING,
        "torch runs in a Linux container on a Mac: a container reaches neither the Mac's GPU (MPS) nor CUDA",
        "Observed: a Linux container in Docker Desktop's VM on a Mac"
        + (f" (line {where.partition(': ')[0]}: {where.partition(': ')[2]})" if where else "")
        + ("; torch.backends.mps.is_available() is False in it" if mps is False else "")
        + ". Required: MPS, the Mac GPU backend, works only in native macOS processes (Metal is not passed into "
        "Linux VMs or containers), and a Mac has no NVIDIA GPU for CUDA; no image or setting changes that.",
        Fix("Run the code natively on macOS, in an arm64 Python with torch installed by pip, and use "
            "torch.device(\"mps\"); inside the container only the CPU is available.",
            ("python3 -c \"import platform; print(platform.machine())\"", "python3 -m pip install torch",
             "python3 -c \"import torch; print(torch.backends.mps.is_available())\"")),
        LINKS, ("platform.container", "torch.mps_available", "extra"),
    )
