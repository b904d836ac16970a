"""bitsandbytes' findings: no CUDA library for torch's CUDA, or a GPU older than the library it loads has kernels for."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from gpudoctor.checks.support.paste_flash import marked, severity
from gpudoctor.checks.support.paste_layers import gpu_capabilities
from gpudoctor.compat import bitsandbytes as bnb
from gpudoctor.compat.base import Confidence, version_tuple
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity

CODE = "paste.bitsandbytes-gpu"
LINK = "https://huggingface.co/docs/bitsandbytes/main/en/installation"
CudaXY = Tuple[int, int]


def _xy(cuda: CudaXY) -> str:
    return f"{cuda[0]}.{cuda[1]}"


def _first_covering(cuda: CudaXY, after: bnb.CudaBuilds) -> Optional[bnb.CudaBuilds]:
    later = [row for row in bnb.CUDA_BUILDS if row.since > after.since]
    return next((row for row in later if bnb.library_for(row, cuda) is not None), None)


def _override(facts: Facts) -> Optional[CudaXY]:
    value = facts.env.get("BNB_CUDA_VERSION") or ""
    match = re.fullmatch(r"(\d+)(\d)", value.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def findings(version: str, facts: Facts) -> Iterator[Finding]:
    """The CUDA library bitsandbytes would load for torch's CUDA, then the GPUs that library and release cover."""
    torch_cuda = version_tuple(facts.torch.cuda)
    cuda: Optional[CudaXY] = (torch_cuda[0], torch_cuda[1]) if torch_cuda and len(torch_cuda) >= 2 else None
    aarch64 = (facts.platform.machine or "").lower() in ("aarch64", "arm64")
    builds = bnb.cuda_builds(version)
    library = _override(facts) or cuda
    if builds is not None and cuda is not None and _override(facts) is None and not aarch64:
        library = bnb.library_for(builds, cuda)
        if library is None:
            yield _no_library(version, cuda, builds)
            return
    floors = bnb.gpu_floors(version, library, aarch64)
    gpus = gpu_capabilities(facts)
    tegra = [(gpu, cc) for gpu, cc in gpus if cc in _TEGRA]
    if aarch64 and tegra:
        yield _tegra(version, tegra)
        return
    for floor in floors:
        old = [(gpu, cc) for gpu, cc in gpus if cc < floor.floor]
        if old:
            yield _too_old(version, old, floor, library, bnb.cuda_limit(version, min(cc for _gpu, cc in old)))
            return
    slow = [(gpu, cc) for gpu, cc in gpus if cc < bnb.INT8_FLOOR]
    if slow and floors:
        floor = floors[0]
        listing = ", ".join(f"{gpu} (sm_{cc[0]}{cc[1]})" for gpu, cc in slow)
        yield Finding(
            code=CODE, severity=Severity.INFO,
            summary=f"LLM.int8() (load_in_8bit) of bitsandbytes needs compute capability 7.5; {listing} is older",
            detail=(f"observed: bitsandbytes {version}; {listing}\n"
                    f"required: 7.5 (Turing) for LLM.int8(); 8-bit optimizers and 4-bit NF4/FP4 need "
                    f"{floor.floor[0]}.{floor.floor[1]} {marked(floor.confidence, bnb.INT8_SOURCE)}."),
            fix=Fix("Load the model in 4-bit (load_in_4bit=True, NF4) instead of load_in_8bit on this GPU."),
            links=(LINK,), evidence=("packages", "gpus"),
        )


# Jetson (Tegra) GPUs run only kernels built for exactly their architecture: sm_80/86 code does not run on sm_87
_TEGRA = frozenset({(5, 3), (6, 2), (7, 2), (8, 7)})
_TEGRA_SOURCE = ("torch's DEVICE_REQUIREMENT table (Tegra parts run only their own cubins) and "
                 "bitsandbytes-foundation/bitsandbytes#1930 (the PyPI aarch64 wheels have no sm_87)")


