"""Which GPU vendor the facts show: an AMD GPU (kernel module, ROCm variables, a paste's gfx names and models)."""

from __future__ import annotations

from typing import Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts

ROCM_VARIABLES = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION")
ROCM_INSTALL_LINK = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/pytorch-install.html"


def amd_gpu(facts: Facts) -> Tuple[str, ...]:
    """What shows an AMD GPU on this machine, one entry per kind of evidence; empty when nothing does, when the
    paste also names an NVIDIA GPU (a machine with both is not an AMD-only one), or on macOS."""
    if extras(facts, "paste.nvidia_named") or facts.platform.system == "Darwin":
        return ()  # a Mac's Radeon works through MPS, not ROCm: platform.macos speaks of it
    hints = [f"kernel module {m}" for m in facts.driver.kernel_modules if m == "amdgpu"]
    hints += [f"{n}={v}" for n in ROCM_VARIABLES if (v := facts.env.get(n))]
    hints += list(extras(facts, "paste.amd_gpu"))
    return tuple(dict.fromkeys(hints))


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
