"""Libraries with GPU kernels of their own, judged against the GPUs and platform a report lists."""

from __future__ import annotations

import re
from typing import Iterator, Optional, Tuple

from gpudoctor.checks.support.paste_layers import gpu_capabilities
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

_RELEASE = re.compile(r"^\s*v?(\d+)\.(\d+)")


def _release(version: Optional[str]) -> Optional[Tuple[int, int]]:
    m = _RELEASE.match(version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


# The oldest GPU each flash-attn series runs on (its README): 1.x Turing (sm_75), 2.x Ampere (sm_80).
_FLASH_MIN = {1: (7, 5), 2: (8, 0)}
_FLASH_SIGNED = "flash-attn-needs-ampere"  # the paste's own message; paste.errors names it then


@check("paste.flash-attn-gpu", "flash-attn against the GPUs it would run on")
def flash_attn_gpu(facts: Facts) -> Iterator[Finding]:
    dist = facts.package("flash-attn") or facts.package("flash_attn")
    release = _release(dist.version if dist else None)
    if dist is None or release is None:
        raise skip("flash-attn is not listed with a version")
    if any(k == "paste.signature" and v == _FLASH_SIGNED for k, v in facts.extra):
        raise skip("the paste's own flash-attn message is named by paste.errors")
    need = _FLASH_MIN.get(release[0])
    if need is None:
        raise skip(f"flash-attn {dist.version}: no GPU requirement known for this series")
    gpus = gpu_capabilities(facts)
    if not gpus:
        raise skip("no GPU with a known compute capability in the input")
    refused = [(name, cc) for name, cc in gpus if cc < need]
    if not refused:
        raise skip(f"every GPU meets flash-attn {dist.version}'s sm_{need[0]}{need[1]}")
    listing = ", ".join(f"{name} (sm_{cc[0]}{cc[1]})" for name, cc in refused)
    yield Finding(
        code="paste.flash-attn-gpu",
        severity=Severity.WARNING,  # installed is not selected: torch runs, FlashAttention would not
        summary=f"flash-attn {dist.version} needs sm_{need[0]}{need[1]} or newer; it cannot run on {listing}",
        detail=(f"observed: flash-attn {dist.version}; {listing}\n"
                f"required: compute capability {need[0]}.{need[1]} or newer for flash-attn {release[0]}.x "
                "(flash-attn's README). torch itself runs on this GPU; only code that selects FlashAttention fails."),
        fix=Fix("Turn FlashAttention off for this GPU (transformers: attn_implementation=\"sdpa\"; many trainers: "
                "--flash_attn false) or run on an Ampere or newer GPU.", ("pip uninstall -y flash-attn",)),
        links=("https://github.com/Dao-AILab/flash-attention#installation-and-features",),
        evidence=("packages", "gpus"),
    )


_BNB_SIGNED = "bitsandbytes-without-gpu"  # bitsandbytes' own "compiled without GPU support" / no CUDA runtime


def _bitsandbytes_on_macos(facts: Facts, version: str) -> Finding:
    """bitsandbytes on a Mac: its CUDA kernels do not exist there, whatever release is installed."""
    said = next((v for k, v in facts.extra if k == f"paste.line.signature.{_BNB_SIGNED}"), None)
    label = f"bitsandbytes {version}" if version else "bitsandbytes"
    return Finding(
        code="paste.bitsandbytes-platform",
        severity=Severity.WARNING,
        summary=f"{label} runs on macOS, where it has no CUDA library: only its CPU library loads, so 8-bit "
                "optimizers and GPU quantisation are unavailable",
        detail="\n".join(part for part in (
            f"line {said}" if said else "",
            f"observed: {label} on macOS (platform read from the paste)",
            "required: an NVIDIA GPU with CUDA on Linux or Windows for bitsandbytes' GPU features (bitsandbytes' "
            "installation guide); a Mac has no CUDA, so neither a reinstall nor another release brings them. "
            "torch itself can use the Mac's GPU through MPS.") if part),
        fix=Fix("On the Mac, load the model without bitsandbytes quantisation (no load_in_8bit/load_in_4bit; "
                "float16 on the \"mps\" device), or run the 8-bit path on a Linux or Windows machine with an "
                "NVIDIA GPU.", ('python -c "import torch; print(torch.backends.mps.is_available())"',)),
        links=("https://huggingface.co/docs/bitsandbytes/main/en/installation",),
        evidence=("packages", "platform.system", "extra"),
    )


@check("paste.bitsandbytes-platform", "bitsandbytes against the platform it runs on")
def bitsandbytes_platform(facts: Facts) -> Iterator[Finding]:
    dist = facts.package("bitsandbytes")
    if facts.platform.system == "Darwin" and (dist is not None or any(
            k == "paste.signature" and v == _BNB_SIGNED for k, v in facts.extra)):
        yield _bitsandbytes_on_macos(facts, dist.version if dist and dist.version else "")
        return
    release = _release(dist.version if dist else None)
    if dist is None or release is None:
        raise skip("bitsandbytes is not listed with a version")
    if facts.platform.system != "Windows":
        raise skip("not a Windows environment")
    if release >= (0, 43):
        raise skip(f"bitsandbytes {dist.version} ships Windows CUDA binaries")
    yield Finding(
        code="paste.bitsandbytes-platform",
        severity=Severity.WARNING,
        summary=f"bitsandbytes {dist.version} has no CUDA binaries for Windows (they start with 0.43.0)",
        detail=(f"observed: bitsandbytes {dist.version} on Windows\n"
                "required: bitsandbytes 0.43.0 or newer for CUDA on Windows (bitsandbytes' release notes); older "
                "releases load their CPU library there."),
        fix=Fix("Upgrade bitsandbytes.", ("pip install -U bitsandbytes",)),
        links=("https://github.com/bitsandbytes-foundation/bitsandbytes/releases/tag/0.43.0",),
        evidence=("packages", "platform"),
    )


CHECKS = [flash_attn_gpu, bitsandbytes_platform]
