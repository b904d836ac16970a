"""Libraries with GPU kernels of their own (flash-attn, bitsandbytes, cuDNN), judged against what a report lists."""

from __future__ import annotations

import re
from typing import Iterator, Optional, Tuple

from gpudoctor.checks.support import paste_bnb
from gpudoctor.checks.support import paste_flash as flash
from gpudoctor import compat
from gpudoctor.compat import bitsandbytes as bnb
from gpudoctor.compat.base import Confidence
from gpudoctor.compat.cudnn import (
    STATIC_CUDNN_MINORS, STATIC_CUDNN_SOURCE, bundled_cudnn_info, cudnn_from_library, cudnn_version_text,
)
from gpudoctor.compat.releases import split_local_version
from gpudoctor.checks.support.paste_layers import gpu_capabilities
from gpudoctor.checks.support.paste_notes import quoted
from gpudoctor.compat.flash_attn import FA3_NAMES, flash_line
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

_RELEASE = re.compile(r"^\s*v?(\d+)\.(\d+)")


def _release(version: Optional[str]) -> Optional[Tuple[int, int]]:
    m = _RELEASE.match(version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


_FLASH_SIGNED = "flash-attn-needs-ampere"  # the paste's own message; paste.errors names it then


@check("paste.flash-attn-gpu", "flash-attn against the GPUs, CUDA and torch it would run with")
def flash_attn_gpu(facts: Facts) -> Iterator[Finding]:
    fa3 = next((d for d in (facts.package(n) for n in FA3_NAMES) if d is not None), None)
    dist = facts.package("flash-attn") or facts.package("flash_attn") or fa3
    line = flash_line(dist.version, fa3=dist is fa3) if dist else None
    if dist is None or _release(dist.version) is None:
        raise skip("flash-attn is not listed with a version")
    if line is None:
        raise skip(f"flash-attn {dist.version}: no requirements known for this series")
    if facts.torch.hip:
        raise skip("torch is a ROCm build; flash-attn's ROCm backend is not judged")
    signed = any(k == "paste.signature" and v == _FLASH_SIGNED for k, v in facts.extra)
    found = [*flash.gpu_findings(dist.name, dist.version, line, facts, signed, fa3=dist is fa3),
             *flash.build_findings(dist.name, dist.version, line, facts, fa3=dist is fa3)]
    if not found:
        if signed:
            raise skip("the paste's own flash-attn message is named by paste.errors")
        if not gpu_capabilities(facts) and facts.torch.cuda is None:
            raise skip("no GPU with a known compute capability and no torch CUDA version in the input")
        raise skip(f"flash-attn {dist.version} ({line.label}) fits the GPUs, CUDA and torch listed")
    yield from found


_BNB_SIGNED = "bitsandbytes-without-gpu"  # bitsandbytes' own "compiled without GPU support" / no CUDA runtime


def _bitsandbytes_on_macos(facts: Facts, version: str) -> Finding:
    """bitsandbytes on a Mac: its CUDA kernels do not exist there, whatever release is installed."""
    said = quoted(facts, _BNB_SIGNED)
    label = f"bitsandbytes {version}" if version else "bitsandbytes"
    return Finding(
        code="paste.bitsandbytes-platform",
        severity=Severity.WARNING,
        summary=f"{label} runs on macOS, where it has no CUDA library: only its CPU library loads, so 8-bit "
                "optimizers and GPU quantisation are unavailable",
        detail="\n".join(part for part in (
            said or "",
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
    release = bnb.release(dist.version if dist else None)
    if dist is None or release is None:
        raise skip("bitsandbytes is not listed with a version")
    if facts.torch.hip:
        if release >= bnb.ROCM_SINCE:
            raise skip(f"bitsandbytes {dist.version} ships ROCm libraries")
        yield Finding(
            code="paste.bitsandbytes-platform",
            severity=flash.severity(bnb.ROCM_CONFIDENCE),
            summary=f"bitsandbytes {dist.version} from PyPI has no ROCm library (the wheels carry one from 0.49.0)",
            detail=(f"observed: bitsandbytes {dist.version} with torch {facts.torch.version or '?'} "
                    f"(ROCm {facts.torch.hip})\nrequired: bitsandbytes 0.49.0 or newer for ROCm from PyPI "
                    f"{flash.marked(bnb.ROCM_CONFIDENCE, bnb.ROCM_SOURCE)}; older releases need a ROCm build from "
                    "source."),
            fix=Fix("Upgrade bitsandbytes.", ('pip install -U "bitsandbytes>=0.49.0"',)),
            links=("https://huggingface.co/docs/bitsandbytes/main/en/installation",),
            evidence=("packages", "torch.hip"),
        )
        return
    if facts.platform.system != "Windows":
        raise skip("not a Windows environment, and torch is not a ROCm build")
    if release >= bnb.WINDOWS_SINCE:
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


@check("paste.bitsandbytes-gpu", "bitsandbytes' CUDA libraries against torch's CUDA and the GPUs")
def bitsandbytes_gpu(facts: Facts) -> Iterator[Finding]:
    dist = facts.package("bitsandbytes")
    if dist is None or bnb.release(dist.version) is None:
        raise skip("bitsandbytes is not listed with a version")
    if facts.torch.hip or facts.platform.system == "Darwin":
        raise skip("not a CUDA build of torch")
    if facts.platform.system == "Windows" and (bnb.release(dist.version) or ()) < bnb.WINDOWS_SINCE:
        raise skip("no Windows CUDA libraries at all: paste.bitsandbytes-platform says so")
    found = list(paste_bnb.findings(dist.version, facts))
    if not found:
        raise skip(f"bitsandbytes {dist.version} has a CUDA library and kernels for what the input lists")
    yield from found


@check("paste.system-cudnn", "A system cuDNN beside the cuDNN linked into torch's wheel")
def system_cudnn(facts: Facts) -> Iterator[Finding]:
    listed = dict(facts.extra).get("collect_env.system_cudnn")
    torch, cuda = facts.torch.version, facts.torch.cuda
    if not listed:
        raise skip("the input lists no system cuDNN")
    if not torch or not cuda or facts.torch.hip:
        raise skip("no CUDA build of torch with a version is listed")
    if facts.platform.torch_from_conda or any(k == "conda.pytorch" for k, _v in facts.extra):
        raise skip("torch came from conda, whose builds carry the cuDNN of their build string")
    if facts.platform.system not in (None, "Linux"):
        raise skip("only the Linux wheels' cuDNN linking is known")
    public, local = split_local_version(torch)
    variant = local or f"cu{cuda.replace('.', '')}"
    if local is None and compat.default_variant(public, "Linux", facts.platform.machine or "x86_64") != variant:
        raise skip(f"torch {torch} with CUDA {cuda} is not the PyPI build of its release")
    release, info = compat.release_for_torch(public), bundled_cudnn_info(public, variant)
    if release is None or info is None:
        raise skip(f"no cuDNN is known for the {variant} wheel of torch {public}")
    if release.minor not in STATIC_CUDNN_MINORS:
        raise skip(f"torch {public} loads its cuDNN at run time; libs.shadowed judges which one it loads")
    paths = [(cudnn_from_library(p), p) for p in listed.split("; ")]
    known = sorted((v, p) for v, p in paths if v is not None)
    if not known:
        raise skip("the system cuDNN's version is not in its file name")
    (system, path), (bundled, confidence, source) = known[-1], info
    if system == bundled:
        raise skip(f"the system cuDNN is the same {cudnn_version_text(system)} torch carries")
    relation = "older than" if system < bundled else "newer than"
    hedge = " (UNCONFIRMED which cuDNN this wheel carries)" if confidence is Confidence.UNCONFIRMED else ""
    yield Finding(
        code="paste.system-cudnn", severity=Severity.INFO,
        summary=(f"torch {torch} runs the cuDNN {cudnn_version_text(bundled)} linked into its wheel{hedge}; the "
                 f"system's cuDNN {cudnn_version_text(system)} is {relation} it, and torch never loads it"),
        detail=(f"observed: cuDNN {cudnn_version_text(system)} at {path}; torch {torch} (the {variant} wheel)\n"
                f"required: nothing for torch: its Linux wheels up to 1.10 link cuDNN statically "
                f"({STATIC_CUDNN_SOURCE}), and this one carries cuDNN {cudnn_version_text(bundled)} "
                f"{flash.marked(confidence, source)}. Only software built against the system cuDNN (a source build "
                "of torch, TensorFlow, a CUDA extension that links it) uses that one."),
        fix=Fix("Nothing to change for torch: do not upgrade or remove the system cuDNN on its account. To see the "
                "cuDNN torch runs:", ('python -c "import torch; print(torch.backends.cudnn.version())"',)),
        evidence=("extra", "torch.version", "torch.cuda"),
    )


CHECKS = [flash_attn_gpu, bitsandbytes_platform, bitsandbytes_gpu, system_cudnn]
