"""Peak dense matrix throughput of common NVIDIA GPUs (TFLOP/s), from NVIDIA's data sheets and whitepapers.

A device name is matched whole: vendor words ("NVIDIA", "Tesla", "GeForce", "GPU") and memory sizes ("80GB",
"HBM3") are set aside and what remains must be exactly a row's model, so a name with a word the table does not know
("Laptop", "Ti", "D", "SUPER", "Max-Q", "SXM3") gets no peak rather than another card's. A MIG slice ("... MIG
1g.10gb") gets the whole GPU's peak scaled by its share of the streaming multiprocessors, or none when that share is
not known.
"""

from __future__ import annotations

import re
from typing import Dict, Optional, Tuple

# (model words, SMs of the whole GPU, fp32, tf32, bf16, fp16 tensor, source). Dense figures at boost clock: data
# sheets print tensor-core figures "with sparsity", which are halved here. None: no such tensor-core path (TF32 and
# BF16 need compute capability 8.0 or newer; fp16 tensor cores came with 7.0).
_TABLE: Tuple[Tuple[Tuple[str, ...], int, float, Optional[float], Optional[float], Optional[float], str], ...] = (
    (("h100",), 132, 67.0, 494.7, 989.4, 989.4, "NVIDIA H100 SXM5 data sheet, sparsity halved"),
    (("h100", "sxm5"), 132, 67.0, 494.7, 989.4, 989.4, "NVIDIA H100 SXM5 data sheet, sparsity halved"),
    (("h100", "pcie"), 114, 51.2, 378.0, 756.0, 756.0, "NVIDIA H100 PCIe data sheet, sparsity halved"),
    (("h100", "nvl"), 132, 60.0, 417.5, 835.5, 835.5, "NVIDIA H100 NVL data sheet, sparsity halved"),
    (("h200",), 132, 67.0, 494.7, 989.4, 989.4, "NVIDIA H200 SXM data sheet, sparsity halved"),
    (("h200", "nvl"), 132, 60.0, 417.5, 835.5, 835.5, "NVIDIA H200 NVL data sheet, sparsity halved"),
    (("a100", "sxm4"), 108, 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 data sheet, dense figures"),
    (("a100", "pcie"), 108, 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 data sheet, dense figures"),
    (("a100",), 108, 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 data sheet, dense figures"),
    (("a40",), 84, 37.4, 74.8, 149.7, 149.7, "NVIDIA A40 data sheet, sparsity halved"),
    (("l40s",), 142, 91.6, 183.0, 362.0, 362.0, "NVIDIA L40S data sheet, sparsity halved"),
    (("l40",), 142, 90.5, 90.5, 181.0, 181.0, "NVIDIA L40 data sheet, sparsity halved"),
    (("l4",), 58, 30.3, 60.0, 121.0, 121.0, "NVIDIA L4 data sheet, sparsity halved"),
    (("a10",), 72, 31.2, 62.5, 125.0, 125.0, "NVIDIA A10 data sheet, sparsity halved"),
    (("v100", "pcie"), 80, 14.0, None, None, 112.0, "NVIDIA V100 data sheet (PCIe)"),
    (("v100", "sxm2"), 80, 15.7, None, None, 125.0, "NVIDIA V100 data sheet (SXM2)"),
    (("t4",), 40, 8.1, None, None, 65.0, "NVIDIA T4 data sheet"),
    (("rtx", "4090"), 128, 82.6, 82.6, 165.2, 165.2, "NVIDIA Ada GPU architecture whitepaper (FP32 accumulate)"),
    (("rtx", "3090"), 82, 35.6, 35.6, 71.0, 71.0, "NVIDIA Ampere GA102 whitepaper (FP32 accumulate)"),
)
_VENDOR = {"nvidia", "tesla", "geforce", "gpu"}
_MEMORY = re.compile(r"^\d+gb$|^hbm\d*e?$")
_MIG = re.compile(r"\bmig\s+(\d+)g\.(\d+)gb\b", re.IGNORECASE)
# Compute slices of a whole GPU by MIG profile: 7 of them share the GPU's SMs on the GPUs in the table.
_MIG_SLICES = 7


def model_words(name: str) -> Tuple[str, ...]:
    """The words of a device name that name the model: "Tesla V100-SXM2-16GB" -> ("v100", "sxm2")."""
    words = re.split(r"[\s\-_/]+", _MIG.split(name)[0].strip().lower())
    return tuple(w for w in words if w and w not in _VENDOR and not _MEMORY.match(w))


def lookup(name: Optional[str], sm_count: Optional[int] = None) -> Optional[Dict[str, object]]:
    """The peaks for a device name such as "NVIDIA H100 80GB HBM3", or None when it is not in the table.

    For a MIG slice the peaks are scaled by ``sm_count`` (the slice's SMs, from torch) against the whole GPU's, or
    by the profile's compute slices (1g = 1/7) when ``sm_count`` is not known.
    """
    if not name:
        return None
    words = model_words(name)
    row = next((r for r in _TABLE if r[0] == words), None)
    if row is None:
        return None
    _, sms, fp32, tf32, bf16, fp16, source = row
    scale, mig = 1.0, _MIG.search(name)
    if mig is not None:
        slices = int(mig.group(1))
        if sm_count and 0 < sm_count < sms:
            scale = sm_count / sms
            source += f", scaled to this MIG slice's {sm_count} of {sms} SMs"
        elif 0 < slices < _MIG_SLICES:
            scale = slices / _MIG_SLICES
            source += f", scaled to this MIG slice's {slices} of {_MIG_SLICES} compute slices"
        elif slices != _MIG_SLICES:
            return None

    def scaled(value: Optional[float]) -> Optional[float]:
        return None if value is None else round(value * scale, 1)

    return {"fp32": scaled(fp32), "tf32": scaled(tf32), "bf16": scaled(bf16), "fp16": scaled(fp16), "source": source}
