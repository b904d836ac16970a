"""flash-attn's findings: a GPU outside its kernels, or a CUDA or torch older than its release line asks for."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from gpudoctor.checks.support.paste_layers import gpu_capabilities
from gpudoctor.compat.base import Confidence, Version, version_tuple
from gpudoctor.compat.flash_attn import (
    BLACKWELL_BUILD_CUDA, BLACKWELL_CONFIDENCE, BLACKWELL_MAJORS, BLACKWELL_SOURCE, BLACKWELL_SOURCE_SINCE,
    BLACKWELL_WHEEL_SINCE, FLASH_LINES, FlashLine, blackwell_kernels,
)
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity

CODE = "paste.flash-attn-gpu"
LINK = "https://github.com/Dao-AILab/flash-attention#installation-and-features"
SDPA = "transformers: attn_implementation=\"sdpa\"; many trainers: --flash_attn false"


def _dotted(version: Version) -> str:
    return ".".join(str(part) for part in version)


def _sm(cc: Tuple[int, int]) -> str:
    return f"sm_{cc[0]}{cc[1]}"


def severity(confidence: Confidence) -> Severity:
    """A finding that rests on an UNCONFIRMED row is a note, not a warning."""
    return Severity.INFO if confidence is Confidence.UNCONFIRMED else Severity.WARNING


def marked(confidence: Confidence, source: str) -> str:
    return f"(data: {confidence.value}, {source})"


def gpu_findings(name: str, version: str, line: FlashLine, facts: Facts, signed: bool,
                 fa3: bool = False) -> Iterator[Finding]:
    """GPUs below the line's oldest architecture, and Blackwell GPUs a release has no kernels for."""
    gpus = gpu_capabilities(facts)
    old = [(gpu, cc) for gpu, cc in gpus if cc < line.min_cc]
    if old and not signed:
        listing = ", ".join(f"{gpu} ({_sm(cc)})" for gpu, cc in old)
        turing = line.since >= (2, 0, 0) and all(cc >= (7, 5) for _gpu, cc in old) and not fa3
        pin = "; on Turing, flash-attn 1.x still runs: pip install \"flash-attn<2\"" if turing else ""
        yield Finding(
            code=CODE, severity=severity(line.confidence),
            summary=f"{name} {version} needs {_sm(line.min_cc)} or newer; it cannot run on {listing}",
            detail=(f"observed: {name} {version}; {listing}\n"
                    f"required: compute capability {line.min_cc[0]}.{line.min_cc[1]} or newer for {name} "
                    f"{line.label} {marked(line.confidence, line.source)}. torch itself runs on this GPU; only code "
                    "that selects FlashAttention fails."),
            fix=Fix(f"Turn FlashAttention off for this GPU ({SDPA}) or run on a GPU it supports{pin}.",
                    (f"pip uninstall -y {name}",)),
            links=(LINK,), evidence=("packages", "gpus"),
        )
    kind = None if fa3 else blackwell_kernels(version)
    blackwell = [(gpu, cc) for gpu, cc in gpus if cc[0] in BLACKWELL_MAJORS]
    if not blackwell or kind in (None, "wheel"):
        return
    listing = ", ".join(f"{gpu} ({_sm(cc)})" for gpu, cc in blackwell)
    if kind == "none":
        summary = f"{name} {version} has no kernels for {listing}: Blackwell support starts with 2.7.3"
        why = (f"no build of {name} {version} has sm_100 or sm_120 kernels or PTX; they start with "
               f"{_dotted(BLACKWELL_SOURCE_SINCE)} built with CUDA {_dotted(BLACKWELL_BUILD_CUDA)} or newer, "
               f"and with the prebuilt wheels of {_dotted(BLACKWELL_WHEEL_SINCE)}")
    else:
        nvcc = facts.toolkit.nvcc_version
        built = f" (nvcc here: {nvcc})" if nvcc else ""
        summary = (f"the prebuilt wheels of {name} {version} have no kernels for {listing}; only a source build "
                   f"with CUDA {_dotted(BLACKWELL_BUILD_CUDA)} or newer does")
        why = (f"{name} {version} compiles sm_100 and sm_120 only with CUDA {_dotted(BLACKWELL_BUILD_CUDA)} or "
               f"newer{built}, and its prebuilt wheels were built with an older CUDA")
    yield Finding(
        code=CODE, severity=severity(BLACKWELL_CONFIDENCE), summary=summary,
        detail=(f"observed: {name} {version}; {listing}\n"
                f"required: {why} {marked(BLACKWELL_CONFIDENCE, BLACKWELL_SOURCE)}."),
        fix=Fix(f"Install flash-attn {_dotted(BLACKWELL_WHEEL_SINCE)} or newer (a build with Blackwell kernels), "
                f"or turn FlashAttention off ({SDPA}).",
                (f"pip install -U \"flash-attn>={_dotted(BLACKWELL_WHEEL_SINCE)}\" --no-build-isolation",)),
        links=(LINK,), evidence=("packages", "gpus"),
    )


def _fitting_pin(cuda: Optional[Version], torch: Optional[Version]) -> Optional[FlashLine]:
    """The newest flash-attn 1.x/2.x line whose CUDA and torch minimums the environment meets."""
    fits = [line for line in FLASH_LINES[:-1]
            if (cuda is None or line.min_cuda <= cuda) and (torch is None or line.min_torch is None
                                                             or line.min_torch <= torch)]
    return fits[-1] if fits else None


def build_findings(name: str, version: str, line: FlashLine, facts: Facts, fa3: bool = False) -> Iterator[Finding]:
    """torch's CUDA or torch itself older than the line asks for."""
    cuda = version_tuple(facts.torch.cuda)
    torch = version_tuple((facts.torch.version or "").split("+")[0]) if facts.torch.version else None
    short: List[str] = []
    if cuda is not None and cuda[:2] < line.min_cuda:
        short.append(f"CUDA {_dotted(line.min_cuda)} or newer (torch here is built with CUDA {facts.torch.cuda})")
    if torch is not None and line.min_torch is not None and torch[:2] < line.min_torch:
        short.append(f"PyTorch {_dotted(line.min_torch)} or newer (torch here is {facts.torch.version})")
    if not short:
        return
    pin = None if fa3 else _fitting_pin(cuda, torch)
    pin_text = (f" or keep this torch and pin flash-attn to the {pin.label} line "
                f"(pip install \"flash-attn<{_dotted(pin.until)}\" --no-build-isolation)"
                if pin is not None and pin.until is not None and pin is not line else "")
    yield Finding(
        code=CODE, severity=severity(line.confidence),
        summary=f"{name} {version} needs {' and '.join(part.split(' (')[0] for part in short)}",
        detail=(f"observed: {name} {version}; torch {facts.torch.version or '?'} with CUDA {facts.torch.cuda or '?'}\n"
                f"required: {'; '.join(short)} for {name} {line.label} {marked(line.confidence, line.source)}. "
                "flash-attn's kernels are built against torch's CUDA; an older one has no prebuilt wheel and its "
                "source build stops or fails."),
        fix=Fix(f"Install a torch that meets it{pin_text}, or turn FlashAttention off ({SDPA}).",
                ("python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",)),
        links=(LINK,), evidence=("packages", "torch.version", "torch.cuda"),
    )
