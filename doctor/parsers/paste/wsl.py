"""WSL 1 as pastes show it: a kernel release ending in -Microsoft, `wsl -l -v` rows, and a Windows build too old for
WSL 2 in a paste that speaks of WSL."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator, Sequence

from gpudoctor.facts import Facts
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

WSL2_FIRST_BUILD = 18362  # Windows 10 1903: the first build that runs WSL 2
# WSL 1 reports the Windows build as its kernel release: "4.4.0-19041-Microsoft" (WSL 2: "...-microsoft-standard-WSL2")
_WSL1_KERNEL = re.compile(r"\b\d+\.\d+\.\d+-\d+-Microsoft\b")
_LIST_ROW = re.compile(r"^\s*(\*)?\s*([\w.-]{1,64})\s+(Running|Stopped|Installing|Converting|Uninstalling)\s+([12])\s*$")
_LIST_HEAD = re.compile(r"^\s*NAME\s+STATE\s+VERSION\s*$")
_WINDOWS_BUILD = re.compile(r"Microsoft Windows \[Version 10\.0\.(\d{5})|\bWindows 1[01]\b[^\n]{0,40}?\b(?:OS )?[Bb]uild "
                            r"(?:10\.0\.)?(\d{5})|\bOS Version:\s*10\.0\.(\d{5})")
_WSL_WORD = re.compile(r"\bWSL\b|Windows Subsystem for Linux", re.I)


def wsl_hints(segment: Segment) -> Iterator[Observation]:
    """``platform.wsl`` 1 from a WSL 1 kernel release or the default distribution's row of `wsl -l -v`; the
    Windows build and a mention of WSL, which the paste's reader weighs together."""
    listing = mentioned = False
    for line in segment.lines:
        text = line.text
        if "Microsoft" in text and _WSL1_KERNEL.search(text):
            yield observe("platform.system", "Linux", segment, line, "a WSL 1 kernel")
            yield observe("platform.wsl", 1, segment, line, "a WSL 1 kernel")
        if _LIST_HEAD.match(text):
            listing = True
            continue
        if listing:
            row = _LIST_ROW.match(text)
            if not row:
                listing = False
            elif row.group(1) or len(segment.lines) <= 3:
                yield observe("wsl.distro", row.group(2), segment, line, "wsl -l -v")
                yield observe("platform.system", "Linux", segment, line, "wsl -l -v")
                yield observe("platform.wsl", int(row.group(4)), segment, line, "wsl -l -v")
        if "indows" in text:
            build = _WINDOWS_BUILD.search(text)
            if build:
                yield observe("wsl.windows_build", next(g for g in build.groups() if g), segment, line, "Windows version")
        if not mentioned and ("WSL" in text or "wsl" in text or "Subsystem" in text) and _WSL_WORD.search(text):
            mentioned = True
            yield observe("wsl.mentioned", "yes", segment, line, "WSL")


def before_wsl2(facts: Facts, observations: Sequence[Observation]) -> Facts:
    """A paste about WSL from a Windows build older than WSL 2 is about WSL 1 (when nothing else says which)."""
    builds = [int(o.value) for o in observations if o.path == "wsl.windows_build"]
    if facts.platform.wsl is not None or not builds or not any(o.path == "wsl.mentioned" for o in observations):
        return facts
    if max(builds) >= WSL2_FIRST_BUILD:
        return facts
    platform = dataclasses.replace(facts.platform, wsl=1, system=facts.platform.system or "Linux")
    return dataclasses.replace(facts, platform=platform)
