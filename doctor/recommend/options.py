"""Ways forward besides an official wheel: a CPU build, a source build for exact GPUs, a conda build for Kepler."""

from __future__ import annotations

from typing import Optional

from gpudoctor.compat.arch import source_build_toolkits
from gpudoctor.compat.base import S, U, major_minor, variant_cuda
from gpudoctor.compat.cc import format_cc
from gpudoctor.compat.drivers import driver_can_run, driver_requirement
from gpudoctor.recommend.recommendation import Option, pip_keeps
from gpudoctor.compat.releases import RELEASES, Release
from gpudoctor.recommend.plan import Step
from gpudoctor.recommend.search import Machine, install_plan


def cpu_option(target: Machine, current: Optional[str], vision: bool, audio: bool) -> Optional[Option]:
    """The newest CPU-only build for this Python."""
    fitting = [r for r in RELEASES if r.supports_python(target.python) is not False]
    if not fitting:
        return None
    pair = fitting[0].latest
    plan = install_plan(pair.torch, pair.torchvision if vision else None, pair.torchaudio if audio else None, "cpu",
                        pip_keeps(current, pair.torch, "cpu"), target.python)
    return Option(f"Or run on the CPU only: torch {pair.torch}+cpu.", plan)


def _build_release(toolkit: str) -> Optional[Release]:
    """The newest release that builds against this CUDA toolkit (it ships a variant of that major, not newer)."""
    want = major_minor(toolkit)
    for release in RELEASES:
        for variant in release.cuda_variants:
            have = major_minor(variant_cuda(variant))
            if want and have and have[0] == want[0] and have <= want:
                return release
    return None


def source_build_option(target: Machine) -> Option:
    """Build torch from source for exactly these GPUs."""
    ccs = sorted(set(target.gpus))
    arch = ";".join(format_cc(cc) for cc in ccs)
    span = source_build_toolkits(ccs)
    if span is None:
        return Option(f"No single CUDA toolkit compiles for all of {', '.join(format_cc(c) for c in ccs)}: "
                      "use one environment per GPU generation.", confidence=S)
    lo, hi = span
    toolkit = hi or lo
    release = _build_release(toolkit)
    if release is None:
        return Option(f"No PyTorch release in the tables builds with CUDA {toolkit}, the newest toolkit for "
                      f"{arch}.", confidence=U)
    torch = release.latest.torch
    home = (f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{toolkit}" if target.system == "Windows"
            else f"/usr/local/cuda-{toolkit}")
    env = (Step(env=("TORCH_CUDA_ARCH_LIST", arch)), Step(env=("CUDA_HOME", home)))
    steps = (Step(("git", "clone", "--recursive", "--branch", f"v{torch}", "https://github.com/pytorch/pytorch")),
             Step(("cd", "pytorch")), Step(("install", "-r", "requirements.txt"), pip=True),
             *env, Step(("install", "--no-build-isolation", "-v", "."), pip=True))
    toolkits = f"CUDA {lo} to {hi}" if hi and hi != lo else f"CUDA {toolkit}" + ("" if hi else " or newer")
    text = (f"Or build torch {torch} from source for {arch} with the CUDA {toolkit} toolkit ({toolkits} compiles "
            f"for these GPUs); torch {torch} supports Python {release.python_text}, and the build takes hours.")
    confidence = S
    if any(cc < (3, 5) for cc in ccs):
        text += (" PyTorch dropped CC 3.0 in 0.4.1 and its kernels use __shfl (CC 3.5+), so this build may not "
                 "compile or run.")
        confidence = U
    elif any(cc in ((3, 5), (3, 7)) for cc in ccs):
        text += (" cuDNN 8.9+ needs CC 5.0: set torch.backends.cudnn.enabled = False if convolutions fail "
                 "(CUDNN_STATUS_ARCH_MISMATCH).")
    elif any(cc < (7, 5) for cc in ccs):
        text += " Use cuDNN 9.10 or older: cuDNN 9.11+ dropped GPUs below CC 7.5."
    if target.driver and driver_can_run(target.driver, toolkit, target.system) is False:
        req = driver_requirement(toolkit, target.system)
        text += f" CUDA {toolkit} also needs a driver >= {req.minimum if req else 'newer than this one'}."
    return Option(text, steps=steps, confidence=confidence)


def conda_kepler_option(target: Machine) -> Optional[Option]:
    """For CC 3.5 on Linux x86_64: the last conda build that still shipped sm_35 kernels."""
    if (target.system, target.machine) != ("Linux", "x86_64") or (3, 5) not in target.gpus:
        return None
    if not all((3, 5) <= cc <= (7, 5) for cc in target.gpus):
        return None
    text = ("Or use the pytorch conda channel's torch 1.12.1 cu102 build, which still has sm_35 kernels "
            "(SECONDARY: conda package listings); it needs a driver >= 440.33.")
    if target.driver and driver_can_run(target.driver, "10.2", target.system) is False:
        text += " This driver is older than that."
    return Option(text, steps=(Step(("conda", "create", "-n", "torch-sm35", "-c", "pytorch", "python=3.10",
                                     "pytorch=1.12.1", "torchvision=0.13.1", "cudatoolkit=10.2")),), confidence=S)