def _tegra(version: str, tegra: List[Tuple[str, Tuple[int, int]]]) -> Finding:
    listing = ", ".join(f"{gpu} (sm_{cc[0]}{cc[1]})" for gpu, cc in tegra)
    return Finding(
        code=CODE, severity=Severity.WARNING,
        summary=f"bitsandbytes {version}'s aarch64 wheels are built for server ARM GPUs and have no kernels for the "
                f"Jetson's integrated GPU: {listing}",
        detail=(f"observed: bitsandbytes {version} on aarch64 with {listing}\nrequired: kernels built for exactly "
                f"that architecture; a Jetson GPU cannot run kernels built for sm_80/sm_86 "
                f"{marked(Confidence.SECONDARY, _TEGRA_SOURCE)}. It fails at the first kernel launch "
                "(\"named symbol not found\")."),
        fix=Fix("Build bitsandbytes from source on the Jetson for its architecture (cmake -DCOMPUTE_BACKEND=cuda "
                "-DCOMPUTE_CAPABILITY=87), or use a jetson-containers image that ships it built for the board."),
        links=(LINK,), evidence=("packages", "gpus", "platform.machine"),
    )


def _no_library(version: str, cuda: CudaXY, builds: bnb.CudaBuilds) -> Finding:
    shipped = ", ".join(_xy(c) for c in builds.cudas)
    rule = ("a library of the same CUDA major" if builds.same_major_fallback
            else f"a library for exactly CUDA {_xy(cuda)} (this release does not fall back to another minor)")
    later = _first_covering(cuda, builds)
    upgrade = (f"Upgrade to bitsandbytes {'.'.join(map(str, later.since))} or newer, whose wheels cover CUDA "
               f"{_xy(cuda)}; or install" if later else "Install")
    return Finding(
        code=CODE, severity=severity(builds.confidence),
        summary=f"bitsandbytes {version} has no CUDA library for torch's CUDA {_xy(cuda)} (it ships {shipped})",
        detail=(f"observed: bitsandbytes {version}; torch built with CUDA {_xy(cuda)}\n"
                f"required: {rule} {marked(builds.confidence, builds.source)}. bitsandbytes picks its library by "
                "torch.version.cuda; without one it fails on its first GPU call ('CUDA Setup failed' / "
                "'Could not find the bitsandbytes CUDA binary')."),
        fix=Fix(f"{upgrade} a torch built with a CUDA it ships, or set BNB_CUDA_VERSION to a shipped version whose "
                "CUDA runtime is installed.",
                (f"pip install -U \"bitsandbytes>={'.'.join(map(str, later.since))}\"" if later
                 else "python -m bitsandbytes",)),
        links=(LINK,), evidence=("packages", "torch.cuda"),
    )


def _too_old(version: str, old: List[Tuple[str, Tuple[int, int]]], floor: bnb.GpuFloor,
             library: Optional[CudaXY], below: Optional[CudaXY]) -> Finding:
    listing = ", ".join(f"{gpu} (sm_{cc[0]}{cc[1]})" for gpu, cc in old)
    sm = f"sm_{floor.floor[0]}{floor.floor[1]}"
    verb = "start"
    if floor.cuda_from is not None and library is not None and below is not None:
        verb = "starts"
        scope = f"its CUDA {_xy(library)} library (the one torch's CUDA selects)"
        what = (f"Use a torch built with a CUDA older than {_xy(below)}: bitsandbytes then loads a library that "
                "still has kernels for this GPU; or build bitsandbytes from source for it.")
    elif floor.aarch64:
        scope = "its Linux aarch64 libraries"
        what = "Build bitsandbytes from source for this GPU (cmake -DCOMPUTE_CAPABILITY=...)."
    else:
        scope = "its PyPI libraries"
        what = ("Pin a bitsandbytes that still ships kernels for it (Maxwell: bitsandbytes<0.48) or build it from "
                "source for this GPU.")
    return Finding(
        code=CODE, severity=severity(floor.confidence),
        summary=f"bitsandbytes {version} has no kernels for {listing}: {scope} {verb} at {sm}",
        detail=(f"observed: bitsandbytes {version}; {listing}" + (f"; CUDA library {_xy(library)}" if library else "")
                + f"\nrequired: compute capability {floor.floor[0]}.{floor.floor[1]} or newer for {scope} "
                f"{marked(floor.confidence, floor.source)}. torch itself may run on this GPU; bitsandbytes' "
                "quantized layers and 8-bit optimizers do not."),
        fix=Fix(what, ("python -m bitsandbytes",)),
        links=(LINK,), evidence=("packages", "gpus", "torch.cuda"),
    )
