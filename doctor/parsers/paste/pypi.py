"""What a torch version without a local tag is, by the platform PyPI built it for.

PyPI's torch wheels for Windows are CPU-only: a Windows torch that pip took from PyPI cannot use CUDA. Two ways a
paste shows it: a torch version without a ``+cuXXX`` tag as pip or torch prints it, or a pip command that installs
torch (or a requirements file) with no PyTorch index, on a machine the paste calls Windows, followed by torch saying
CUDA is unavailable.

PyPI's torch wheels for Linux x86_64 are CUDA builds without a tag ("2.1.0" is the cu121 build): an untagged torch on
a Linux machine, with nothing saying it came from conda, is taken as that build, so that the driver and the GPU can be
judged against it. Both are marked inferred, never observed.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Iterator, List, Tuple

from gpudoctor import compat
from gpudoctor.facts import Facts
from gpudoctor.parsers.paste.installs import NOW
from gpudoctor.parsers.paste.observe import Observation, agreed, observe
from gpudoctor.parsers.paste.segments import Segment
from gpudoctor.parsers.paste.sigs import Sig

PYPI_INSTALL = "install.pypi_torch"  # a pip command installing torch or a requirements file with no PyTorch index
WINDOWS_SAID = "platform.windows_said"  # a sentence naming Windows as the system, and no other system
SMI_SYSTEM = "platform.smi_system"  # the system nvidia-smi's table header implies (Persistence-M or TCC/WDDM)
CONDA_TORCH = "install.conda_torch"  # a line saying torch came from conda (a conda command, a conda build string)
SYSTEM_SAID = "platform.system_said"  # a Python banner ("on linux") or a distribution named with its release
TORCH_PINNED = "torch.pinned"  # the torch version a pip command pins ("torch==1.3.0"), with the index it names
NOT_MERGED = frozenset({PYPI_INSTALL, WINDOWS_SAID, SMI_SYSTEM, CONDA_TORCH, SYSTEM_SAID, TORCH_PINNED})

_PIP = re.compile(r"\b(?:pip3?(?:\.exe)?|uv\s+pip)\s*(?:install|安装|安裝)(.*)$", re.I)
_TORCH_OR_FILE = re.compile(r"(?:^|[\s`'\"])(?:torch(?=$|[\s=<>~!\[`'\",])|-r(?=\s|$)|--requirement\b|"
                            r"\S*requirements\S*)", re.I)
_INDEX = re.compile(r"download\.pytorch\.org|--(?:extra-)?index-url|--find-links|(?:^|\s)-[fi](?=\s)|\+cu\d|\+rocm",
                    re.I)
_COMMAND_END = re.compile(r"[`;,)）（，。；、]|\.(?=\s|$)|\s(?:on|in|and|but|with|then|to|from|for)\s", re.I)  # where prose goes on
_WINDOWS = re.compile(r"\bWindows\b|\bWIN(?:DOWS)?\b")
_WINDOWS_NUMBERED = re.compile(r"\bwin(?:dows)?[\s-]?(?:7|8(?:\.1)?|10|11)\b", re.I)
_OTHER_SYSTEM = re.compile(r"\b(?:linux|ubuntu|debian|centos|fedora|arch|wsl\d?|mac(?:os|book)?|os\s?x|colab|"
                           r"docker|kaggle|subsystem)\b", re.I)
# nvidia-smi's header row: Linux (and WSL) name the column Persistence-M, Windows TCC/WDDM
_SMI_HEADER = re.compile(r"\bGPU\s+Name\b.*?\b(Persistence-M|TCC/WDDM)\b")
_CONDA_TORCH = re.compile(r"\b(?:conda|mamba|micromamba)\s+(?:install|create)\b.*\bpytorch\b|\bpytorch-cuda\b|"
                          r"\bcudatoolkit\b|\bpytorch\s+\d+\.\d+(?:\.\d+)?\s+\S*cuda|\bpytorch\s*=+\s*\d", re.I)
# the interactive interpreter's banner: "[GCC 7.3.0] :: Anaconda, Inc. on linux", "[MSC v.1916 64 bit (AMD64)] on win32"
_BANNER = re.compile(r"^\s*\[(?:GCC|MSC|Clang)\b[^\]]*\](?:\s*::[^\n]*?)?\s+on\s+(linux|win32|darwin)\s*$")
_BANNER_SYSTEMS = {"linux": "Linux", "win32": "Windows", "darwin": "Darwin"}
# a Linux distribution named with its release: "Ubuntu 18.04", "CentOS 7", "Debian 12"
_DISTRO = re.compile(r"\b(?:Ubuntu|Debian|CentOS|Fedora|RHEL|Rocky Linux|AlmaLinux|openSUSE|Linux Mint|Pop!_OS)\s+"
                     r"(?:Linux\s+|Server\s+)?\d{1,2}(?:\.\d{1,2})?\b")
_DISTRO_WORD = re.compile(r"Ubuntu|Debian|CentOS|Fedora|RHEL|Rocky|Alma|openSUSE|Mint|Pop!_OS")  # a cheap pre-test
_TORCH_PIN = re.compile(r"(?:^|\s)torch\s*={2,3}\s*(\d{1,2}\.\d{1,3}\.\d{1,3}(?:\+[\w.]{1,24})?)(?=$|[\s\\'\"`])")
_PIN_INDEX = re.compile(r"download\.pytorch\.org/whl/(cu\d{2,3}|cpu)\b")
_PIP_SOURCES = frozenset({"pip list", "pip show", "pip freeze", "python -c", "python REPL", "pip install log",
                          "uv install log"})


def hints(segment: Segment) -> Iterator[Observation]:
    """pip commands that take torch from PyPI, and sentences that name Windows as the machine's system."""
    for line in segment.lines:
        text = line.text
        low = text.lower()
        if "pip" in low:
            m = _PIP.search(text)
            if m and _TORCH_OR_FILE.search(m.group(1)) and not _INDEX.search(text):
                command = _COMMAND_END.split(m.group(0), maxsplit=1)[0]
                yield observe(PYPI_INSTALL, " ".join(command.split())[:200], segment, line, "pip command")
        if "pip" in low and "torch" in low:
            pin = _TORCH_PIN.search(text) if _PIP.search(text) else None
            if pin:
                index = _PIN_INDEX.search(text)
                version = pin.group(1)
                if index and "+" not in version:
                    version = f"{version}+{index.group(1)}"
                yield observe(TORCH_PINNED, version, segment, line, "pip command")
        if " on " in text and "[" in text:
            banner = _BANNER.match(text)
            if banner:
                yield observe(SYSTEM_SAID, _BANNER_SYSTEMS[banner.group(1)], segment, line, "python banner")
        elif _DISTRO_WORD.search(text):
            distro = _DISTRO.search(text)
            if distro and not _WINDOWS.search(text) and "mac" not in low:
                yield observe(SYSTEM_SAID, "Linux", segment, line, "prose")
        if "GPU" in text and "Name" in text:
            header = _SMI_HEADER.search(text)
            if header:
                system = "Linux" if header.group(1) == "Persistence-M" else "Windows"
                yield observe(SMI_SYSTEM, system, segment, line, "nvidia-smi")
        if "cuda" in low or "conda" in low or "pytorch" in low:
            conda = _CONDA_TORCH.search(text)
            if conda:
                yield observe(CONDA_TORCH, conda.group()[:80], segment, line, "conda")
        if "win" in low and (_WINDOWS.search(text) or _WINDOWS_NUMBERED.search(text)) and not _OTHER_SYSTEM.search(text):
            yield observe(WINDOWS_SAID, True, segment, line, "prose")


