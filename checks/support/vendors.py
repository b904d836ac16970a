"""Which GPU vendor the facts show: an AMD GPU (kernel module, ROCm variables, a paste's gfx names and models)."""

from __future__ import annotations

from typing import Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity

ROCM_VARIABLES = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION")
ROCM_INSTALL_LINK = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/pytorch-install.html"


def amd_gpu(facts: Facts) -> Tuple[str, ...]:
    """What shows an AMD GPU on this machine, one entry per kind of evidence; empty when nothing does, when the
    paste also names an NVIDIA GPU (a machine with both is not an AMD-only one), or on macOS."""
    if extras(facts, "paste.nvidia_named") or facts.platform.system == "Darwin":
        return ()  # a Mac's Radeon works through MPS, not ROCm: platform.macos speaks of it
    if "colab-no-gpu" in extras(facts, "paste.signature"):
        return ()  # the program ran on a Colab runtime, not on the card the reporter has at home
    hints = [f"kernel module {m}" for m in facts.driver.kernel_modules if m == "amdgpu"]
    hints += [f"{n}={v}" for n in ROCM_VARIABLES if (v := facts.env.get(n))]
    hints += list(extras(facts, "paste.amd_gpu"))
    return tuple(dict.fromkeys(hints))


def intel_gpu(facts: Facts) -> Tuple[str, ...]:
    """The Intel GPUs a paste names, where it names no NVIDIA GPU."""
    if extras(facts, "paste.nvidia_named") or facts.platform.system == "Darwin":
        return ()
    return extras(facts, "paste.intel_gpu")


def ascend_npu(facts: Facts) -> Tuple[str, ...]:
    """The Huawei Ascend NPUs a paste names, where it names no NVIDIA GPU."""
    if extras(facts, "paste.nvidia_named") or facts.platform.system == "Darwin":
        return ()
    return extras(facts, "paste.ascend_npu")


def rocm_index(facts: Facts) -> Optional[str]:
    """The ROCm variant of the download.pytorch.org index a pasted install command names ("rocm6.0")."""
    return next(iter(extras(facts, "paste.rocm_index")), None)


def torch_indexes(facts: Facts) -> Tuple[str, ...]:
    """The CUDA and CPU variants of the download.pytorch.org indexes pasted install commands name ("cu121", "cpu")."""
    return extras(facts, "paste.torch_index")


def rocm_releases(variant: str) -> Tuple[compat.Release, ...]:
    """The torch releases built for ``variant``'s ROCm major.minor ("rocm5.4.3" -> torch 2.0's rocm5.4.2),
    newest first; empty when the data names none."""
    wanted = _major_minor(variant)
    if wanted is None:
        return ()
    return tuple(r for r in compat.ALL_RELEASES if any(_major_minor(v) == wanted for v in r.rocm_variants))


def _major_minor(variant: str) -> Optional[Tuple[int, int]]:
    parts = variant.lower().removeprefix("rocm").split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


_ROCM_WSL_GUIDE = "https://rocm.docs.amd.com/projects/radeon-ryzen/en/latest/docs/install/installrad/wsl/howto_wsl.html"


def rocm_under_wsl(facts: Facts, version: Optional[int]) -> Optional[Finding]:
    """A ROCm torch under WSL: only AMD's WSL runtime reaches the GPU, and the PyTorch index's wheels bring an HSA
    runtime without it."""
    torch_version = facts.torch.version or ""
    rocm = facts.torch.hip or ("+rocm" in torch_version and torch_version) or rocm_index(facts)
    if not rocm or facts.platform.system not in (None, "Linux") or (version is None and not extras(
            facts, "paste.wsl.mentioned")):
        return None
    return Finding(
        "platform.wsl", Severity.WARNING,
        f"a ROCm torch ({rocm}) under WSL: there the GPU is reached only through AMD's WSL runtime, which the ROCm "
        "wheels of download.pytorch.org do not use",
        f"Observed: ROCm torch ({rocm}) under WSL. Required: AMD's Windows driver with WSL support, ROCm installed for "
        "WSL inside the distribution, and a torch whose bundled HSA runtime (torch/lib/libhsa-runtime64.so) is "
        "replaced by the one from /opt/rocm, or AMD's own torch wheels for WSL (repo.radeon.com), as AMD's WSL guide "
        "describes; otherwise HIP finds no device (hipErrorNoDevice) and torch.cuda.is_available() is False.",
        Fix("Follow AMD's ROCm-on-WSL guide for this GPU and ROCm release, then check what ROCm sees.",
            ("rocminfo | grep -i gfx", 'python -c "import torch; print(torch.version.hip, torch.cuda.is_available())"')),
        (_ROCM_WSL_GUIDE,), ("torch.hip", "rocm_index", "platform.wsl"),
    )
