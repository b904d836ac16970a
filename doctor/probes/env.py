"""Environment probe: the variables that matter to CUDA and torch, secrets masked, and CUDA entries of PATH."""

from __future__ import annotations

import os
import re
from typing import Mapping, Optional, Tuple

from gpudoctor.facts import EnvFacts
from gpudoctor.secretnames import is_secret_name

KNOWN = frozenset(
    {
        "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT",
        "CUDA_LAUNCH_BLOCKING", "CUDA_CACHE_DISABLE", "CUDA_CACHE_PATH", "CUDA_CACHE_MAXSIZE",
        "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT", "CUDA_MPS_PIPE_DIRECTORY",
        "LD_LIBRARY_PATH", "LD_PRELOAD", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
        "NVIDIA_REQUIRE_CUDA", "TORCH_CUDA_ARCH_LIST", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
        "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME",
    }
)
PREFIXES = ("CUDA_PATH_V", "TORCHVISION_", "PYTORCH_", "TORCH_")
_CUDA_ENTRY = re.compile(r"cuda|nvidia", re.IGNORECASE)


def is_known(name: str) -> bool:
    upper = name.upper()
    return upper in KNOWN or upper.startswith(PREFIXES)


def is_secret(name: str) -> bool:
    return is_secret_name(name)


def probe_env(environ: Optional[Mapping[str, str]] = None) -> EnvFacts:
    """The known variables in name order (secret-looking names as "set") and PATH's CUDA/NVIDIA entries."""
    env = os.environ if environ is None else environ
    variables: Tuple[Tuple[str, str], ...] = tuple(
        (name, "set" if is_secret(name) else env[name]) for name in sorted(env) if is_known(name)
    )
    entries = [e for e in env.get("PATH", "").split(os.pathsep) if e and _CUDA_ENTRY.search(e)]
    return EnvFacts(variables=variables, path_cuda_entries=tuple(dict.fromkeys(entries)))
