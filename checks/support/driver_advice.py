"""Driver advice that holds for the GPUs at hand: no impossible upgrade, JetPack on Jetson, torch's own words first."""

from __future__ import annotations

from typing import Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.recommend.machine import gpu_ccs
from gpudoctor.compat.base import major_minor
from gpudoctor.compat.generations import JETPACK_TEXT, branch_blocked, cuda_blocked, is_jetson
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity


def no_upgrade_helps(facts: Facts, requirement: Optional[compat.DriverRequirement]) -> str:
    """Why no driver upgrade can make this torch run on these GPUs ("" when one can)."""
    ccs = gpu_ccs(facts)[0]
    cuda = major_minor(facts.torch.cuda)
    gone = cuda_blocked(ccs, cuda[0]) if cuda else None
    if gone is not None:
        return (f"No driver upgrade helps: CUDA {cuda[0] if cuda else '?'} builds have no kernels for {gone.name} GPUs "
                f"(CUDA {gone.last_cuda_major} is the last for them).")
    old = branch_blocked(ccs, requirement.minimum_branch) if requirement else None
    if old is not None and requirement is not None:
        return (f"No driver upgrade helps: {old.name} GPUs get no driver newer than R{old.last_branch}, and torch's "
                f"CUDA {requirement.cuda} needs R{requirement.minimum_branch} or newer.")
    return ""


def upgrade_text(facts: Facts, requirement: Optional[compat.DriverRequirement], minimum: Optional[str]) -> Optional[str]:
    """The driver upgrade to advise, or None when none can help (a retired generation); Jetson gets JetPack."""
    if no_upgrade_helps(facts, requirement):
        return None
    if is_jetson(gpu_ccs(facts)[0]):
        return JETPACK_TEXT.rstrip(".")
    return f"Upgrade the NVIDIA driver to >= {minimum}" if minimum else "Upgrade the NVIDIA driver"


def insufficient(facts: Facts) -> Finding:
    """torch itself says the driver is too old although the tables say this driver runs its CUDA: believe torch.

    The libcuda torch loaded is then not the one NVML reports: a container's CUDA forward-compatibility package,
    a libcuda stub or an older copy on LD_LIBRARY_PATH, or a driver upgraded on disk but not yet loaded.
    """
    torch = facts.torch
    label = torch.version or _fix.installed_version(facts, "torch") or "torch"
    version = facts.driver.version
    shown = f"driver {version} should run CUDA {torch.cuda}" if version else "the driver version is unknown"
    commands: Tuple[str, ...] = ()
    if (facts.platform.system or "").lower() == "linux":
        commands = ("ldconfig -p | grep -E 'libcuda\\.so'", "echo \"$LD_LIBRARY_PATH\"")
    return Finding(
        code="driver.too-old-for-torch",
        severity=Severity.ERROR,
        summary=(f"torch {label} reports the CUDA driver is insufficient for its CUDA {torch.cuda} runtime and "
                 "CUDA is unavailable"),
        detail=(f"By gpudoctor's tables {shown}, but torch's own observation wins: the CUDA driver library torch "
                "loaded is older than its runtime. That happens when another libcuda is found first (a container's "
                "forward-compatibility package, a stub or old copy on LD_LIBRARY_PATH) or when the driver was "
                "upgraded on disk but the old one is still loaded.\n" + (torch.init_error or "").strip()),
        fix=Fix("Find which libcuda torch loads and remove the stale copy from the library path; if the driver was "
                "just upgraded, reboot.", commands),
        evidence=("torch.init_error", "torch.is_available", "driver.version"),
    )
