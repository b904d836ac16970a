"""Torch versions as launcher logs and pip print them inline: "INFO Torch 2.0.1+cpu", "torch==2.8.0+cpu",
"Requirement already satisfied: torch in ... (2.1.0+cu121)", and the device a launcher says it uses
("Using torch device: NVIDIA GeForce RTX 3060", InvokeAI's start-up line)."""

from __future__ import annotations

import re
from typing import Iterator

from gpudoctor.compat import gpu_info
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

# "torch" as a word (not torchvision, not a path or wheel name), then "==", ":" or spaces, then a version that
# carries a build tag (+cpu, +cu121, +rocm6.0): an untagged number in prose is too weak to count.
_INLINE = re.compile(
    r"(?<![\w/\\.-])torch(?:\s*==\s*|\s*:\s*|\s+|(?:\.__version__\)?|\s+version)`?\s*(?:is|=+|:|returns?|reports?|shows?|"
    r"prints?|gives?)?\s*[`'\"]?)v?(\d+\.\d+(?:\.\d+)?(?:\.post\d+|[a-z]+\d*)?\+(?:cpu|cu\d{2,3}|rocm[\d.]+)\b)"
    r"(?![\w.-]*-cp\d)",
    re.I,
)
# a command that asks for a torch ("pip install torch==2.1.0+cu121") names what is wanted, not what is installed
_INSTALL_COMMAND = re.compile(r"\b(?:pip3?|uv pip|conda|mamba|micromamba)\s+install\b", re.I)
_SATISFIED = re.compile(r"Requirement already satisfied: torch(?:==\S+)? in \S.*\((\d+\.\d+[\w.+]*)\)\s*$")


def launcher_versions(segment: Segment) -> Iterator[Observation]:
    """The installed torch named inline by a launcher's log line or by pip's "already satisfied" line."""
    for line in segment.lines:
        text = line.text
        if "orch" not in text:
            continue
        if text.lstrip().startswith("Requirement already satisfied: torch "):
            m = _SATISFIED.search(text)
            if m:
                yield observe("torch.version", m.group(1), segment, line, "pip")
            continue
        m = _INLINE.search(text)
        if m and not _INSTALL_COMMAND.search(text[:m.start()]):
            yield observe("torch.version", m.group(1), segment, line, "launcher log")


_DEVICE = re.compile(r"\bUsing torch device:\s*(.+?)\s*$")
# Ultralytics' start-up line: "YOLOv5 🚀 2021-10-25 torch 1.10.0 CUDA:0 (NVIDIA GeForce GTX 1660 Ti, 6143.6875MB)",
# "Ultralytics YOLOv8.0.196 🚀 Python-3.10.12 torch-2.0.1+cu118 CUDA:0 (NVIDIA GeForce RTX 3090, 24260MiB)"
_YOLO_DEVICE = re.compile(r"\btorch[- ]v?(\d{1,2}\.\d{1,3}\.\d{1,3}(?:\+\w{1,12})?)\s+CUDA:\d{1,2} \(([^,()]{1,80}),\s*"
                          r"\d{1,7}(?:\.\d{1,6})?\s?Mi?B\)")


def launcher_devices(segment: Segment) -> Iterator[Observation]:
    """A launcher's "Using torch device: <name>", or Ultralytics' "torch-2.0.1+cu118 CUDA:0 (<name>, 24260MiB)": an
    NVIDIA name there is a GPU that torch uses."""
    for line in segment.lines:
        if "CUDA:" in line.text and "torch" in line.text:
            yolo = _YOLO_DEVICE.search(line.text)
            if yolo and gpu_info(yolo.group(2)) is not None:
                yield observe("torch.version", yolo.group(1), segment, line, "Ultralytics log")
                yield observe("gpus", (None, yolo.group(2).strip()), segment, line, "Ultralytics log")
                yield observe("torch.is_available", True, segment, line, "Ultralytics log")
            continue
        if "torch device" not in line.text:
            continue
        m = _DEVICE.search(line.text)
        if m and gpu_info(m.group(1)) is not None:
            yield observe("gpus", (None, m.group(1)[:120]), segment, line, "launcher log")
            yield observe("torch.is_available", True, segment, line, "launcher log")
