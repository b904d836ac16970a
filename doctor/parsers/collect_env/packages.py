"""The 'Versions of relevant libraries' section: [pip]/[pip3] and [conda] lines as distributions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.facts import Distribution

_PIP = re.compile(
    r"\[pip\d?\]\s+([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:===?\s*([^\s\[]+)|\(([^)\s]+)\)|\s+@\s+\S+)"
)
_CONDA = re.compile(r"\[conda\]\s+(.*)$")
_NOT_COLLECTED = re.compile(r"\[(pip\d?|conda)\]\s+(Could not collect|No relevant packages)", re.I)
_TORCH_NAMES = {"torch": "torch", "pytorch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio"}


@dataclass(frozen=True)
class CondaPackage:
    """A line of `conda list`: name, version, build string and channel."""

    name: str
    version: str
    build: str = ""
    channel: str = ""

    @property
    def from_pypi(self) -> bool:
        return self.channel == "pypi" or self.build.startswith("pypi")


@dataclass
class Packages:
    """Everything the libraries section says."""

    pip: List[Distribution] = field(default_factory=list)
    conda: List[CondaPackage] = field(default_factory=list)
    pip_collected: Optional[bool] = None  # False when the paste says "[pip3] Could not collect"
    conda_collected: Optional[bool] = None

    def pip_version(self, name: str) -> Optional[str]:
        for dist in self.pip:
            if canonicalize_name(dist.name) == canonicalize_name(name):
                return dist.version
        return None

    def conda_package(self, name: str) -> Optional[CondaPackage]:
        """The conda package for torch/torchvision/torchaudio (conda spells torch 'pytorch')."""
        wanted = canonicalize_name(name)
        for pkg in self.conda:
            if _TORCH_NAMES.get(canonicalize_name(pkg.name), canonicalize_name(pkg.name)) == wanted:
                return pkg
        return None

    def conda_has(self, name: str) -> Optional[CondaPackage]:
        for pkg in self.conda:
            if canonicalize_name(pkg.name) == canonicalize_name(name):
                return pkg
        return None

    def distributions(self) -> Tuple[Distribution, ...]:
        """pip's view first, then conda packages pip does not already list."""
        out: Dict[str, Distribution] = {}
        for dist in self.pip:
            out.setdefault(canonicalize_name(dist.name), dist)
        for pkg in self.conda:
            key = canonicalize_name(pkg.name)
            if key not in out and _TORCH_NAMES.get(key, key) not in out:
                out[key] = Distribution(name=pkg.name, version=pkg.version)
        return tuple(out.values())


def parse_packages(lines: List[str]) -> Packages:
    """Read [pip]/[pip3]/[conda] lines, tolerating several entries on one line."""
    result = Packages()
    for line in lines:
        for note in _NOT_COLLECTED.finditer(line):
            if note.group(1).startswith("pip"):
                result.pip_collected = bool(note.group(2).lower().startswith("no relevant"))
            else:
                result.conda_collected = bool(note.group(2).lower().startswith("no relevant"))
        for part in re.split(r"(?=\[(?:pip\d?|conda)\])", line):
            part = part.strip()
            if _NOT_COLLECTED.match(part):
                continue
            m = _PIP.match(part)
            if m:
                version = m.group(2) or m.group(3)
                if version:
                    result.pip.append(Distribution(name=m.group(1), version=version.strip()))
                    result.pip_collected = True
                continue
            m = _CONDA.match(part)
            if m:
                words = m.group(1).split()
                if len(words) >= 2 and re.match(r"\d", words[1]):
                    result.conda.append(
                        CondaPackage(words[0], words[1], words[2] if len(words) > 2 else "", words[3] if len(words) > 3 else "")
                    )
                    result.conda_collected = True
    return result


def conda_build_cuda(build: str) -> Optional[str]:
    """The CUDA version in a conda build string: 'py3.8_cuda10.2.89_cudnn7.6.5_0' -> '10.2', 'cpu' -> 'cpu'."""
    low = build.lower()
    m = re.search(r"cuda_?(\d+)\.(\d+)", low)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    m = re.search(r"cuda_?(\d{2})(\d)(?!\d)", low) or re.search(r"cu(\d{2})(\d)(?!\d)", low)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    m = re.search(r"cuda_?(\d)(\d)(?!\d)", low) or re.search(r"cu(\d)(\d)(?!\d)", low)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    if re.search(r"(^|_)cpu", low):
        return "cpu"
    return None


def local_cuda(version: Optional[str]) -> Optional[str]:
    """'2.1.0+cu121' -> '12.1', '0.9.1+cu92' -> '9.2', '+cpu' -> 'cpu', else None."""
    if not version or "+" not in version:
        return None
    local = version.split("+", 1)[1].lower()
    m = re.fullmatch(r"cu(\d{2})(\d)", local) or re.fullmatch(r"cu(\d)(\d)", local)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    if local == "cpu" or local.startswith("cpu."):
        return "cpu"
    return None
