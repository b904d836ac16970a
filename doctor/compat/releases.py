"""PyTorch releases: torchvision/torchaudio pairings, Python ranges, CUDA and ROCm variants, index URLs."""

from __future__ import annotations

import re
from typing import Optional, Tuple

from gpudoctor.compat.base import C, S, U, normalise_variant
from gpudoctor.compat.release_model import PY, Pairing, Release, _p, _r
from gpudoctor.compat.releases_history import HISTORIC_RELEASES

__all__ = ["PY", "Pairing", "Release", "RELEASES", "HISTORIC_RELEASES", "ALL_RELEASES"]

_AUDIO_STABLE = "torchaudio 2.11 is built against the stable ABI and supports torch 2.11 and later"

# Newest first.
RELEASES: Tuple[Release, ...] = (
    _r("2.15", "0.29", "2.11", "3.11-3.15", "cu130 cu132", "cu132", "",
       (_p("2.15.0 0.29.2 2.11.0", ta_conf=U,
           note="torchvision 0.29.2 (released with 2.15.0) requires torch>=2.14.0"),),
       ("no cu126: no Maxwell, Pascal or Volta wheels from 2.15 on (RFC #190385)",
        "PyPI Linux wheel is +cu132 (cuda-toolkit 13.2.2, cuDNN 9.26.0.51); aarch64 too",
        "cu130 variant SECONDARY", "ROCm variants of 2.15 not known",
        f"torchaudio for 2.15: UNCONFIRMED ({_AUDIO_STABLE}); no torchaudio on the cu132 index"),
       "3.10-3.15", arm="cu132"),
    _r("2.14", "0.29", "2.11", "3.10-3.14", "cu126 cu130 cu132", "cu130", "rocm7.2 rocm7.14",
       (_p("2.14.0 0.29.0 2.11.0", ta_conf=U, note="torchvision 0.29.0 pins torch==2.14.0"),
        _p("2.14.1 0.29.1 2.11.0", C, U, note="torchvision 0.29.1 requires torch>=2.14.0")),
       ("3.15 only on nightly/test builds", "RFC #190355 had proposed CUDA 13.2 as the PyPI default",
        f"torchaudio for 2.14: UNCONFIRMED ({_AUDIO_STABLE})", "ROCm 7.14 as written in the sources",
        "aarch64 PyPI wheel: CUDA 13.0 for 2.14.1 (CONFIRMED), 2.14.0 UNCONFIRMED"), arm="cu130"),
    _r("2.13", "0.28", "2.11", "3.10-3.14", "cu126 cu129 cu130 cu132", "cu130", "rocm7.1 rocm7.2",
       (_p("2.13.0 0.28.0 2.11.0", ta_conf=U, note="torchvision 0.28.0 pins torch==2.13.0"),),
       ("3.15/3.15t torch-only preview wheels", "cu129 wheels for Linux x86_64 and aarch64, not Windows",
        "2.13.0 cu130 shipped compute_120 PTX by mistake",
        f"torchaudio for 2.13: UNCONFIRMED ({_AUDIO_STABLE})", "aarch64 PyPI wheel CUDA 13: UNCONFIRMED"),
       "3.10-3.14", arm="cu130"),
    _r("2.12", "0.27", "2.11", "3.10-3.14", "cu126 cu129 cu130 cu132", "cu130", "rocm7.1 rocm7.2",
       (_p("2.12.0 0.27.0 2.11.0"), _p("2.12.1 0.27.1 2.11.0")),
       ("cu128 removed", "cu129 wheels from 2.12.1 on (Linux x86_64 and aarch64)", _AUDIO_STABLE,
        "aarch64 PyPI wheel CUDA 13: UNCONFIRMED"), "3.10-3.14", arm="cu130", since=(("cu129", "2.12.1"),)),
    _r("2.11", "0.26", "2.11", "3.10-3.14", "cu126 cu128 cu129 cu130", "cu130", "rocm7.1 rocm7.2",
       (_p("2.11.0 0.26.0 2.11.0"),),
       ("PyPI default cu130 (cuda-toolkit 13.0.2, cuDNN 9.19.0.56; the wheel's metadata)",
        "aarch64 PyPI wheel: CUDA 13.0 (the wheel's metadata)", "cu129 wheels for Linux x86_64 and aarch64"),
       "3.10-3.14", arm="cu130"),
    _r("2.10", "0.25", "2.10", "3.10-3.14", "cu126 cu128 cu129 cu130", "cu128", "rocm7.0 rocm7.1",
       (_p("2.10.0 0.25.0 2.10.0"),), vision_python="3.10-3.14"),
    _r("2.9", "0.24", "2.9", "3.10-3.14", "cu126 cu128 cu129 cu130", "cu128", "rocm6.3 rocm6.4",
       (_p("2.9.0 0.24.0 2.9.0"), _p("2.9.1 0.24.1 2.9.1")), vision_python="3.10-3.14"),
    _r("2.8", "0.23", "2.8", "3.9-3.13", "cu126 cu128 cu129", "cu128", "rocm6.3 rocm6.4",
       (_p("2.8.0 0.23.0 2.8.0"),), vision_python="3.9-3.13"),
    _r("2.7", "0.22", "2.7", "3.9-3.13", "cu118 cu126 cu128", "cu126", "rocm6.2.4 rocm6.3",
       (_p("2.7.0 0.22.0 2.7.0"), _p("2.7.1 0.22.1 2.7.1")), vision_python="3.9-3.13"),
    _r("2.6", "0.21", "2.6", "3.9-3.13", "cu118 cu124 cu126", "cu124", "rocm6.1 rocm6.2.4",
       (_p("2.6.0 0.21.0 2.6.0"),), vision_python="3.9-3.12"),
    _r("2.5", "0.20", "2.5", "3.9-3.12", "cu118 cu121 cu124", "cu124", "rocm6.1 rocm6.2",
       (_p("2.5.0 0.20.0 2.5.0"), _p("2.5.1 0.20.1 2.5.1")), ("Python 3.13 experimental",), "3.9-3.12"),
    _r("2.4", "0.19", "2.4", "3.8-3.12", "cu118 cu121 cu124", "cu121", "rocm6.0 rocm6.1",
       (_p("2.4.0 0.19.0 2.4.0"), _p("2.4.1 0.19.1 2.4.1")),
       ("Windows: torch 2.4.0 fbgemm.dll fails to load (WinError 126); fixed in 2.4.1",), "3.8-3.12"),
    _r("2.3", "0.18", "2.3", "3.8-3.12", "cu118 cu121", "cu121", "rocm5.7 rocm6.0",
       (_p("2.3.0 0.18.0 2.3.0"), _p("2.3.1 0.18.1 2.3.1")), vision_python="3.8-3.12"),
    _r("2.2", "0.17", "2.2", "3.8-3.12", "cu118 cu121", "cu121", "rocm5.6 rocm5.7",
       (_p("2.2.0 0.17.0 2.2.0"), _p("2.2.1 0.17.1 2.2.1"), _p("2.2.2 0.17.2 2.2.2")),
       ("Python 3.12 experimental",), "3.8-3.11"),
    _r("2.1", "0.16", "2.1", "3.8-3.11", "cu118 cu121", "cu121", "rocm5.5 rocm5.6",
       (_p("2.1.0 0.16.0 2.1.0"), _p("2.1.1 0.16.1 2.1.1"), _p("2.1.2 0.16.2 2.1.2")), vision_python="3.8-3.11"),
    _r("2.0", "0.15", "2.0", "3.8-3.11", "cu117 cu118", "cu117", "rocm5.4.2",
       (_p("2.0.0 0.15.1 2.0.1"), _p("2.0.1 0.15.2 2.0.2")), vision_python="3.8-3.11"),
    _r("1.13", "0.14", "0.13", "3.7-3.10", "cu116 cu117", "cu117", "rocm5.2",
       (_p("1.13.0 0.14.0 0.13.0"), _p("1.13.1 0.14.1 0.13.1")), vision_python="3.7-3.10"),
    _r("1.12", "0.13", "0.12", "3.7-3.10", "cu102 cu113 cu116", "cu102", "rocm5.1.1",
       (_p("1.12.0 0.13.0 0.12.0"), _p("1.12.1 0.13.1 0.12.1")), vision_python="3.7-3.10"),
    _r("1.11", "0.12", "0.11", "3.7-3.10", "cu102 cu113 cu115", "cu102", "rocm4.5.2",
       (_p("1.11.0 0.12.0 0.11.0"),), ("pip cu115 wheels UNCONFIRMED",), "3.7-3.10"),
    _r("1.10", "0.11", "0.10", "3.6-3.9", "cu102 cu111 cu113", "cu102", "rocm4.0.1 rocm4.1 rocm4.2",
       (_p("1.10.0 0.11.1 0.10.0", also=("0.11.0",)), _p("1.10.1 0.11.2 0.10.1"),
        _p("1.10.2 0.11.3 0.10.2", S, note="from a README-derived copy")),
       ("pip cu113 wheels UNCONFIRMED",), "3.6-3.9"),
    _r("1.9", "0.10", "0.9", "3.6-3.9", "cu102 cu111", "cu102", "rocm4.0.1 rocm4.1 rocm4.2",
       (_p("1.9.0 0.10.0 0.9.0"), _p("1.9.1 0.10.1 0.9.1")), vision_python="3.6-3.9"),
)

