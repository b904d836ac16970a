"""Apple silicon as pastes show it: the chip, the Python's own CPU architecture (an x86_64 Python under Rosetta),
torch's libraries built for another CPU (dlopen's "incompatible architecture"), MPS, and Docker Desktop's Linux VM."""

from __future__ import annotations

import re
from typing import Iterator, Optional

from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

IMPORT = "torch.import_error"
# the chip named: "Apple M2 Pro" (collect_env's CPU line, sysctl), "an M1 chip", "M3 Max MacBook", "Mac M1", "Apple silicon"
_CHIP = re.compile(r"\bApple M[1-9](?: (?:Pro|Max|Ultra))?\b|\bM[1-9](?: (?:Pro|Max|Ultra))? (?:chip|Mac(?:Book)?)\b|"
                   r"\b[Mm]ac(?:Book)?(?: (?:Pro|Air))? M[1-9]\b|\bApple [Ss]ilicon\b|"
                   r"\b(?:[Aa]n|[Mm]y|[Tt]he|[Oo]n|[Ww]ith) M[1-9](?: (?:Pro|Max|Ultra))?\b(?![-_/.]\w)")
_CHIP_NUMBER = re.compile(r"M[1-9]")  # every form of _CHIP but "Apple silicon" holds it: a cheap pre-test
# `sysctl sysctl.proc_translated` answers 1 for a process that Rosetta translates
_TRANSLATED = re.compile(r"\bsysctl\.proc_translated\s*[:=]\s*1\b")
# Python's platform.platform(): "macOS-10.16-x86_64-i386-64bit", "macOS-14.2-arm64-arm-64bit",
# "Linux-5.15.49-linuxkit-aarch64-with-glibc2.29"
_MAC_PLATFORM = re.compile(r"\b(?:macOS|Darwin)-(\d+(?:\.\d+)*)-(x86_64|arm64)-(?:i386|arm)-64bit\b")
_LINUX_PLATFORM = re.compile(r"\bLinux-(\d[\w.+-]*?)-(x86_64|aarch64)-with-\w")
# dlopen on macOS: "(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))"
INCOMPATIBLE = re.compile(r"incompatible architecture \(have '?(x86_64|arm64e?)'?, need '?(x86_64|arm64e?)'?\)")
# `uname -a` on a Mac: the kernel's build names the CPU (RELEASE_ARM64_T6000), the last word the process's machine
_UNAME = re.compile(r"Darwin Kernel Version [^\n]*?RELEASE_(ARM64|X86_64)\w*\s+(x86_64|arm64)\b")
# platform.uname() and `conda info`'s "platform : osx-64"
_PY_UNAME = re.compile(r"system='Darwin'[^)]*?machine='(x86_64|arm64)'")
_CONDA_PLATFORM = re.compile(r"^\s*platform\s*:\s*osx-(64|arm64)\s*$")
WRONG = re.compile(r"mach-o,? but wrong architecture")  # older macOS: "(mach-o, but wrong architecture)"
_ASKS = re.compile(r"platform\.machine\(\)|\buname -m\b|\barch\s*$")
_ANSWER = re.compile(r"^\s*['\"]?(x86_64|arm64|aarch64|i386)['\"]?\s*$")
_MPS = re.compile(r"torch\.backends\.mps\.is_available\(\)\s*\)?[`*]*\s*(?:#\s*)?(?:returns?|prints?|gives|is|->|=>|==?|:)?"
                  r"\s*[`'\"*]*(?:(True|False)\b)?")
_DOCKER_DESKTOP_MAC = re.compile(r"Docker Desktop (?:for Mac|on (?:a |my )?(?:Mac|macOS|M[1-9]))", re.I)


def _machine(answer: str) -> str:
    """``arch`` on a Mac says i386 for an x86_64 process."""
    return "x86_64" if answer == "i386" else answer


def _next_answer(segment: Segment, index: int) -> Optional[str]:
    if index + 1 >= len(segment.lines):
        return None
    m = _ANSWER.match(segment.lines[index + 1].text)
    return m.group(1) if m else None


