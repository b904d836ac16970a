"""Which layer refuses the GPU when a paste says "no kernel image" but torch itself has kernels for every GPU."""

from __future__ import annotations

from typing import List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity

CC = Tuple[int, int]

# Distributions that ship CUDA kernels of their own, compiled for a list of GPU architectures of their own.
KERNEL_LIBRARIES = ("vllm", "sglang", "sgl-kernel", "flashinfer-python", "flashinfer", "xformers", "flash-attn",
                    "bitsandbytes", "mmcv", "mmcv-full", "detectron2", "deepspeed", "apex", "llama-cpp-python",
                    "auto-gptq", "autoawq", "causal-conv1d", "mamba-ssm", "gsplat", "pytorch3d", "spconv")


def _gpus(facts: Facts) -> List[Tuple[str, CC]]:
    """Each GPU's label and compute capability, read from the paste or looked up from its name."""
    out = []
    for gpu in facts.gpus:
        cc = gpu.compute_capability or (compat.gpu_cc_from_name(gpu.name) if gpu.name else None)
        if cc:
            out.append((gpu.name or f"GPU {gpu.index}", cc))
    return out


def gpu_capabilities(facts: Facts) -> List[Tuple[str, CC]]:
    """Each GPU's label and compute capability, where the paste gives or names it."""
    return _gpus(facts)


def torch_serves_every_gpu(facts: Facts) -> bool:
    """torch's own arch list has a native kernel (not just PTX) for every GPU in the paste, and there is one."""
    torch = facts.torch
    if torch.cuda_compiled is False or torch.hip or not torch.arch_flags:
        return False
    gpus = _gpus(facts)
    driver_cuda = facts.driver.cuda_version or compat.driver_cuda_version(facts.driver.version)
    for _, cc in gpus:
        support = compat.arch_support(torch.arch_flags, cc, driver_cuda, torch.cuda)
        if not support.supported or support.via_ptx:
            return False
    return bool(gpus)


def _libraries(facts: Facts) -> List[str]:
    found = [(name, facts.package(name)) for name in KERNEL_LIBRARIES]
    return [f"{name} {dist.version}".strip() for name, dist in found if dist is not None]


def kernel_layer(facts: Facts, quoted: Optional[str]) -> Finding:
    """'no kernel image' from a library's own kernels: torch runs on this GPU, the library was not built for it."""
    name, cc = _gpus(facts)[0]
    sm = f"sm_{cc[0]}{cc[1]}"
    libraries = _libraries(facts)
    where = (f"a library with kernels of its own: {', '.join(libraries)}" if libraries else
             "a library or CUDA extension with kernels of its own (the paste does not show which)")
    version = facts.torch.version or "torch"
    looked_up = " (torch's list was looked up from its version)" if facts.is_inferred("torch.arch_flags") else ""
    return Finding(
        code="paste.no-kernel-image",
        severity=Severity.ERROR,
        summary=f"torch {version} has {sm} kernels for the {name}, so the missing kernel image is in {where}",
        detail="\n".join(part for part in (
            quoted or "",
            f"torch's architecture list covers {sm}{looked_up}; \"no kernel image is available\" then comes from "
            "code compiled outside torch, for a list of GPUs that leaves this one out.",
        ) if part),
        fix=Fix(f"Install a build of that library made for {sm} (its release notes list the GPUs it supports), "
                f"or build it from source for this GPU (TORCH_CUDA_ARCH_LIST=\"{cc[0]}.{cc[1]}\"); torch itself "
                "needs no change.",
                ("pip list",
                 'python -c "import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())"')),
        evidence=("extra", "torch.arch_flags", "gpus", "packages"),
    )
