"""Parsers for package listings: `pip list`, `pip freeze`, `pip show torch` and `conda list`."""

from __future__ import annotations

import re
from typing import Iterator, Optional

from packaging.utils import canonicalize_name

from gpudoctor.facts import Distribution
from gpudoctor.parsers.collect_env.packages import conda_build_cuda
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Line, Segment

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VERSION = r"\d[\w.!+-]*"
_FREEZE = re.compile(rf"^\s*(?:\[pip\d?\]\s+|-\s+)?({_NAME})\s*==\s*({_VERSION})\s*$")
_CONDA_EXPORT = re.compile(rf"^\s*-\s+(?:[\w-]+::)?({_NAME})=({_VERSION})=(\S+)\s*$")  # conda env export
_LIST = re.compile(rf"^\s*({_NAME})\s+({_VERSION})(?:\s+(\S+))?(?:\s+(\S+))?\s*$")
_SHOW_NAME = re.compile(rf"^\s*Name:\s*({_NAME})\s*$")
_SHOW_VERSION = re.compile(rf"^\s*Version:\s*({_VERSION})\s*$")
_RELEVANT = re.compile(
    r"^(torch|pytorch|torchvision|torchaudio|nvidia-[\w-]+|triton|pytorch-triton|vllm|xformers|flash[-_]attn|"
    r"bitsandbytes|transformers|accelerate|diffusers|cupy[\w-]*|onnxruntime[\w-]*|tensorflow[\w-]*|jax|jaxlib|"
    r"ultralytics|mmcv[\w-]*|detectron2|deepspeed|cudatoolkit|cuda-\w+|pytorch-cuda|cudnn|numpy|sglang|"
    r"llamafactory|llama[-_]cpp[-_]python|tts|lightning|pytorch-lightning)$",
    re.I,
)
_TORCH_NAMES = {"torch": "torch", "pytorch": "torch"}


def _is_header(text: str) -> Optional[str]:
    words = text.split()
    if len(words) >= 2 and words[0] == "Package" and words[1] == "Version":
        return "pip list"
    if text.lstrip().startswith("# Name") and "Version" in text and "Build" in text:
        return "conda list"
    return None


def _dist(name: str, version: str, segment: Segment, line: Line, fmt: str) -> Iterator[Observation]:
    yield observe("packages", Distribution(name=name, version=version), segment, line, fmt)
    if _TORCH_NAMES.get(canonicalize_name(name)) == "torch":
        yield observe("torch.installed", True, segment, line, fmt)
        yield observe("torch.version", version, segment, line, fmt)


def package_lists(segment: Segment) -> Iterator[Observation]:
    """Lines of a package listing; without a header only packages that matter to the GPU stack count."""
    fmt: Optional[str] = None
    show_name: Optional[str] = None
    for line in segment.lines:
        text = line.text
        header = _is_header(text)
        if header:
            fmt = header
            continue
        if "==" in text:
            m = _FREEZE.match(text)
            if m:
                name = m.group(1)
                if fmt or _RELEVANT.match(name):
                    yield from _dist(name, m.group(2), segment, line, "pip freeze")
                continue
        if text.count("=") == 2 and "==" not in text:
            m = _CONDA_EXPORT.match(text)
            if m:
                name, version, build = m.group(1), m.group(2), m.group(3)
                yield from _dist(name, version, segment, line, "conda env export")
                if _TORCH_NAMES.get(canonicalize_name(name)) == "torch":
                    cuda = conda_build_cuda(build)
                    if cuda == "cpu":
                        yield observe("torch.cuda_compiled", False, segment, line, "conda env export")
                    elif cuda:
                        yield observe("torch.cuda", cuda, segment, line, "conda env export")
                continue
        if text.lstrip().startswith(("Name:", "Version:")):
            m = _SHOW_NAME.match(text)
            if m:
                show_name = m.group(1)
                continue
            m = _SHOW_VERSION.match(text)
            if m and show_name:
                yield from _dist(show_name, m.group(1), segment, line, "pip show")
                show_name = None
            continue
        m = _LIST.match(text)
        if not m or not (fmt or _RELEVANT.match(m.group(1))):
            continue
        name, version, build, channel = m.group(1), m.group(2), m.group(3) or "", m.group(4) or ""
        conda = fmt == "conda list" or (build and not build.startswith(("/", "~", "C:", "c:")) and "_" in build)
        yield from _dist(name, version, segment, line, "conda list" if conda else "pip list")
        if conda and _TORCH_NAMES.get(canonicalize_name(name)) == "torch" and channel != "pypi":
            cuda = conda_build_cuda(build)
            if cuda == "cpu":
                yield observe("torch.cuda_compiled", False, segment, line, "conda list")
            elif cuda:
                yield observe("torch.cuda", cuda, segment, line, "conda list")
