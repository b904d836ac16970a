"""The cuDNN each official torch wheel ships or pins, in torch.backends.cudnn.version() form."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from gpudoctor.compat.base import C, Confidence, S, U, normalise_variant
from gpudoctor.compat.releases import release_for_torch, split_local_version

_BUILDER = "pytorch/builder common/install_cuda.sh"
_RELEASE_MD = "pytorch/pytorch RELEASE.md compatibility matrix (verbatim third-party copy)"

# (torch minors, variants, cudnn.version(), confidence, source)
_ROWS: Tuple[Tuple[str, str, int, Confidence, str], ...] = (
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
    return _TABLE.get((release.minor, chosen))


def bundled_cudnn(torch_version: Optional[str], variant: Optional[str] = None) -> Optional[int]:
    """The cuDNN an official wheel uses, as torch.backends.cudnn.version() prints it ("2.6.0", "cu126" -> 90501).

    ``variant`` None takes the local part of the version ("2.6.0+cu126"); None when unknown.
    """
    found = bundled_cudnn_info(torch_version, variant)
    return found[0] if found else None


def cudnn_version_text(value: int) -> str:
    """90501 -> "9.5.1", 8902 -> "8.9.2" (the encoding changed from *1000 to *10000 with cuDNN 9)."""
    if value >= 90000:
        return f"{value // 10000}.{value // 100 % 100}.{value % 100}"
    return f"{value // 1000}.{value // 100 % 10}.{value % 100}"
