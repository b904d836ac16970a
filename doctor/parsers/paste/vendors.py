"""An AMD GPU as a paste shows it (gfx names, Radeon and Instinct models, rocminfo, /dev/kfd), ROCm installs, and
Intel GPUs and Huawei's Ascend NPUs by their model names (``paste.intel_gpu``, ``paste.ascend_npu``).

The AMD GPU is recorded as ``paste.amd_gpu`` notes (the evidence, one per kind); a torch install from a
download.pytorch.org index as ``paste.rocm_index`` (a ROCm variant, "rocm6.0") or ``paste.torch_index``
("cu121", "cpu"); an NVIDIA GPU named anywhere as ``paste.nvidia_named``. A Ryzen processor's integrated
"Radeon Graphics" in a CPU model line is no evidence: such machines often drive an NVIDIA GPU.
"""

from __future__ import annotations

import re
from typing import Iterator

from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

_GFX = re.compile(r"\bgfx(?:90[0-9a-c]|9\d{2}|1[0-2]\d{2})[a-z]?\b")
_AMDGCN = re.compile(r"\bamdgcn-amd-amdhsa\b")
_RADEON = re.compile(r"\bRadeon(?:\(TM\))?\s+(?:RX|Pro|PRO|VII|Vega|\d{3,4}M?)\b(?:[ -]?\w{1,5}){0,2}")
_RX = re.compile(r"\bRX ?[4-9]\d{2,3}(?: ?XTX?| ?GRE| ?XT)?\b|\b[5-9]\d{2}0 ?(?:XTX?|xtx?)\b")  # "9070xt" alone too
# "AMD 7900 GRE", "AMD RX 6800 XT": a Radeon model named after the maker (a Ryzen's "5950X" is not: its X ends the match)
_AMD_MODEL = re.compile(r"\bAMD\s+(?:Radeon\s+)?(?:(?i:RX)\s?)?[5-9]\d{3}(?:\s?(?:XTX|XT|GRE))?\b(?![X\d])")
_INSTINCT = re.compile(r"\b(?:AMD )?Instinct(?:\(TM\))? ?MI\d{2,3}\w*\b|\bMI(?:50|60|100|210|250X?|300[AX]|325X|355X)\b")
_MI_NUMBER = re.compile(r"MI[1-6]")  # what _INSTINCT's forms hold when they do not say "Instinct"
_AMD_WORDS = re.compile(r"\bAMD (?:Radeon )?(?:GPUs?|graphics(?: cards?)?|cards?|APUs?|video cards?)\b|\bAPU\b.{0,20}\bAMD\b|"
                        r"\bRadeon (?:GPUs?|cards?|graphics cards?)\b|\[AMD/ATI\]|\bNavi ?[1-4]\d\b"
                        r"|\b(?:is|have|has|got|use|using|own)\s+an?\s+(?:AMD\s+)?Radeon\b(?!\s*(?:\(TM\)\s*)?Graphics)"
                        r"|\bGPUs?\b[^.\n]{0,20}?\b(?:is|are)(?: both)? (?:an? )?AMD\b(?! Ryzen)",
                        re.I)  # "my card is a Radeon"
_KFD = re.compile(r"/dev/kfd\b")
_ROCM_TOOL = re.compile(r"\brocminfo\b|\brocm-smi\b|\bamd-smi\b|\bHSA Agents\b|\bROCk module\b|"
                        r"\b(?:HSA_OVERRIDE_GFX_VERSION|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES)=")
_CPU_LINE = re.compile(r"\b(?:Ryzen|EPYC|Athlon|Threadripper|Model name|Processor|CPU)\b", re.I)
_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?(rocm\d+(?:\.\d+){1,2}|cu\d{2,3}|cpu)\b")
# an Intel GPU: integrated HD/UHD/Iris graphics or an Arc card ("Intel(R) UHD Graphics 620", "Intel Arc A770")
_INTEL_GPU = re.compile(r"\bIntel(?:\(R\))?\s+(?:(?:U?HD|Iris(?:\(R\))?(?:\s+(?:Xe|Plus|Pro))?)(?:\(TM\))?\s+Graphics"
                        r"(?:\s+\d{3,4})?|Arc(?:\(TM\))?\s+[AB]\d{3}M?)\b", re.I)
