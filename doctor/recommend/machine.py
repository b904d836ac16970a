"""What the recommender needs from the facts: the GPUs' compute capabilities, the driver, the CPU architecture."""

from __future__ import annotations

from typing import List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.facts import Facts, NvmlError
from gpudoctor.facts.derive import derived

# What a report that names no CPU architecture almost always runs on.
USUAL_MACHINE = {"Windows": "AMD64", "Linux": "x86_64"}


def gpu_ccs(facts: Facts) -> Tuple[List[Tuple[int, int]], List[Optional[str]]]:
    """Compute capabilities and names of the GPUs: NVML's, else torch's, looked up by name where missing."""
    ccs: List[Tuple[int, int]] = []
    names: List[Optional[str]] = []
    devices = [(g.compute_capability, g.name) for g in facts.gpus] or [
        (d.compute_capability, d.name) for d in facts.torch.devices]
    for cc, name in devices:
        cc = cc or compat.gpu_cc_from_name(name)
        if cc is not None:
            ccs.append(cc)
            names.append(name)
    return ccs, names


def no_nvidia(facts: Facts) -> bool:
    """Nothing shows an NVIDIA GPU or driver: no NVML library, driver, GPU, torch device or /dev/nvidia*."""
    return (facts.driver.nvml_failure is NvmlError.LIBRARY_NOT_FOUND and not facts.driver.version and not facts.gpus
            and not facts.torch.devices and not facts.platform.dev_nvidia)


def driver_for_recommend(facts: Facts) -> Optional[str]:
    """The driver version, else the oldest driver of the CUDA in torch's "too old (found version 11040)" message."""
    if facts.driver.version:
        return facts.driver.version
    cuda = derived(facts).driver_found_cuda
    if cuda is None:
        return None
    requirement = compat.driver_requirement(cuda, facts.platform.system)
    return requirement.toolkit_minimum if requirement else None


def machine(facts: Facts) -> Optional[str]:
    """The CPU architecture, or the usual one for the OS when the facts do not name it."""
    return facts.platform.machine or USUAL_MACHINE.get(facts.platform.system or "")
