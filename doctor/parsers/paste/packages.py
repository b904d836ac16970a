"""Parsers for package listings: `pip list`, `pip freeze`, `pip show torch`, `conda list` and conda's install plan."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional

from packaging.utils import canonicalize_name

from gpudoctor.facts import Distribution
from gpudoctor.installers import Installer
from gpudoctor.parsers.collect_env.packages import conda_build_cuda
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Line, Segment

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VERSION = r"\d[\w.!+-]*"
_FREEZE = re.compile(rf"^\s*(?:\[pip\d?\]\s+|-\s+)?({_NAME})\s*==\s*({_VERSION})\s*$")
_CONDA_EXPORT = re.compile(rf"^\s*-\s+(?:[\w-]+::)?({_NAME})=({_VERSION})=(\S+)\s*$")  # conda env export
# conda's own packages may start with "_" ("_pytorch_select", "_libgcc_mutex")
_LIST = re.compile(rf"^\s*(_?{_NAME})\s+({_VERSION})(?:\s+(\S+))?(?:\s+(\S+))?\s*$")
_PLAN_NAME = re.compile(rf"^{_NAME}$")
# mamba's and micromamba's plan table: "  + pytorch   2.1.0  cpu_generic_py311h6b1a1b0_0  conda-forge/linux-64   60MB"
_MAMBA_ROW = re.compile(rf"^\s*\+\s+({_NAME})\s+({_VERSION})\s+(\S+)\s+([\w.-]+)/[\w-]+(?:\s|$)")
_SHOW_NAME = re.compile(rf"^\s*Name:\s*({_NAME})\s*$")
_SHOW_VERSION = re.compile(rf"^\s*Version:\s*({_VERSION})\s*$")
_RELEVANT = re.compile(
    r"^(torch|pytorch|pytorch-cpu|pytorch-gpu|torchvision|torchaudio|nvidia-[\w-]+|triton|pytorch-triton|vllm|xformers|"
    r"flash[-_]attn(?:[-_][34])?|"
    r"bitsandbytes|transformers|accelerate|diffusers|cupy[\w-]*|onnxruntime[\w-]*|tensorflow[\w-]*|jax|jaxlib|"
    r"ultralytics|mmcv[\w-]*|detectron2|deepspeed|cudatoolkit|cuda-\w+|pytorch-cuda|cudnn|numpy|sglang|"
    r"llamafactory|llama[-_]cpp[-_]python|tts|lightning|pytorch-lightning)$",
    re.I,
)
_TORCH_NAMES = {"torch": "torch", "pytorch": "torch", "pytorch-nightly": "torch", "torch-nightly": "torch"}
_CPU_PACKAGES = frozenset({"pytorch-cpu", "cpuonly"})  # conda-forge's CPU metapackage, the pytorch channel's CPU pin
# the variant selectors of conda's channels, whose build names the variant: "_pytorch_select 0.1 cpu_0" (defaults),
# "pytorch-mutex 1.0 cpu" (the pytorch channel)
_SELECTORS = frozenset({"-pytorch-select", "pytorch-mutex"})


def _is_header(text: str) -> Optional[str]:
    if "Version" not in text:  # both headers hold it: most lines need not be split into words
        return None
    words = text.split()
    if len(words) >= 2 and words[0] == "Package" and words[1] == "Version":
        return "pip list"
    if text.lstrip().startswith("# Name") and "Version" in text and "Build" in text:
        return "conda list"
    return None


def _dist(name: str, version: str, segment: Segment, line: Line, fmt: str) -> Iterator[Observation]:
    yield observe("packages", Distribution(name=name, version=version), segment, line, fmt)
    if canonicalize_name(name) in _CPU_PACKAGES:
        yield observe("torch.cuda_compiled", False, segment, line, fmt)
    if _TORCH_NAMES.get(canonicalize_name(name)) == "torch":
        yield observe("torch.installed", True, segment, line, fmt)
        yield observe("torch.version", version, segment, line, fmt)


def _conda_torch(name: str, build: str, channel: str, segment: Segment, line: Line) -> Iterator[Observation]:
    """A `conda list` row for torch: the environment is conda's, and the channel says who installed torch."""
    from_conda = channel != "pypi" and build != "pypi"
    yield observe("platform.installer", Installer.CONDA.value, segment, line, "conda list")
    yield observe("platform.torch_from_conda", from_conda, segment, line, "conda list")
    who = "conda" if from_conda else "pip"
    yield observe("platform.installer_evidence", f"conda list: {name} installed by {who}", segment, line, "conda list")


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
        if "::" in text or "-->" in text:
            planned = _plan(text, segment, line)
            if planned is not None:
                yield from planned
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
        if text.lstrip().startswith("+ ") and "/" in text:
            row = _MAMBA_ROW.match(text)
            if row and _RELEVANT.match(row.group(1)):
                yield from _conda_row(row.group(1), row.group(2), row.group(3), row.group(4), segment, line, "conda plan")
            continue
        m = _LIST.match(text)
        if not m or not (fmt or _RELEVANT.match(m.group(1))):
            continue
        name, version, build, channel = m.group(1), m.group(2), m.group(3) or "", m.group(4) or ""
        conda = fmt == "conda list" or (build and not build.startswith(("/", "~", "C:", "c:")) and "_" in build)
        if not conda:
            yield from _dist(name, version, segment, line, "pip list")
            continue
        if fmt == "conda list" and _TORCH_NAMES.get(canonicalize_name(name)) == "torch":
            yield from _conda_torch(name, build, channel, segment, line)
        yield from _conda_row(name, version, build, channel, segment, line, "conda list")