# an Intel GPU in words: "an Intel GPU", "Intel integrated graphics", "the GPU ... is an Intel one"
_INTEL_WORDS = re.compile(r"\bIntel (?:integrated |onboard )?(?:GPUs?|graphics(?: cards?)?)\b|"
                          r"\b(?:GPU|graphics(?: card)?|video card)\b[^.\n]{0,25}?\b(?:is|are) (?:an? )?Intel(?: one)?\b",
                          re.I)
# a Huawei Ascend NPU: "Atlas 300I Pro", "Ascend 910B", "昇腾910"
_ASCEND = re.compile(r"\b(?:Huawei\s+)?(?:Ascend|Atlas)\s?\d{3}[A-Za-z]?(?:\s?(?:Pro|Duo))?\b|昇腾\s?\d{3}[A-Za-z]?", re.I)
_NVIDIA_NAME = re.compile(r"\b(?:GeForce|RTX ?\d{4}|GTX ?\d{3,4}|Quadro|Tesla|NVIDIA [AHLTV]\d{1,3})\b")


_NVIDIA_WORDS = re.compile(r"GeForce|RTX|GTX|Quadro|Tesla|NVIDIA")  # a cheap pre-test for _NVIDIA_NAME


def _evidence(text: str) -> Iterator[str]:
    """The kinds of AMD GPU evidence on one line: the matched text, shortened."""
    low = text.lower()
    m = (_GFX.search(text) if "gfx" in low else None) or (_AMDGCN.search(text) if "amdgcn" in low else None)
    if m:
        yield m.group()
    radeon = _RADEON.search(text) if "Radeon" in text else None
    if radeon and _CPU_LINE.search(text) and not radeon.group().startswith("Radeon RX"):
        radeon = None  # an APU's integrated Radeon named beside its Ryzen; a discrete RX card counts
    if radeon:
        yield radeon.group().strip()
    if "RX" in text or "0XT" in text or "0 XT" in text or "0xt" in text or "0 xt" in text:  # what _RX's forms hold
        m = _RX.search(text)
        if m and not _NVIDIA_NAME.search(text) and not (radeon and m.group() in radeon.group()):
            yield m.group()
    if "MI" in text and ("Instinct" in text or _MI_NUMBER.search(text)):  # NVIDIA-SMI's lines hold "MI" too
        m = _INSTINCT.search(text)
        if m:
            yield m.group()
    if "AMD" in text or "Radeon" in text or "Navi" in text or "amd" in low:
        m = _AMD_WORDS.search(text)
        if m:
            yield m.group()
        m = _AMD_MODEL.search(text) if "AMD" in text and not _RX.search(text) and not _CPU_LINE.search(text) else None
        if m:
            yield m.group()
    if "/dev/kfd" in text and _KFD.search(text):
        yield "the /dev/kfd device node"
    m = _ROCM_TOOL.search(text) if ("roc" in low or "amd-smi" in low or "hsa" in low or "hip_" in low) else None
    if m:
        yield m.group()


# the index named in words: "installs torch from the cu124 index"
_INDEX_SAID = re.compile(r"\b(?:from|uses?|using|via)\s+the\s+(cu\d{2,3}|rocm\d+(?:\.\d+){1,2})\s+(?:wheel\s+)?index\b")


def amd_gpu(segment: Segment) -> Iterator[Observation]:
    """Each kind of AMD GPU evidence, each torch index an install names, and NVIDIA GPUs named in passing."""
    seen = set()
    for line in segment.lines:
        text = line.text
        found = [("amd_gpu", item[:60], "AMD GPU") for item in _evidence(text)]
        m = _NVIDIA_NAME.search(text) if _NVIDIA_WORDS.search(text) else None
        if m:
            found.append(("nvidia_named", m.group(), "NVIDIA GPU"))
        m = (_INTEL_GPU.search(text) or _INTEL_WORDS.search(text)) if "ntel" in text or "NTEL" in text else None
        if m:
            found.append(("intel_gpu", m.group()[:60], "Intel GPU"))
        m = _ASCEND.search(text) if ("tlas" in text or "scend" in text or "TLAS" in text or "SCEND" in text
                                     or "昇腾" in text) else None
        if m:
            found.append(("ascend_npu", m.group()[:60], "Ascend NPU"))
        m = _INDEX.search(text) if "download.pytorch.org" in text else None
        m = m or (_INDEX_SAID.search(text) if "index" in text else None)
        if m:
            variant = m.group(1)
            found.append(("rocm_index" if variant.startswith("rocm") else "torch_index", variant, "pip install"))
        for path, value, fmt in found:
            if (path, value) not in seen:
                seen.add((path, value))
                yield observe(path, value, segment, line, fmt)