def _mark(facts: Facts, note: str) -> Tuple[Facts, List[Tuple[str, str]]]:
    torch = dataclasses.replace(facts.torch, cuda_compiled=False, installed=True)
    platform = facts.platform
    paths: Tuple[str, ...] = ("torch.cuda_compiled",)
    if platform.system is None:  # named in prose only: the inference rests on it, and the fix commands follow it
        platform, paths = dataclasses.replace(platform, system="Windows"), paths + ("platform.system",)
    inferred = tuple(dict.fromkeys(facts.inferred + paths))
    return (dataclasses.replace(facts, torch=torch, platform=platform, inferred=inferred),
            [("inferred.torch.cuda_compiled", note)])


def windows_cpu_wheel(facts: Facts, observations: Iterable[Observation],
                      explained: bool) -> Tuple[Facts, List[Tuple[str, str]]]:
    """The CPU-only PyPI wheel, inferred, where the paste shows a Windows torch from PyPI. ``explained``: the paste
    holds a message that names another cause (or a CUDA build), which then stands on its own."""
    t = facts.torch
    seen = list(observations)
    system = facts.platform.system
    windows = system == "Windows" or (system is None and any(o.path == WINDOWS_SAID for o in seen))
    if (not windows or "+" in (t.version or "") or t.cuda or t.hip or t.cuda_compiled is not None
            or t.import_error or t.init_error or t.is_available is True):
        return facts, []  # torch shown using CUDA is no CPU wheel, whatever its version says
    if t.version and not any(o.path == CONDA_TORCH for o in seen):
        source = next((o.fmt for o in seen if o.path in ("torch.version", NOW) and o.value == t.version), None)
        if source in _PIP_SOURCES:
            return _mark(facts, f"torch {t.version} ({source}) has no +cuXXX tag: on Windows that is PyPI's wheel, "
                                "which is CPU-only; CUDA builds come from download.pytorch.org")
    command = next((o for o in seen if o.path == PYPI_INSTALL), None)
    indexed = any(o.path in ("torch_index", "rocm_index") for o in seen)
    if command is None or indexed or explained or t.is_available is not False:
        return facts, []
    return _mark(facts, f"line {command.line}: `{command.value}` took torch from PyPI on Windows, and torch "
                        "says CUDA is unavailable: PyPI's Windows wheels of torch are CPU-only; CUDA builds come "
                        "from download.pytorch.org")


