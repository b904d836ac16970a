"""The cuDNN each official torch wheel ships or pins, in torch.backends.cudnn.version() form."""

from __future__ import annotations

import re
from typing import Dict, Optional, Tuple

from gpudoctor.compat.base import C, Confidence, S, U, normalise_variant
from gpudoctor.compat.releases import release_for_torch, split_local_version

_BUILDER = "pytorch/builder common/install_cuda.sh"
_RELEASE_MD = "pytorch/pytorch RELEASE.md compatibility matrix (verbatim third-party copy)"
_LTS18 = "pytorch/builder lts/release/1.8 common/install_cuda.sh"
_MANYWHEEL = "pytorch/builder manywheel/Dockerfile_{} at the {} release date"
_INSTALL_AT = "pytorch/builder common/install_cuda.sh at the {} release date"
_CONDA = "; the pytorch conda build of {} says cudnn{}"

# (torch minors, variants, cudnn.version(), confidence, source)
# Rows up to 1.8 read the builder scripts as they stood on the release date (no release branch exists before
# lts/release/1.8), so they are SECONDARY: the docker image a release was built in may predate the script.
_ROWS: Tuple[Tuple[str, str, int, Confidence, str], ...] = (
    ("1.0", "cu80", 7102, S, _MANYWHEEL.format("80", "1.0.0") + " (cudnn v7.1.2)"),
    ("1.1", "cu90 cu100", 7501, S, "pytorch/builder manywheel/Dockerfile_90 and _100 (libcudnn7 7.5.1.10, "
     "'update dockerfiles with latest CuDNN', the day before 1.1.0)" + _CONDA.format("1.1.0", "7.5.1")),
    ("1.2", "cu92 cu100", 7602, S, _MANYWHEEL.format("92 and _100", "1.2.0") + " (libcudnn7 7.6.2.24)"
     + _CONDA.format("1.2.0", "7.6.2")),
    ("1.3 1.4", "cu92 cu100 cu101", 7603, S, _INSTALL_AT.format("1.3.0 and 1.4.0") + " (libcudnn7 7.6.3.30)"
     + _CONDA.format("1.3.0 and 1.4.0", "7.6.3")),
    ("1.5 1.6 1.7", "cu92 cu101", 7603, S, _INSTALL_AT.format("1.5.0 to 1.7.1") + " (libcudnn7 7.6.3.30)"),
    ("1.5 1.6 1.7", "cu102", 7605, S, _INSTALL_AT.format("1.5.0 to 1.7.1") + " (libcudnn7 7.6.5.32)"
     + _CONDA.format("1.5.0 and 1.6.0", "7.6.5")),
    ("1.7", "cu110", 8003, U, "the pytorch conda build of 1.7.0 says cudnn8.0.3, while pytorch/builder "
     "common/install_cuda.sh moved to 8.0.4.30 two weeks before 1.7.0; 1.7.1 is a row of its own"),
    ("1.8", "cu101", 7603, C, _LTS18 + " (libcudnn7 7.6.3.30)"),
    ("1.8", "cu102", 7605, C, _LTS18 + " (libcudnn7 7.6.5.32)"),
    ("1.8", "cu111", 8005, C, _LTS18 + " (cudnn-11.1-linux-x64-v8.0.5.39)"),
    ("1.9 1.10 1.11 1.12", "cu102", 7605, C, _BUILDER),
    ("1.9 1.10 1.11", "cu111", 8005, C, _BUILDER),
    ("1.9 1.10 1.11", "cu113", 8200, C, _BUILDER),
    ("1.11", "cu115", 8302, S, "moi90 conda table (cuda11.5_cudnn8.3.2)"),
    ("1.12 1.13", "cu113 cu115 cu116", 8302, C, _BUILDER + "; RELEASE.md"),
    ("1.13 2.0", "cu117", 8500, C, _BUILDER + "; wheel METADATA nvidia-cudnn-cu11==8.5.0.96"),
    ("2.0 2.1 2.2 2.3", "cu118", 8700, C, _BUILDER + "; RELEASE.md"),
    ("2.1 2.2 2.3", "cu121", 8902, C, _BUILDER + "; RELEASE.md"),
    ("2.4 2.5", "cu118 cu121 cu124", 90100, C, "pytorch/builder release/2.4 CUDNN_VERSION=9.1.0.70"),
    ("2.6", "cu118 cu124", 90100, S, _RELEASE_MD),
    ("2.6", "cu126", 90501, S, _RELEASE_MD),
    ("2.7", "cu118", 90100, S, _RELEASE_MD),
    ("2.7", "cu126", 90501, S, _RELEASE_MD),
    ("2.7", "cu128", 90701, S, _RELEASE_MD),
    ("2.8", "cu126 cu128 cu129", 91002, S, _RELEASE_MD),
    ("2.9", "cu126 cu128", 91002, S, _RELEASE_MD),
    ("2.9", "cu130", 91300, S, _RELEASE_MD),
    ("2.10", "cu126 cu128", 91002, S, _RELEASE_MD),
    ("2.10", "cu130", 91501, S, _RELEASE_MD),
    ("2.11", "cu126", 91002, S, _RELEASE_MD),
    ("2.11", "cu128", 91701, S, _RELEASE_MD),
    ("2.11", "cu130", 91900, C, "the PyPI 2.11.0 wheel pins nvidia-cudnn-cu13==9.19.0.56"),
    ("2.12 2.13", "cu126", 91002, S, _RELEASE_MD),
    ("2.12 2.13", "cu130 cu132", 92000, S, _RELEASE_MD),
    ("2.14", "cu126", 91002, S, _RELEASE_MD),
    ("2.14", "cu130 cu132", 92400, C, _RELEASE_MD + "; the 2.14.1+cu130 wheel pins nvidia-cudnn-cu13==9.24.0.43"),
    ("2.15", "cu132", 92600, C, "the PyPI 2.15.0 wheel pins nvidia-cudnn-cu13==9.26.0.51"),
    ("2.15", "cu130", 92600, U, "as cu132 of 2.15"),
)