def _conda_row(name: str, version: str, build: str, channel: str, segment: Segment, line: Line,
               fmt: str) -> Iterator[Observation]:
    """A conda package with its build string: for torch the build names CUDA or the CPU."""
    yield from _dist(name, version, segment, line, fmt)
    if canonicalize_name(name) in _SELECTORS and (build == "cpu" or build.startswith("cpu_")):
        yield observe("torch.cuda_compiled", False, segment, line, fmt)
    if _TORCH_NAMES.get(canonicalize_name(name)) == "torch" and channel != "pypi":
        cuda = conda_build_cuda(build)
        if cuda == "cpu":
            yield observe("torch.cuda_compiled", False, segment, line, fmt)
        elif cuda:
            yield observe("torch.cuda", cuda, segment, line, fmt)


def _plan(text: str, segment: Segment, line: Line) -> Optional[List[Observation]]:
    """One package of conda's "will be INSTALLED / UPDATED" plan ("pytorch  pytorch/linux-64::pytorch-1.4.0-py3.7_cpu_0"),
    as the version and build it will have."""
    words = text.split()  # "name  channel::name-version-build", or an update "name  old --> new"
    if len(words) == 4 and words[2] == "-->":
        words = [words[0], words[3]]
    if len(words) != 2 or not _PLAN_NAME.match(words[0]):
        return None
    name, spec = words[0], words[1].rpartition("::")[2]
    if spec.startswith(name + "-"):
        spec = spec[len(name) + 1:]
    version, _, build = spec.rpartition("-")
    if not re.fullmatch(_VERSION, version) or not build:
        return None
    out = list(_dist(name, version, segment, line, "conda plan"))
    cuda = conda_build_cuda(build) if _TORCH_NAMES.get(canonicalize_name(name)) == "torch" else None
    if cuda == "cpu" or canonicalize_name(name) in ("cpuonly", "cpu-only"):
        out.append(observe("torch.cuda_compiled", False, segment, line, "conda plan"))
    elif cuda:
        out.append(observe("torch.cuda", cuda, segment, line, "conda plan"))
    return out


# pip's resolver naming a companion built for another torch: "torchvision 0.16.0+cu118 requires torch==2.1.0, but you
# have torch 2.0.1 which is incompatible."
_CONFLICT = re.compile(r"^\s*(torchvision|torchaudio)\s+(\d{1,2}\.\d{1,3}\.\d{1,3}(?:\+[\w.]{1,24})?)\s+requires\s+torch==[\w.+]+,"
                       r"\s*but you have torch\s+(\d{1,2}\.\d{1,3}\.\d{1,3}(?:\+[\w.]{1,24})?)\s+which is incompatible")


def resolver_conflicts(segment: Segment) -> Iterator[Observation]:
    """The installed torch and its companions as pip's dependency resolver names them when they do not pair."""
    for line in segment.lines:
        if "which is incompatible" not in line.text:
            continue
        m = _CONFLICT.match(line.text)
        if m:
            yield observe("packages", Distribution(name=m.group(1), version=m.group(2)), segment, line, "pip resolver")
            yield observe("torch.version", m.group(3), segment, line, "pip resolver")
