"""The CUDA toolkit: which files and wheels hold its libraries, the CUDA majors of torch and those wheels, and the nvcc check."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from gpudoctor import compat, plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks import packages as pk
from gpudoctor.facts import Distribution, Facts
from gpudoctor.model import Finding, Severity
from gpudoctor.registry import check, need, skip

LINKS = ("https://docs.pytorch.org/docs/stable/cpp_extension.html", "https://developer.nvidia.com/cuda-toolkit-archive")
# (file name prefix without "lib", lower case; what it is; the nvidia-<component> wheel that ships it)
_LIBRARIES = (
    ("cudnn", "cuDNN", "cudnn"), ("cublaslt", "cuBLAS", "cublas"), ("cublas", "cuBLAS", "cublas"),
    ("nccl", "NCCL", "nccl"), ("cudart", "the CUDA runtime", "cuda-runtime"), ("nvrtc", "NVRTC", "cuda-nvrtc"),
    ("cufft", "cuFFT", "cufft"), ("curand", "cuRAND", "curand"), ("cusolver", "cuSOLVER", "cusolver"),
    ("cusparselt", "cuSPARSELt", "cusparselt"), ("cusparse", "cuSPARSE", "cusparse"),
    ("nvjitlink", "nvJitLink", "nvjitlink"), ("cupti", "CUPTI", "cuda-cupti"), ("nvtoolsext", "NVTX", "nvtx"),
    ("nvtx3interop", "NVTX", "nvtx"), ("cufile", "cuFile", "cufile"), ("nvshmem", "NVSHMEM", "nvshmem"),
)
# cuda-toolkit[extra] -> the nvidia wheel it installs; from CUDA 13 these wheels have no -cuNN suffix
TOOLKIT_EXTRAS = {
    "cublas": "nvidia-cublas", "cudart": "nvidia-cuda-runtime", "cufft": "nvidia-cufft", "cufile": "nvidia-cufile",
    "cupti": "nvidia-cuda-cupti", "curand": "nvidia-curand", "cusolver": "nvidia-cusolver",
    "cusparse": "nvidia-cusparse", "nvjitlink": "nvidia-nvjitlink", "nvrtc": "nvidia-cuda-nvrtc", "nvtx": "nvidia-nvtx",
}
# unsuffixed wheels whose version starts with their CUDA major (cufft 12.0 is CUDA 13's, so it is not here)
_TRACKS_CUDA = {
    "nvidia-cublas", "nvidia-cuda-runtime", "nvidia-cuda-nvrtc", "nvidia-cuda-cupti", "nvidia-nvtx", "nvidia-nvjitlink",
    "nvidia-cuda-nvcc", "nvidia-cuda-cccl", "nvidia-cuda-crt", "nvidia-nvvm", "nvidia-nvfatbin", "nvidia-nvptxcompiler",
    "nvidia-cuda-culibos", "nvidia-cuda-opencl", "nvidia-cuda-profiler-api", "nvidia-cuda-sanitizer-api",
    "nvidia-cuda-cuxxfilt", "nvidia-nvml-dev", "nvidia-npp", "nvidia-nvjpeg", "cuda-toolkit",
}


def basename(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


def dirname(path: str) -> str:
    return path[: max(path.rfind("/"), path.rfind("\\"))] if re.search(r"[\\/]", path) else ""


def library(path: str) -> Optional[Tuple[str, str]]:
    """(what it is, nvidia wheel component) for a CUDA library file name; None for libcuda and anything else."""
    base = basename(path).lower()
    base = base[3:] if base.startswith("lib") else base
    return next(((what, comp) for prefix, what, comp in _LIBRARIES if base.startswith(prefix)), None)


def wheel_for(component: str, major: int) -> str:
    unsuffixed = f"nvidia-{component}"
    return unsuffixed if major >= 13 and unsuffixed in TOOLKIT_EXTRAS.values() else f"{unsuffixed}-cu{major}"


def ships(wheel: str, component: str) -> bool:
    """Whether the distribution ``wheel`` is the nvidia wheel of ``component`` (any CUDA major)."""
    return re.fullmatch(rf"nvidia-{re.escape(component)}(-cu\d+)?", canonicalize_name(wheel)) is not None


def marker_env(facts: Facts, extra: str = "") -> Optional[Dict[str, str]]:
    """The PEP 508 marker values of the diagnosed interpreter; None when its operating system is unknown."""
    system = facts.platform.system
    if system is None:
        return None
    full = facts.platform.python_version or ""
    return {
        "platform_system": system, "os_name": "nt" if system == "Windows" else "posix",
        "sys_platform": {"Linux": "linux", "Windows": "win32", "Darwin": "darwin"}.get(system, system.lower()),
        "platform_machine": facts.platform.machine or "", "python_version": ".".join(full.split(".")[:2]),
        "python_full_version": full, "implementation_name": "cpython", "platform_python_implementation": "CPython",
        "extra": extra,
    }


def requirements(dist: Optional[Distribution], env: Optional[Dict[str, str]], extras: Tuple[str, ...] = ("",)) -> List[Requirement]:
    """The Requires-Dist entries of ``dist`` whose markers hold here for one of ``extras``."""
    found: List[Requirement] = []
    for line in dist.requires if dist else ():
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if req.url:
            continue
        if req.marker is None:
            found.append(req)
        elif env is not None:
            try:
                if any(req.marker.evaluate({**env, "extra": e}) for e in extras):
                    found.append(req)
            except Exception:  # noqa: BLE001 - a marker naming a variable we do not know
                continue
    return found


def wheel_cuda_major(name: str, version: str) -> Optional[int]:
    """The CUDA major of an nvidia-* or cuda-toolkit wheel (``-cu12`` suffix, or the version); None for others."""
    norm = canonicalize_name(name)
    suffixed = re.fullmatch(r"nvidia-[a-z0-9-]+?-cu(\d+)", norm)
    if suffixed:
        return int(suffixed.group(1))
    major = re.match(r"(\d+)\.", version)
    return int(major.group(1)) if norm in _TRACKS_CUDA and major else None


def torch_cuda(facts: Facts) -> Optional[Tuple[int, int]]:
    """The CUDA torch was built with: torch.version.cuda, else the +cuXYZ tag of its version."""
    found = _fix.cuda_major_minor(facts.torch.cuda)
    return found or _fix.cuda_major_minor(_fix.split_version(pk.torch_version(facts) or "")[1] or "")


def torch_cuda_major(facts: Facts) -> Optional[int]:
    """torch's CUDA major, also from its nvidia-*/cuda-toolkit requirements when the version has no tag."""
    found = torch_cuda(facts)
    if found:
        return found[0]
    for req in requirements(facts.package("torch"), marker_env(facts)):
        pinned = re.search(r"(\d+)\.", str(req.specifier))
        major = wheel_cuda_major(req.name, pinned.group(0) if pinned else "")
        if major is not None:
            return major
    return None