def pinned_torch(facts: Facts, observations: Iterable[Observation]) -> Tuple[Facts, List[Tuple[str, str]]]:
    """The torch version a pip command pins, where nothing else in the paste gives the installed one, every pin agrees
    and torch is shown answering (marked inferred): the command that installed it, with the build its index names."""
    seen = list(observations)
    pin = agreed(seen, TORCH_PINNED)
    t = facts.torch
    if t.version or pin is None or t.installed is False:
        return facts, []
    if t.is_available is None and not t.init_error:
        return facts, []  # a command alone says what is wanted; torch answering after it says it was installed
    if any(o.path == "signature" and o.value in (Sig.TORCH_NOT_FOUND, Sig.NO_TORCH) for o in seen):
        return facts, []  # the install failed: the pin is what was asked for, not what is there
    torch = dataclasses.replace(t, version=pin.value)
    inferred = tuple(dict.fromkeys(facts.inferred + ("torch.version",)))
    note = f"line {pin.line}: the pip command installs torch {pin.value}, and nothing else gives the version"
    extra = facts.extra + (("paste.line.torch.version", f"{pin.line}: {pin.quote}"),)
    return dataclasses.replace(facts, torch=torch, inferred=inferred, extra=extra), [("inferred.torch.version", note)]


def smi_system(facts: Facts, observations: Iterable[Observation]) -> Tuple[Facts, List[Tuple[str, str]]]:
    """The system a Python banner or a named Linux distribution says, else the one nvidia-smi's table implies
    (Persistence-M on Linux and WSL, TCC/WDDM on Windows), where no tool output names one and the sources of that
    kind agree (nvidia-smi's marked inferred)."""
    if facts.platform.system is not None:
        return facts, []
    seen = list(observations)
    named = agreed(seen, SYSTEM_SAID)
    if named is not None:
        platform = dataclasses.replace(facts.platform, system=named.value)
        extra = facts.extra + (("paste.line.platform.system", f"{named.line}: {named.quote}"),)
        return dataclasses.replace(facts, platform=platform, extra=extra), []
    said = agreed(seen, SMI_SYSTEM)
    if said is None:
        return facts, []
    platform = dataclasses.replace(facts.platform, system=said.value)
    inferred = tuple(dict.fromkeys(facts.inferred + ("platform.system",)))
    column = "Persistence-M" if said.value == "Linux" else "TCC/WDDM"
    return (dataclasses.replace(facts, platform=platform, inferred=inferred),
            [("inferred.platform.system", f"line {said.line}: nvidia-smi's table has the {column} column of "
                                          f"{said.value}'s nvidia-smi")])


def linux_default_build(facts: Facts, observations: Iterable[Observation]) -> Tuple[Facts, List[Tuple[str, str]]]:
    """The CUDA build PyPI ships for Linux, inferred for a torch version without a local tag on a Linux machine,
    unless the paste shows torch from conda, another build, or CUDA working (which a conda build of another CUDA would
    explain)."""
    t = facts.torch
    version = t.version or ""
    if (not version or "+" in version or t.cuda or t.hip or t.cuda_compiled is not None or t.import_error
            or t.is_available is True or facts.platform.torch_from_conda or facts.platform.system != "Linux"
            or any(o.path in (CONDA_TORCH, "amd_gpu", "rocm_index", "intel_gpu") for o in observations)):
        return facts, []  # from conda, or on a machine of another GPU maker: PyPI's CUDA build is not the likely one
    machine = facts.platform.machine or "x86_64"
    variant = compat.default_variant(version, "Linux", machine)
    cuda = compat.variant_cuda(variant) if variant else None
    if not cuda:
        return facts, []
    torch = dataclasses.replace(t, cuda=cuda, cuda_compiled=True, installed=True)
    inferred = tuple(dict.fromkeys(facts.inferred + ("torch.cuda", "torch.cuda_compiled")))
    note = (f"torch {version} has no local version tag on a Linux machine: that is PyPI's build for Linux {machine}, "
            f"{variant} (CUDA {cuda}); a conda build of it would name its own CUDA")
    return (dataclasses.replace(facts, torch=torch, inferred=inferred), [("inferred.torch.cuda", note)])
