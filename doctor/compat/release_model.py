"""The release-matrix row types: a torch minor release and the torchvision/torchaudio pairing of each patch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import C, Confidence, python_tuple

PY = Tuple[int, int]
_RELEASE_SOURCE = (
    "pytorch/test-infra release/X.Y generate_binary_build_matrix.py; pytorch.github.io previous-versions; "
    "pytorch/vision README table"
)


@dataclass(frozen=True)
class Pairing:
    """A torch patch release with the torchvision and torchaudio that belong to it."""

    torch: str
    torchvision: str
    torchaudio: Optional[str]
    confidence: Confidence = C  # of the torch <-> torchvision pairing
    torchaudio_confidence: Confidence = C
    also: Tuple[str, ...] = ()  # other torchvision versions made for this torch
    note: str = ""
    inferred: bool = False  # the pairing follows a rule rather than a published table


@dataclass(frozen=True)
class Release:
    """One row of the release matrix: a torch minor version and what was published for it."""

    minor: str  # "2.6"
    torchvision: str  # "0.21"
    torchaudio: str  # "2.6"
    python: Tuple[PY, PY]  # inclusive range of torch wheels, ((3, 9), (3, 13))
    cuda_variants: Tuple[str, ...]  # download.pytorch.org indexes with Linux x86_64 CUDA wheels
    pypi_default: str  # the variant `pip install torch` gets from PyPI on Linux x86_64
    rocm_variants: Tuple[str, ...]
    patches: Tuple[Pairing, ...]  # oldest first
    confidence: Confidence = C
    notes: Tuple[str, ...] = ()
    torchvision_python: Optional[Tuple[PY, PY]] = None  # torchvision README's own range
    source: str = _RELEASE_SOURCE
    aarch64_default: str = "cpu"  # what PyPI's Linux aarch64 wheel is: CPU-only before 2.11, CUDA 13 after
    # variants with Linux cu129 wheels only from a later patch release: {"cu129": "2.12.1"}
    variant_since: Tuple[Tuple[str, str], ...] = ()
    # kept to judge pasted reports of old environments; the recommender never installs it
    historic: bool = False

    @property
    def latest(self) -> Pairing:
        return self.patches[-1]

    def supports_python(self, python_version: Optional[str]) -> Optional[bool]:
        """True/False for a Python version ("3.11.4"); None when it cannot be parsed."""
        py = python_tuple(python_version)
        if py is None:
            return None
        return self.python[0] <= py <= self.python[1]

    @property
    def python_text(self) -> str:
        (a, b), (c, d) = self.python
        return f"{a}.{b}-{c}.{d}"


def _p(spec: str, conf: Confidence = C, ta_conf: Confidence = C, also: Tuple[str, ...] = (), note: str = "",
       inferred: bool = False) -> Pairing:
    torch, vision, audio = spec.split()
    return Pairing(torch, vision, None if audio == "-" else audio, conf, ta_conf, also, note, inferred)


def _r(minor: str, vision: str, audio: str, python: str, cuda: str, default: str, rocm: str,
       patches: Tuple[Pairing, ...], notes: Tuple[str, ...] = (), vision_python: str = "", arm: str = "cpu",
       since: Tuple[Tuple[str, str], ...] = (), conf: Confidence = C, historic: bool = False,
       source: str = _RELEASE_SOURCE) -> Release:
    lo, hi = python.split("-")

    def py(text: str) -> PY:
        major, minor_ = text.split(".")
        return (int(major), int(minor_))

    vp = None
    if vision_python:
        vlo, vhi = vision_python.split("-")
        vp = (py(vlo), py(vhi))
    return Release(minor, vision, audio, (py(lo), py(hi)), tuple(cuda.split()), default, tuple(rocm.split()),
                   patches, conf, notes, vp, source, arm, since, historic)