def apple_hints(segment: Segment) -> Iterator[Observation]:
    """The chip, Rosetta, platform strings, the machine a Python prints, MPS's answer and dlopen's architecture error."""
    lines = segment.lines
    for i, line in enumerate(lines):
        text = line.text
        if ("M" in text and _CHIP_NUMBER.search(text)) or "ilicon" in text:
            chip = _CHIP.search(text)
            if chip:
                yield observe("mac.chip", chip.group(0), segment, line, "Apple silicon")
        if "proc_translated" in text and _TRANSLATED.search(text):
            yield observe("mac.rosetta", "sysctl.proc_translated: 1", segment, line, "sysctl")
        if "64bit" in text:
            mac = _MAC_PLATFORM.search(text)
            if mac:
                yield observe("platform.system", "Darwin", segment, line, "platform string")
                yield observe("platform.machine", mac.group(2), segment, line, "platform string")
                yield observe("mac.platform", mac.group(0), segment, line, "platform string")
        if "Linux-" in text:
            linux = _LINUX_PLATFORM.search(text)
            if linux:
                yield observe("platform.system", "Linux", segment, line, "platform string")
                yield observe("platform.machine", linux.group(2), segment, line, "platform string")
                if "linuxkit" in linux.group(1):  # the kernel of Docker Desktop's Linux VM
                    yield observe("platform.container", "docker", segment, line, "Docker Desktop")
                    if linux.group(2) == "aarch64":  # Docker Desktop on arm64: a Mac with Apple silicon
                        yield observe("container.host", "macOS", segment, line, "Docker Desktop")
        if "Darwin" in text or "osx-" in text:  # what each of _machines' forms holds
            yield from _machines(segment, i)
        if "Docker Desktop" in text and _DOCKER_DESKTOP_MAC.search(text):
            yield observe("platform.container", "docker", segment, line, "Docker Desktop")
            yield observe("container.host", "macOS", segment, line, "Docker Desktop")
        if ("machine" in text or "uname" in text or "arch" in text) and _ASKS.search(text):
            answer = _next_answer(segment, i)
            if answer:
                yield observe("platform.machine", _machine(answer), segment, lines[i + 1], "python REPL")
        if "mps" in text:
            yield from _mps(segment, i)
        if "architecture" in text:
            yield from _incompatible(segment, i)
        elif "not a mach-o file" in text:  # dlopen on macOS refusing a Linux ELF library
            yield observe("platform.system", "Darwin", segment, line, "dlopen")


def _machines(segment: Segment, index: int) -> Iterator[Observation]:
    """The Mac's machine as `uname -a`, platform.uname() and `conda info` print it."""
    line = segment.lines[index]
    text = line.text
    uname = _UNAME.search(text) if "Darwin Kernel" in text else None
    if uname:
        yield observe("platform.system", "Darwin", segment, line, "uname")
        yield observe("platform.machine", uname.group(2), segment, line, "uname")
        if uname.group(1) == "ARM64":
            yield observe("mac.chip", "Apple silicon (an ARM64 kernel)", segment, line, "uname")
    found = _PY_UNAME.search(text) if "Darwin" in text else None
    found = found or (_CONDA_PLATFORM.match(text) if "osx-" in text else None)
    if found:
        yield observe("platform.system", "Darwin", segment, line, "platform")
        yield observe("platform.machine", "x86_64" if found.group(1) in ("64", "x86_64") else "arm64", segment, line,
                      "platform")


def _mps(segment: Segment, index: int) -> Iterator[Observation]:
    line = segment.lines[index]
    m = _MPS.search(line.text)
    if not m:
        return
    said = m.group(1)
    if said is None and index + 1 < len(segment.lines):
        said = segment.lines[index + 1].text.strip().strip("`'\"")
        line = segment.lines[index + 1]
    if said in ("True", "False"):
        yield observe("torch.mps_available", said == "True", segment, line, "python REPL")


def _incompatible(segment: Segment, index: int) -> Iterator[Observation]:
    """dlopen's refusal names both sides: ``have`` the library's architecture, ``need`` the Python process's."""
    line = segment.lines[index]
    m = INCOMPATIBLE.search(line.text)
    if not m and not WRONG.search(line.text):
        return
    yield observe("platform.system", "Darwin", segment, line, "dlopen")
    if m:
        have, need = m.group(1), m.group(2)
        yield observe("platform.machine", "arm64" if need.startswith("arm64") else need, segment, line, "dlopen")
        yield observe("arch.have", have, segment, line, "dlopen")
        yield observe("arch.need", need, segment, line, "dlopen")
    if "torch" in line.text:
        yield observe("torch.installed", True, segment, line, "dlopen")
        message = line.text.strip()
        if not message.startswith(("OSError", "ImportError")):
            message = "OSError: " + message
        yield observe(IMPORT, message[:500], segment, line, "dlopen")
