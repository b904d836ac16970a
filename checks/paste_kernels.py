"""Attention-kernel libraries of serving engines (FlashInfer) against the GPUs a report lists."""

from __future__ import annotations

from typing import Iterator

from gpudoctor.checks.support.paste_layers import gpu_capabilities
from gpudoctor.compat.base import Confidence
from gpudoctor.compat.flashinfer import flashinfer_range
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

_NAMES = ("flashinfer", "flashinfer-python")
_LINK = "https://docs.flashinfer.ai/installation.html"
_AVOID = ("sglang: --attention-backend triton (older releases: --disable-flashinfer --disable-flashinfer-sampling); "
          "vLLM: VLLM_ATTENTION_BACKEND=XFORMERS or FLASH_ATTN where the GPU allows")


@check("paste.flashinfer-gpu", "FlashInfer against the GPUs it would run on")
def flashinfer_gpu(facts: Facts) -> Iterator[Finding]:
    dist = next((d for d in (facts.package(n) for n in _NAMES) if d is not None and d.version), None)
    if dist is None:
        raise skip("FlashInfer is not listed with a version")
    bounds = flashinfer_range(dist.version)
    if bounds is None:
        raise skip(f"flashinfer {dist.version}: the GPUs of this release are not in the data")
    gpus = gpu_capabilities(facts)
    if not gpus:
        raise skip("no GPU with a known compute capability in the input")
    low = [(label, cc) for label, cc in gpus if cc < bounds.oldest]
    if not low:
        return
    oldest = f"sm_{bounds.oldest[0]}{bounds.oldest[1]}"
    names = ", ".join(f"{label} (sm_{cc[0]}{cc[1]})" for label, cc in low)
    yield Finding(
        code="paste.flashinfer-gpu",
        severity=Severity.INFO if bounds.confidence is Confidence.UNCONFIRMED else Severity.WARNING,
        summary=f"flashinfer {dist.version} has no attention kernels for {names}: it supports {oldest} and newer; "
                "torch itself can use the GPU",
        detail=f"Observed: flashinfer {dist.version} with {names}. Required: a GPU of {oldest} or newer for this "
               f"release (data: {bounds.confidence.value}, {bounds.source}).",
        fix=Fix("Run the serving engine with another attention backend on this GPU: " + _AVOID + ".", ()),
        links=(_LINK,),
        evidence=("packages", "gpus"),
    )


CHECKS = [flashinfer_gpu]