# Every release the tables know, newest first: RELEASES (what may be recommended) and the historic rows (1.0-1.8),
# which judge pasted reports of old environments only.
ALL_RELEASES: Tuple[Release, ...] = RELEASES + HISTORIC_RELEASES
_BY_MINOR = {r.minor: r for r in ALL_RELEASES}
_PRE = re.compile(r"(a|b|rc|dev|alpha|beta)\d*", re.IGNORECASE)


def split_local_version(version: str) -> Tuple[str, Optional[str]]:
    """ "2.6.0+cu126" -> ("2.6.0", "cu126"); "2.6.0" -> ("2.6.0", None)."""
    text = (version or "").strip()
    public, sep, local = text.partition("+")
    return public, (local if sep and local else None)


def _numbers(version: Optional[str]) -> Optional[Tuple[int, ...]]:
    if not isinstance(version, str):
        return None
    public, _ = split_local_version(version)
    match = re.match(r"^v?(\d+)\.(\d+)(?:\.(\d+))?", public)
    if not match:
        return None
    parts = [int(match.group(1)), int(match.group(2))]
    if match.group(3) is not None:
        parts.append(int(match.group(3)))
    return tuple(parts)


def _is_prerelease(version: str) -> bool:
    public, _ = split_local_version(version)
    return bool(_PRE.search(re.sub(r"^v?[\d.]+", "", public)))


