"""PyPI's torch wheels for Windows are CPU-only: a Windows torch that pip took from PyPI cannot use CUDA.

Two ways a paste shows it: a torch version without a ``+cuXXX`` tag as pip or torch prints it, or a pip command
that installs torch (or a requirements file) with no PyTorch index, on a machine the paste calls Windows, followed
by torch saying CUDA is unavailable. Either is marked inferred, never observed.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Iterator, List, Tuple

from gpudoctor.facts import Facts
from gpudoctor.parsers.paste.installs import NOW
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

PYPI_INSTALL = "install.pypi_torch"  # a pip command installing torch or a requirements file with no PyTorch index
WINDOWS_SAID = "platform.windows_said"  # a sentence naming Windows as the system, and no other system
NOT_MERGED = frozenset({PYPI_INSTALL, WINDOWS_SAID})

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
            or t.import_error or t.init_error):
        return facts, []
    if t.version:
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