def conda_prefix(facts: Facts) -> Optional[str]:
    """The environment prefix when torch is a conda build: a conda env, no +tag, no nvidia-* requirements."""
    location, version = facts.torch.location, pk.torch_version(facts) or ""
    if not facts.platform.conda_env or not location or "+" in version or nvidia_requirements(facts):
        return None
    match = re.match(r"^(.*?)/(lib/python[\d.]+|Lib)/site-packages/torch/?$", location.replace("\\", "/"))
    return match.group(1) if match else None


def nvidia_requirements(facts: Facts) -> List[Tuple[Requirement, Optional[Distribution]]]:
    """torch's nvidia-* requirements that apply here (cuda-toolkit extras expanded), each with what is installed."""
    env = marker_env(facts)
    out: List[Tuple[Requirement, Optional[Distribution]]] = []
    for req in requirements(facts.package("torch"), env):
        name = canonicalize_name(req.name)
        if name.startswith("nvidia-") or name == "cuda-toolkit":
            out.append((req, facts.package(name)))
        if name == "cuda-toolkit":
            toolkit = facts.package(name)
            parts = requirements(toolkit, env, tuple(sorted(req.extras)))
            if not parts:
                wanted = [TOOLKIT_EXTRAS[e] for e in sorted(req.extras) if e in TOOLKIT_EXTRAS]
                parts = [Requirement(w) for w in wanted if not (w == "nvidia-cufile" and facts.platform.system == "Windows")]
            out.extend((Requirement(f"{p.name}{p.specifier}"), facts.package(p.name)) for p in parts)
    return out


