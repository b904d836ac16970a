"""Checks that the torch build matches the GPU vendor: a ROCm build on an NVIDIA machine, a CUDA build on an AMD one."""

from __future__ import annotations

import re
from typing import Iterator

from gpudoctor import compat
from gpudoctor.checks import packages as pk
from gpudoctor.checks.platform import INSTALL_LINKS, driver_build, nvidia_present
from gpudoctor.checks.support import install as _fix
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check


@check("torch.rocm-build-on-nvidia", "ROCm build of torch on an NVIDIA machine")
def rocm_on_nvidia(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    pk.require_torch(facts)
    version = pk.torch_version(facts) or ""
    if not (t.hip or "rocm" in version) or not nvidia_present(facts):
        return
    names = sorted({g.name for g in facts.gpus if g.name})
    recommended = _fix.recommended_install(facts, force_reinstall=True)
    build = None if recommended else driver_build(facts)
    yield Finding(
        "torch.rocm-build-on-nvidia", Severity.ERROR,
        f"torch {version} is a ROCm (AMD) build, but this machine's GPU is NVIDIA" + (f" ({', '.join(names)})" if names else ""),
        f"Observed: torch.version.hip = {t.hip or '(set)'}. Required: a CUDA build of torch; ROCm builds drive only AMD GPUs.",
        Fix(f"Replace it with {recommended.what}." if recommended else "Install the CUDA build of this torch release.",
            (recommended.command if recommended else build or _fix.pip_install(facts, ["torch"], force_reinstall=True),)),
        INSTALL_LINKS, ("torch.hip", "gpus"),
    )


@check("torch.cuda-build-on-amd", "CUDA build of torch on an AMD machine")
def cuda_on_amd(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    pk.require_torch(facts)
    version = pk.torch_version(facts) or ""
    if not (t.cuda or re.search(r"\+cu\d", version)) or nvidia_present(facts):
        return
    hints = [f"kernel module {m}" for m in facts.driver.kernel_modules if m == "amdgpu"]
    hints += [f"{n}={v}" for n in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION") if (v := facts.env.get(n))]
    if not hints:
        return
    release = compat.release_for_torch(version)
    known = release if release and release.rocm_variants else next(r for r in compat.RELEASES if r.rocm_variants)
    target = _fix.base_version(version) if known is release else known.latest.torch
    rocm = known.rocm_variants[-1]
    command = pk.release_set(facts, target, rocm, force_reinstall=True)
    yield Finding(
        "torch.cuda-build-on-amd", Severity.WARNING,
        f"torch {version} is a CUDA build, but this machine shows an AMD GPU ({', '.join(hints)}) and no NVIDIA GPU",
        "Observed: no NVIDIA GPU or driver; " + ", ".join(hints) + ". Required: a ROCm build of torch for AMD GPUs "
        "(Linux; the GPU must be one ROCm supports).",
        Fix(f"Install the ROCm build ({rocm}).", (command,) if command else ()),
        INSTALL_LINKS + ("https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/pytorch-install.html",),
        ("torch.cuda", "driver.kernel_modules", "env.variables"),
    )


CHECKS = [rocm_on_nvidia, cuda_on_amd]