def release_for_torch(version: Optional[str]) -> Optional[Release]:
    """The matrix row for a torch version ("2.6.0+cu126", "2.6", "2.6.0a0+git...") or None when unknown."""
    parts = _numbers(version)
    if parts is None:
        return None
    return _BY_MINOR.get(f"{parts[0]}.{parts[1]}")


def pairing(torch_version: Optional[str]) -> Optional[Pairing]:
    """The torchvision/torchaudio pairing of a torch release; unknown 2.x patches follow the 0.(minor+15) rule."""
    parts = _numbers(torch_version)
    release = release_for_torch(torch_version)
    if parts is None or release is None or _is_prerelease(torch_version or ""):
        return None
    public = ".".join(str(p) for p in (parts if len(parts) == 3 else parts + (0,)))
    for item in release.patches:
        if item.torch == public:
            return item
    if parts[0] == 2 and parts[1] >= 15:  # the 0.(minor+15) rule ended: 0.29.x serves torch 2.14 and 2.15
        latest = release.latest
        return Pairing(public, latest.torchvision, latest.torchaudio, U, U, note=(
            f"not in the release table; the newest torchvision known for torch {release.minor} "
            f"({latest.torchvision}), as its Requires-Dist allows"), inferred=True)
    if parts[0] == 2 and parts[1] >= 1:
        audio = release.latest.torchaudio if parts[1] >= 12 else public
        return Pairing(public, f"0.{parts[1] + 15}.{public.split('.')[2]}", audio, U, U,
                       note="not in the release table; torchvision inferred from the 0.(minor+15).patch rule",
                       inferred=True)
    return None