# Patch releases that were built with another cuDNN than the rest of their minor.
_PATCH_ROWS: Tuple[Tuple[str, str, int, Confidence, str], ...] = (
    ("1.0.0", "cu90 cu100", 7401, S, _MANYWHEEL.format("90 and _100", "1.0.0") + " (libcudnn7 7.4.1.5)"
     + _CONDA.format("1.0.0", "7.4.1")),
    ("1.0.1", "cu90 cu100", 7402, S, "pytorch/builder manywheel/Dockerfile_90 and _100 of 'new wheels', four days "
     "before 1.0.1 (libcudnn7 7.4.2.24)"),
    ("1.7.1", "cu110", 8005, S, "pytorch/builder common/install_cuda.sh from 2020-11-11 (cudnn 8.0.5.39)"
     + _CONDA.format("1.7.1", "8.0.5")),
)

# Linux wheels link cuDNN into libtorch (manywheel/build.sh: USE_STATIC_CUDNN=1, never set to 0) up to 1.10, so
# a cuDNN elsewhere on the system is never the one torch runs (pytorch/builder at the 1.0.0 to 1.8.0 release
# dates, release/1.9 and release/1.10; release/1.11 links it dynamically for one CUDA version).
STATIC_CUDNN_MINORS = tuple(f"1.{minor}" for minor in range(0, 11))
STATIC_CUDNN_SOURCE = "pytorch/builder manywheel/build.sh (USE_STATIC_CUDNN=1) at 1.0.0 to 1.8.0, release/1.9, 1.10"

_PATCHES: Dict[Tuple[str, str], Tuple[int, Confidence, str]] = {
    (patch, variant): (version, conf, source)
    for patch, variants, version, conf, source in _PATCH_ROWS
    for variant in variants.split()
}

_TABLE: Dict[Tuple[str, str], Tuple[int, Confidence, str]] = {
    (minor, variant): (version, conf, source)
    for minors, variants, version, conf, source in _ROWS
    for minor in minors.split()
    for variant in variants.split()
}


def bundled_cudnn_info(torch_version: Optional[str],
                       variant: Optional[str] = None) -> Optional[Tuple[int, Confidence, str]]:
    """(cudnn.version(), confidence, source) for an official wheel; None when unknown, CPU or ROCm."""
    public, local = split_local_version(torch_version or "")
    release = release_for_torch(public)
    chosen = normalise_variant(variant or local)
    if release is None or chosen is None:
        return None
    exact = _PATCHES.get((public.strip(), chosen))
    return exact if exact is not None else _TABLE.get((release.minor, chosen))


def bundled_cudnn(torch_version: Optional[str], variant: Optional[str] = None) -> Optional[int]:
    """The cuDNN an official wheel uses, as torch.backends.cudnn.version() prints it ("2.6.0", "cu126" -> 90501).

    ``variant`` None takes the local part of the version ("2.6.0+cu126"); None when unknown.
    """
    found = bundled_cudnn_info(torch_version, variant)
    return found[0] if found else None


def cudnn_from_library(path: str) -> Optional[int]:
    """The cuDNN a library file names, in version() form: ".../libcudnn.so.7.0.5" -> 7005; None otherwise."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    match = re.fullmatch(r"libcudnn\.so\.(\d+)\.(\d+)\.(\d+)", name.strip())
    if not match:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major * 10000 + minor * 100 + patch if major >= 9 else major * 1000 + minor * 100 + patch


def cudnn_version_text(value: int) -> str:
    """90501 -> "9.5.1", 8902 -> "8.9.2" (the encoding changed from *1000 to *10000 with cuDNN 9)."""
    if value >= 90000:
        return f"{value // 10000}.{value // 100 % 100}.{value % 100}"
    return f"{value // 1000}.{value // 100 % 10}.{value % 100}"
