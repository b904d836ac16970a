"""NVIDIA product names to compute capability, matched on whole name tokens with the most specific name winning."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from gpudoctor.compat.base import CC, C, Confidence, S, U

_NVIDIA = "NVIDIA CUDA GPUs and legacy CUDA GPUs pages (developer.nvidia.com/cuda-gpus)"
_COPIES = "copies of NVIDIA's older CUDA GPU list"
_EXTRA = "not in the reference tables; from the chip family"


@dataclass(frozen=True)
class GpuInfo:
    """What a product name says: its compute capability (None when the name is ambiguous) and how sure."""

    name: str  # the table's spelling of the product
    cc: Optional[CC]
    architecture: str
    confidence: Confidence
    source: str
    note: str = ""


# (cc, architecture, confidence, source, comma-separated product names). Brand words (NVIDIA, GeForce, Tesla,
# Quadro) are dropped before matching, so "Quadro RTX 8000" is "RTX 8000".
_TABLE: Tuple[Tuple[CC, str, Confidence, str, str], ...] = (
    ((3, 0), "Kepler", S, _COPIES,
     "GTX 690, GTX 680, GTX 670, GTX 660 Ti, GTX 660, GTX 650 Ti, GTX 650, GTX 770, GTX 760, GT 640M, GT 650M, "
     "GT 645M, GT 740M, GT 745M, GT 750M, GT 755M, K10, K5000, K4000, K2000, K600"),
    ((3, 0), "Kepler", U, _EXTRA, "GTX 680M, GTX 675MX, GTX 670MX, GTX 660M, GTX 780M, GTX 880M, GTX 770M, GTX 765M"),
    ((3, 2), "Kepler (Tegra K1)", U, _COPIES, "Jetson TK1, Tegra K1"),
    ((3, 5), "Kepler", S, _COPIES,
     "K40, K20, GTX TITAN, GTX TITAN Black, GTX TITAN Z, GTX 780, GTX 780 Ti, K6000, K5200"),
    ((3, 5), "Kepler", U, _EXTRA, "K20X, TITAN Black"),
    ((3, 7), "Kepler", S, _COPIES, "K80"),
    ((5, 0), "Maxwell", C, _NVIDIA,
     "GTX 750, GTX 750 Ti, GTX 960M, GTX 950M, 940M, 930M, 840M, K2200, K1200, K620, M2000M, M1000M"),
    ((5, 0), "Maxwell", U, _EXTRA, "GTX 850M, 940MX, 930MX, 830M, M600M, M500M"),
    ((5, 2), "Maxwell", C, _NVIDIA,
     "M60, M40, GTX TITAN X, GTX 980 Ti, GTX 980, GTX 970, GTX 960, GTX 950, M6000, M5000, M4000, M2000"),
    ((5, 2), "Maxwell", U, _EXTRA, "GTX 980M, GTX 970M, GTX 965M, M6, M4, M2200, M5000M, M4000M, M3000M"),
    ((5, 3), "Maxwell (Tegra X1)", C, _NVIDIA, "Jetson Nano, Jetson TX1, Tegra X1"),
    ((6, 0), "Pascal", C, _NVIDIA, "P100, GP100"),
    ((6, 1), "Pascal", C, _NVIDIA,
     "GTX 1080 Ti, GTX 1080, GTX 1070 Ti, GTX 1070, GTX 1060, GTX 1050 Ti, GTX 1050, TITAN Xp, TITAN X Pascal, "
     "P40, P4, P6000, P5000, P4000, P2200, P2000, P1000, P620, P600, P400"),
    ((6, 1), "Pascal", U, _EXTRA, "GT 1030, MX150, MX250, MX350, P5200, P4200, P3200, P6, P5000M"),
    ((6, 2), "Pascal (Tegra)", C, _NVIDIA, "Jetson TX2, TX2"),
    ((7, 0), "Volta", C, _NVIDIA, "V100, TITAN V, GV100"),
    ((7, 2), "Volta (Tegra)", C, _NVIDIA, "Jetson AGX Xavier, Xavier NX, Xavier"),
    ((7, 5), "Turing", C, _NVIDIA,
     "T4, RTX 2080 Ti, RTX 2080, RTX 2070, RTX 2060, TITAN RTX, RTX 8000, RTX 6000, RTX 5000, RTX 4000, "
     "T1000, T600, T400"),
    ((7, 5), "Turing", S, "a copy of NVIDIA's list", "GTX 1650 Ti"),
    ((7, 5), "Turing", U, "TU116/TU117; not in the sources read",
     "GTX 1660 Ti, GTX 1660 Super, GTX 1660, GTX 1650 Super, GTX 1650, GTX 1630, MX450, MX550, RTX 3000, "
     "T2000, T1200, T550, T500"),
    ((8, 0), "Ampere", C, _NVIDIA, "A100, A30"),
    ((8, 0), "Ampere", U, _EXTRA, "A800"),
    ((8, 6), "Ampere", C, _NVIDIA,
     "RTX 3090 Ti, RTX 3090, RTX 3080 Ti, RTX 3080, RTX 3070 Ti, RTX 3070, RTX 3060 Ti, RTX 3060, RTX 3050 Ti, "
     "RTX 3050, RTX A6000, RTX A5000, RTX A4000, RTX A2000, A40, A10, A16, A2"),
    ((8, 6), "Ampere", U, _EXTRA, "A10G, RTX A5500, RTX A4500, RTX A3000, RTX A1000, RTX A500, MX570"),
    ((8, 7), "Ampere (Tegra)", C, _NVIDIA, "Jetson AGX Orin, Orin NX, Orin Nano, Orin"),
    ((8, 9), "Ada Lovelace", C, _NVIDIA,
     "RTX 4090, RTX 4080, RTX 4070 Ti, RTX 4070, RTX 4060 Ti, RTX 4060, RTX 4050, RTX 6000 Ada, RTX 5000 Ada, "
     "RTX 4500 Ada, RTX 4000 Ada, RTX 2000 Ada, L4, L40, L40S"),
    ((8, 9), "Ada Lovelace", U, _EXTRA, "RTX 4000 SFF Ada, RTX 3500 Ada, L20"),
    ((9, 0), "Hopper", C, _NVIDIA, "H100, H200, GH200"),
    ((9, 0), "Hopper", U, _EXTRA, "H800, H20"),
    ((10, 0), "Blackwell", C, _NVIDIA, "B200, GB200"),
    ((10, 3), "Blackwell Ultra", C, _NVIDIA, "B300, GB300"),
    ((11, 0), "Blackwell (Jetson Thor)", C, _NVIDIA, "Jetson T5000, Jetson T4000, Thor"),
    ((12, 0), "Blackwell", C, _NVIDIA,
     "RTX 5090, RTX 5080, RTX 5070 Ti, RTX 5070, RTX 5060 Ti, RTX 5060, RTX 5050, RTX PRO 6000, RTX PRO 5000, "
     "RTX PRO 4500, RTX PRO 4000, RTX PRO 2000"),
    ((12, 1), "Blackwell (GB10)", C, _NVIDIA, "GB10"),
)

# Names shared by chips of different compute capability.
_AMBIGUOUS: Tuple[Tuple[str, str], ...] = (
    ("GT 730", "GT 730 was sold as Fermi (2.1), Kepler GK107 (3.0) and Kepler GK208 (3.5)"),
    ("GT 640", "GT 640 was sold as Fermi (2.1), Kepler GK107 (3.0) and Kepler GK208 (3.5)"),
    ("GT 630", "GT 630 was sold as Fermi (2.1) and Kepler (3.0, 3.5)"),
    ("GT 710", "GT 710 was sold as Fermi (2.1) and Kepler GK208 (3.5)"),
    ("TITAN X", "TITAN X is Maxwell (5.2); TITAN X (Pascal) is 6.1"),
    ("GTX 860M", "GTX 860M was sold as Kepler GK104 (3.0) and Maxwell GM107 (5.0)"),
    ("RTX 6000 Blackwell", "not a known product name: RTX PRO 6000 Blackwell is 12.0, Quadro RTX 6000 is 7.5"),
)

_BRANDS = {"nvidia", "geforce", "tesla", "quadro", "graphics", "gpu", "laptop", "generation", "with", "max", "q",
           "design", "edition", "mobile"}
_OTHER_VENDORS = {"amd", "radeon", "instinct", "intel", "arc", "apple", "mali", "adreno"}
_SPLIT = re.compile(r"[a-z]+|\d+")


def _tokens(name: str) -> Tuple[str, ...]:
    return tuple(t for t in _SPLIT.findall(name.lower()) if t not in _BRANDS)


def _build() -> Dict[Tuple[str, ...], GpuInfo]:
    table: Dict[Tuple[str, ...], GpuInfo] = {}
    for cc, arch, conf, source, names in _TABLE:
        for product in names.split(","):
            product = product.strip()
            key = _tokens(product)
            if key and key not in table:
                table[key] = GpuInfo(product, cc, arch, conf, source)
    for product, note in _AMBIGUOUS:
        table[_tokens(product)] = GpuInfo(product, None, "", U, _COPIES, note)
    return table


_KEYS = _build()
_LONGEST = max(len(k) for k in _KEYS)


def gpu_info(name: Optional[str]) -> Optional[GpuInfo]:
    """The most specific table entry inside a device name ("NVIDIA GeForce RTX 3060 Ti" -> RTX 3060 Ti)."""
    if not isinstance(name, str):
        return None
    tokens = _tokens(name)
    if _OTHER_VENDORS.intersection(tokens):
        return None
    best: Optional[Tuple[str, ...]] = None
    for start in range(len(tokens)):
        for width in range(min(_LONGEST, len(tokens) - start), 0, -1):
            key = tokens[start:start + width]
            if key in _KEYS:
                if best is None or len(key) > len(best):
                    best = key
                break
    return _KEYS[best] if best is not None else None


def gpu_cc_info(name: Optional[str]) -> Optional[Tuple[CC, Confidence]]:
    """(compute capability, confidence) for a device name; None when unknown or ambiguous."""
    info = gpu_info(name)
    if info is None or info.cc is None:
        return None
    return (info.cc, info.confidence)


def gpu_cc_from_name(name: Optional[str]) -> Optional[CC]:
    """The compute capability of an NVIDIA product name ("NVIDIA GeForce RTX 4080" -> (8, 9)); None when unknown."""
    found = gpu_cc_info(name)
    return found[0] if found else None
