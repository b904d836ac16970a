"""Checks that the torch build matches the GPU vendor: a ROCm build on an NVIDIA machine, a CUDA or CPU build on an AMD one."""

from __future__ import annotations

import re
from typing import Iterator, Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks import packages as pk
from gpudoctor.checks.platform import INSTALL_LINKS, driver_build, nvidia_present
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import vendors
from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
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


_NO_DRIVER_TEXT = "found no nvidia driver on your system"  # only a CUDA build of torch says it


def _rocm_set(facts: Facts, version: str) -> Tuple[str, Optional[str], compat.Release]:
    """The ROCm variant to install, its install command, and the release it is of: this torch release where it
    had ROCm builds, else the newest release that has."""
    release = compat.release_for_torch(version) if version else None
    known = release if release and release.rocm_variants else next(r for r in compat.RELEASES if r.rocm_variants)
    target = _fix.base_version(version) if known is release else known.latest.torch
    rocm = known.rocm_variants[-1]
    return rocm, pk.release_set(facts, target, rocm, force_reinstall=True), known


def _rocm_fix(facts: Facts, text: str, command: Optional[str]) -> Fix:
    """``text`` and ``command`` on Linux; on Windows, where download.pytorch.org has no ROCm builds, WSL 2."""
    if facts.platform.system == "Windows":
        return Fix("The ROCm builds of torch on download.pytorch.org are for Linux: run torch in WSL 2 (Ubuntu) with "
                   "AMD's ROCm for WSL, on a GPU it supports, and install the ROCm build there.",
                   ("wsl --install -d Ubuntu-24.04",))
    return Fix(text, (command,) if command else ())


@check("torch.cuda-build-on-amd", "CUDA build of torch on an AMD machine")
def cuda_on_amd(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    said = (_NO_DRIVER_TEXT in (t.init_error or "").lower() or "no-driver" in extras(facts, "paste.signature")
            or derived(facts).driver_found_version is not None)
    version = pk.torch_version(facts) or ""
    asked = _failing_from_index(facts, version, "cu")
    if not said and not asked:  # torch that says it has no NVIDIA driver is installed and a CUDA build
        pk.require_torch(facts)
    if not (t.cuda or re.search(r"\+cu\d", version) or said or asked) or t.hip or nvidia_present(facts):
        return
    hints = vendors.amd_gpu(facts)
    if not hints:
        return
    rocm, command, _ = _rocm_set(facts, version)
    label = f"torch {version}" if version else "torch"
    message = (t.init_error or "").strip().splitlines()[-1:] if said else []
    quoted = f'torch says "{message[0].split(". ")[0][:120]}"; ' if message else ""
    quoted += f"torch was installed from the {asked} index and CUDA is unavailable; " if asked and not message else ""
    yield Finding(
        "torch.cuda-build-on-amd", Severity.WARNING,
        f"{label} is a CUDA build, but this machine shows an AMD GPU ({', '.join(hints[:3])}) and no NVIDIA GPU",
        f"Observed: {quoted}no NVIDIA GPU or driver; " + ", ".join(hints) + ". Required: a ROCm build of torch for "
        "AMD GPUs (Linux; the GPU must be one ROCm supports). A CUDA build looks for an NVIDIA driver and finds "
        "none: no NVIDIA driver is missing here.",
        _rocm_fix(facts, f"Install the ROCm build ({rocm}) in this environment (in a container: use the image's ROCm "
                  "variant and pass /dev/kfd and /dev/dri).", command),
        INSTALL_LINKS + (vendors.ROCM_INSTALL_LINK,),
        ("torch.version", "torch.init_error", "torch.is_available", "driver.kernel_modules", "env.variables",
         "amd_gpu", "torch_index"),
    )


def _failing_from_index(facts: Facts, version: str, prefix: str) -> Optional[str]:
    """The download.pytorch.org variant ("cu121", "cpu") a pasted install command took torch from, when it starts
    with ``prefix``, no installed version says otherwise and torch reports CUDA unavailable."""
    if version or facts.torch.is_available is not False:
        return None
    return next((v for v in vendors.torch_indexes(facts) if v.startswith(prefix)), None)


def _cpu_reason(facts: Facts, version: str) -> Optional[str]:
    """Why the torch of an AMD machine is neither a ROCm nor a CUDA build: its own word, or a ROCm index that has
    no wheel for the Python shown (pip then installed another build, which cannot use the GPU)."""
    t = facts.torch
    if t.cuda_compiled is False or version.endswith("+cpu"):
        return f"{'torch ' + version if version else 'torch'} is a CPU-only build"
    if _failing_from_index(facts, version, "cpu"):
        return "torch was installed from the CPU-only index (download.pytorch.org/whl/cpu)"
    variant = vendors.rocm_index(facts)
    python = facts.platform.python_version
    if t.is_available is not False or not variant or not python:
        return None
    releases = vendors.rocm_releases(variant)
    if not releases or any(r.supports_python(python) is not False for r in releases):
        return None
    ranges = ", ".join(dict.fromkeys(f"{r.python_text} for torch {r.minor}" for r in releases))
    return (f"the {variant} index has no ROCm wheel of torch for Python {python} (Python {ranges}), so pip "
            "installed a torch without ROCm")


def non_rocm_on_amd(facts: Facts) -> Optional[Finding]:
    """A pasted torch that is neither a ROCm nor a CUDA build on a machine that shows an AMD GPU (paste.cpu-build):
    what pip installs when the ROCm index has no wheel for the Python, or a CPU-only build. None otherwise."""
    t = facts.torch
    version = pk.torch_version(facts) or ""
    if t.hip or "rocm" in version or re.search(r"\+cu\d", version) or t.cuda or nvidia_present(facts):
        return None
    hints = vendors.amd_gpu(facts)
    reason = _cpu_reason(facts, version) if hints else None
    if reason is None:
        return None
    certain = t.cuda_compiled is False or version.endswith("+cpu")
    rocm, command, release = _rocm_set(facts, version)
    python = facts.platform.python_version
    fits = release.supports_python(python) if python else None
    if fits is False:
        needs = f" in a new environment with a Python it supports ({release.python_text}; this one is {python})"
        command = f"python -m pip install torch --index-url https://download.pytorch.org/whl/{rocm}"
    else:
        needs = ""
    return Finding(
        "paste.cpu-build", Severity.ERROR if certain else Severity.WARNING,
        f"{reason}: it cannot use this machine's AMD GPU (seen as: {', '.join(hints[:3])})",
        f"Observed: {reason}; "
        + ("torch.cuda.is_available() is False; " if t.is_available is False else "") + ", ".join(hints)
        + ". Required: a ROCm build of torch (torch.version.hip set), on Linux with a GPU that ROCm supports.",
        _rocm_fix(facts, f"Install the ROCm build of torch ({rocm}){needs}; CUDA builds do not drive AMD GPUs.", command),
        INSTALL_LINKS + (vendors.ROCM_INSTALL_LINK,),
        ("torch.version", "torch.cuda_compiled", "torch.is_available", "platform.python_version", "amd_gpu",
         "rocm_index", "torch_index"),
    )


CHECKS = [rocm_on_nvidia, cuda_on_amd]
