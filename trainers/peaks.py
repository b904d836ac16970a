"""Peak dense matrix throughput of common NVIDIA GPUs (TFLOP/s), from NVIDIA's data sheets and whitepapers."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

# (name fragments that must all appear, lower case), fp32, tf32, bf16, source. Dense figures at boost clock:
# data sheets print tensor-core figures "with sparsity", which are halved here. None: no such tensor-core path
# (TF32 and BF16 need compute capability 8.0 or newer). The first matching row wins, so specific names
# (H100 PCIe, L40S) come before general ones (H100, L4).
_TABLE: Tuple[Tuple[Tuple[str, ...], float, Optional[float], Optional[float], str], ...] = (
    (("h100", "pcie"), 51.2, 378.0, 756.0, "NVIDIA H100 PCIe data sheet, sparsity halved"),
    (("h100", "nvl"), 60.0, 417.5, 835.5, "NVIDIA H100 NVL data sheet, sparsity halved"),
    (("h100",), 67.0, 494.7, 989.4, "NVIDIA H100 SXM5 data sheet, sparsity halved"),
    (("h200", "nvl"), 60.0, 417.5, 835.5, "NVIDIA H200 NVL data sheet, sparsity halved"),
    (("h200",), 67.0, 494.7, 989.4, "NVIDIA H200 SXM data sheet, sparsity halved"),
    (("a100",), 19.5, 156.0, 312.0, "NVIDIA A100 data sheet, dense figures"),
    (("l40s",), 91.6, 183.0, 362.0, "NVIDIA L40S data sheet, sparsity halved"),
    (("l40",), 90.5, 90.5, 181.0, "NVIDIA L40 data sheet, sparsity halved"),
    (("l4",), 30.3, 60.0, 121.0, "NVIDIA L4 data sheet, sparsity halved"),
    (("a10",), 31.2, 62.5, 125.0, "NVIDIA A10 data sheet, sparsity halved"),
    (("v100", "pcie"), 14.0, None, None, "NVIDIA V100 data sheet (PCIe)"),
    (("v100",), 15.7, None, None, "NVIDIA V100 data sheet (SXM2)"),
    (("t4",), 8.1, None, None, "NVIDIA T4 data sheet"),
    (("rtx 4090",), 82.6, 82.6, 165.2, "NVIDIA Ada GPU architecture whitepaper (FP32 accumulate)"),
    (("rtx 3090",), 35.6, 35.6, 71.0, "NVIDIA Ampere GA102 whitepaper (FP32 accumulate)"),
)


def lookup(name: Optional[str]) -> Optional[Dict[str, object]]:
    """The peaks for a device name such as "NVIDIA H100 80GB HBM3", or None when it is not in the table."""
    if not name:
        return None
    lowered = name.lower()
    for fragments, fp32, tf32, bf16, source in _TABLE:
        if all(_has_word(lowered, f) for f in fragments):
            return {"fp32": fp32, "tf32": tf32, "bf16": bf16, "source": source}
    return None


def _has_word(text: str, fragment: str) -> bool:
    """``fragment`` occurs in ``text`` and is not followed by a letter or digit ("l4" must not match "l40s")."""
    start = text.find(fragment)
    while start >= 0:
        end = start + len(fragment)
        before_ok = start == 0 or not text[start - 1].isalnum()
        after_ok = end == len(text) or not text[end].isalnum()
        if before_ok and after_ok:
            return True
        start = text.find(fragment, start + 1)
    return False