def _toolkit_home(facts: Facts, cuda: str) -> str:
    if _fix.is_windows(facts):
        return f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{cuda}"
    return f"/usr/local/cuda-{cuda}"


def _torch_for(facts: Facts, cuda: Tuple[int, int]) -> Optional[str]:
    """The same torch release built for the toolkit's CUDA, when PyTorch published that variant."""
    version = pk.torch_version(facts)
    if not version:
        return None
    base = _fix.base_version(version)
    variant = f"cu{cuda[0]}{cuda[1]}"
    release = compat.release_for_torch(base)
    if release is None or release.historic or variant not in release.cuda_variants:
        return None  # a historic release is judged, never reinstalled
    return pk.release_set(facts, base, variant, force_reinstall=True)


@check("toolkit.mismatch", "CUDA toolkit (nvcc) vs torch's CUDA")
def mismatch(facts: Facts) -> Iterator[Finding]:
    tk = facts.toolkit
    if not tk.nvcc_path and not tk.nvcc_version:
        raise skip("no CUDA toolkit (nvcc) found; torch wheels carry their own CUDA runtime, so none is needed to run them")
    nvcc = need(_fix.cuda_major_minor(tk.nvcc_version), "toolkit.nvcc_version", "the nvcc version is not known")
    t = facts.torch
    pk.require_torch(facts)
    built = torch_cuda(facts)
    if built is None:
        if t.hip:
            raise skip("torch is a ROCm build; nvcc is not used for its extensions")
        if t.cuda_compiled is False or (t.version or "").endswith("+cpu"):
            raise skip("torch is a CPU build; its extensions build without CUDA")
        raise skip("the CUDA version torch was built with is not known")
    where = tk.nvcc_path or tk.cuda_home or "nvcc"
    found = "nvcc" + (f" at {where}" if where != "nvcc" else "") + (f" (from {tk.source})" if tk.source else "")
    have, want = _fix.format_cuda(nvcc), _fix.format_cuda(built)
    if nvcc == built:
        return
    if nvcc[0] == built[0]:
        yield Finding(
            "toolkit.mismatch", Severity.INFO,
            f"{found} is CUDA {have}; torch was built with CUDA {want} (same major: extension builds only warn)",
            f"Observed: CUDA {have}. Required for extension builds: CUDA {built[0]}.x; a minor difference is allowed.",
            evidence=("toolkit.nvcc_version", "torch.cuda"),
        )
        return
    home = _toolkit_home(facts, want)
    commands = [_cmd.export(facts, "CUDA_HOME", home) if plausible.path(home) else None]
    other = _torch_for(facts, nvcc)
    if other:
        commands.append(other)
    yield Finding(
        "toolkit.mismatch", Severity.WARNING,
        f"{found} is CUDA {have}, but torch was built with CUDA {want}: CUDA extensions will not build",
        f"Observed: CUDA {have}. Required: a CUDA {built[0]}.x toolkit. This matters only when something compiles CUDA "
        "code against torch (pip installing a package with CUDA kernels, torch.utils.cpp_extension): the build stops with "
        f"\"The detected CUDA version ({have}) mismatches the version that was used to compile PyTorch ({want})\". "
        "Running torch itself does not use this toolkit.",
        _cmd.fix(
            f"Point CUDA_HOME at a CUDA {want} toolkit (install it from NVIDIA's archive if {home} does not exist)"
            + (f", or install the torch build for CUDA {have}" if other else "")
            + "; then build with pip install --no-build-isolation so the build sees this torch.",
            commands, "Set CUDA_HOME to that toolkit's folder.",
        ),
        LINKS, ("toolkit.nvcc_version", "toolkit.nvcc_path", "torch.cuda"),
    )


CHECKS = [mismatch]