def matching_torchvision(torch_version: Optional[str]) -> Optional[str]:
    """The torchvision released with a torch version: "2.6.0" -> "0.21.0", "2.12.1" -> "0.27.1"."""
    found = pairing(torch_version)
    return found.torchvision if found else None


def matching_torchaudio(torch_version: Optional[str]) -> Optional[str]:
    """The torchaudio to install with a torch version ("2.12.1" -> "2.11.0", the stable-ABI build)."""
    found = pairing(torch_version)
    return found.torchaudio if found else None


def torch_for_torchvision(torchvision_version: Optional[str]) -> Optional[str]:
    """The torch a torchvision version was made for: "0.21.0" -> "2.6.0", "0.15.1" -> "2.0.0"."""
    parts = _numbers(torchvision_version)
    if parts is None or parts[0] != 0:
        return None
    public = ".".join(str(p) for p in (parts if len(parts) == 3 else parts + (0,)))
    for release in ALL_RELEASES:
        for item in release.patches:
            if item.torchvision == public or public in item.also:
                return item.torch
    if 16 <= parts[1] <= 29:  # the rule held up to torchvision 0.29 / torch 2.14
        candidate = f"2.{parts[1] - 15}.{public.split('.')[2]}"
        if release_for_torch(candidate) is not None:
            return candidate
    return None


# download.pytorch.org indexes that carry torchaudio 2.11.0 (the stable-ABI build every torch from 2.11 uses);
# none on cu132 (pytorch/pytorch#183336, SECONDARY). Older torchaudio releases follow torch's variants.
_AUDIO_VARIANTS = {"2.11.0": ("cpu", "cu126", "cu128", "cu130")}


def torchaudio_published(torchaudio: Optional[str], variant: Optional[str]) -> Optional[bool]:
    """Whether a torchaudio release has a wheel on a variant's index; None when the table does not say."""
    if not torchaudio or not variant:
        return None
    known = _AUDIO_VARIANTS.get(split_local_version(torchaudio)[0])
    if known is None:
        return None
    return (normalise_variant(variant) or "") in known


# torchvision's own Requires-Dist on torch where it is not an exact pin (read from the wheels' metadata):
# the stable-ABI builds serve every torch from their first one on.
_TORCHVISION_REQUIRES = {"0.29.1": ">=2.14.0", "0.29.2": ">=2.14.0"}


def torchvision_requirement(torchvision_version: Optional[str]) -> Optional[str]:
    """The torch requirement a torchvision release declares (">=2.14.0" for 0.29.2), where it is recorded."""
    if not torchvision_version:
        return None
    return _TORCHVISION_REQUIRES.get(split_local_version(torchvision_version)[0])


def index_url(variant: str) -> str:
    """The download.pytorch.org index of a variant: "cu126" -> "https://download.pytorch.org/whl/cu126"."""
    text = normalise_variant(variant)
    if text is None:
        raise ValueError(f"not a PyTorch wheel variant: {variant!r}")
    return f"https://download.pytorch.org/whl/{text}"


def python_supported_by(python_version: Optional[str]) -> Tuple[Release, ...]:
    """The recommendable releases (not the historic ones) whose torch wheels cover this Python, newest first."""
    return tuple(r for r in RELEASES if r.supports_python(python_version))
