"""Whether a CUDA build of torch can use the NVIDIA GPU the machine has: the symptom every cause ends in.

The other checks name why CUDA cannot work (an old driver, a CPU wheel, a hidden device...). This one states the
observation itself, so that an environment where torch reports CUDA unavailable is never summarised as healthy
even when no other check finds the reason; when another check does, ``gpudoctor.causes`` counts the two as one.
"""

from __future__ import annotations

from typing import Iterator, List

from gpudoctor.checks import packages as pk
from gpudoctor.checks.platform import nvidia_present
from gpudoctor.checks.support.paste_notes import inferred_why
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, need, skip

_INIT = 'python -c "import torch; torch.cuda.init(); print(torch.cuda.device_count())"'
_DEBUG_LINKS = ("https://pytorch.org/docs/stable/notes/cuda.html",)


def _gpus(facts: Facts) -> str:
    names = sorted({g.name for g in facts.gpus if g.name})
    count = len(facts.gpus) or (facts.driver.gpu_count or 0)
    label = f"{count} NVIDIA GPU{'' if count == 1 else 's'}" if count else "an NVIDIA GPU"
    return label + (f" ({', '.join(names)})" if names else "")


@check("torch.cuda", "torch starts CUDA on the NVIDIA GPU")
def torch_cuda(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    pk.require_torch(facts)
    if t.import_error or t.crashed or t.timed_out:
        raise skip("torch does not import, so whether it can use the GPU was not asked")
    if t.hip or t.cuda_compiled is False or not t.cuda:
        raise skip("torch is not a CUDA build (the torch check judges which build it is)")
    if facts.platform.system == "Darwin":
        raise skip("macOS has no CUDA")
    if not nvidia_present(facts):
        raise skip("no NVIDIA GPU is known on this machine")
    available = need(t.is_available, "torch.is_available", "whether torch.cuda.is_available() is True was not recorded")
    version = pk.torch_version(facts) or "(unknown version)"
    if available:
        count = t.device_count
        yield Finding(
            "torch.cuda-ok", Severity.INFO,
            f"torch {version} sees {count if count is not None else 'the'} CUDA device{'' if count == 1 else 's'}",
            evidence=("torch.is_available", "torch.device_count"),
            short=f"{count} device{'' if count == 1 else 's'}" if count is not None else "available",
        )
        return
    said: List[str] = [f"Observed: torch.cuda.is_available() is False with torch {version}, a CUDA {t.cuda} build, "
                       f"on a machine with {_gpus(facts)}"
                       + (f" and driver {facts.driver.version}" if facts.driver.version else "") + "."]
    said.append("Required: a CUDA build, a loaded driver new enough for it and a visible GPU give True.")
    built = inferred_why(facts, "torch.cuda")
    if built:
        said.append(f"That it is a CUDA build is inferred, not observed: {built}.")
    if t.init_error:
        said.append(f"torch said when CUDA started: {t.init_error.strip()[:2000]}")
    else:
        said.append("The input does not show the error CUDA gave when it started; the commands below print it.")
    yield Finding(
        "torch.cuda-unavailable", Severity.ERROR,
        f"torch {version} is a CUDA {t.cuda} build, yet torch.cuda.is_available() is False on a machine with "
        f"{_gpus(facts)}",
        "\n".join(said),
        Fix("Start CUDA by hand to see its own error, and run the full check in the same environment; the error "
            "names the layer (driver, device nodes, visible devices, container).",
            (_INIT, "nvidia-smi", "gpudoctor check -v")),
        _DEBUG_LINKS, ("torch.is_available", "torch.cuda", "gpus", "torch.init_error"),
        inferred=bool(built),
    )


CHECKS = [torch_cuda]
