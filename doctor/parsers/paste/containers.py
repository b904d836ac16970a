"""Container start commands in a paste (docker/podman run lines, compose files and compose up) with whether each asks
for GPUs, and the lines that say a program found no GPU."""

from __future__ import annotations

import re
import shlex
from typing import Iterator, List, Optional, Tuple

from gpudoctor.facts.containers import ContainerRun, GpuRequest, Runtime, image_name
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Kind, Line, Segment

MAX_JOINED = 40  # continuation lines joined into one command at most
# a shell prompt ("$ ", "# ", "❯ ", "user@host:~$ ", "PS C:\\x> ") before a command at the start of a line
_PROMPT = r"^\s*(?:(?:\S*[$#%>❯]|PS\s+\S*>)\s*)?"
_RUN = re.compile(_PROMPT + r"(?:sudo\s+(?:-\S+\s+)*)?(docker|podman)\s+(?:container\s+)?run\s+(.*)$", re.I)
_INLINE_RUN = re.compile(r"`(?:sudo\s+)?(docker|podman)\s+(?:container\s+)?run\s+([^`]*)`", re.I)
_COMPOSE_UP = re.compile(_PROMPT + r"(?:sudo\s+)?(?:docker[ -]compose|podman[ -]compose)\b[^`|;&]*?\bup\b", re.I)
_COMPOSE_INLINE = re.compile(r"`(?:sudo\s+)?(?:docker[ -]compose|podman[ -]compose)\b[^`]*?\bup\b[^`]*`", re.I)
_SERVICES = re.compile(r"^services:\s*$")
_COMPOSE_GPU = (
    (GpuRequest.GPUS, re.compile(r"capabilities:\s*\[[^\]]*\bgpu\b|^\s*-\s*\[?\s*['\"]?gpu['\"]?\s*\]?\s*$|"
                                 r"^\s*-?\s*driver:\s*['\"]?nvidia\b|^\s*count:\s*['\"]?(?:all|\d+)\b|"
                                 r"\bgpus:\s*\S", re.I | re.M)),
    (GpuRequest.RUNTIME, re.compile(r"^\s*runtime:\s*['\"]?nvidia", re.I | re.M)),
    (GpuRequest.CDI, re.compile(r"nvidia\.com/gpu", re.I)),
    (GpuRequest.DEVICE, re.compile(r"/dev/nvidia", re.I)),
    (GpuRequest.ENV, re.compile(r"NVIDIA_VISIBLE_DEVICES\s*[:=]\s*['\"]?(?!void|none)[\w,-]+", re.I)),
)
_COMPOSE_IMAGE = re.compile(r"^\s+image:\s*['\"]?([^\s'\"#]+)")
_NO_GPU = re.compile(
    r"\bCUDA (?:acceleration |availability |device )?(?:test|check|probe) failed"
    r"|\bNo (?:NVIDIA |CUDA[- ]capable |usable |compatible )?GPUs? (?:was |were )?(?:detected|found|available)"
    r"|\bGPU (?:is )?unusable"
    r"|\b(?:load(?:ed|s|ing)?|run(?:s|ning)?|ran|f[ae]ll(?:s|ing)? back|execut(?:ed|es|ing)|us(?:es|ed|ing))"
    r"\s+(?:[\w-]+\s+){0,3}?(?:on(?:to)?|to)\s+(?:the\s+)?CPUs?\s+(?:instead of|rather than)\s+(?:the\s+)?GPU"
    r"|nvidia-smi['\"]?: (?:command )?not found|\"nvidia-smi\": executable file not found",
    re.I,
)


def _no_gpu_words(low: str) -> bool:
    """What a line must hold, lowered, for _NO_GPU to match: "gpu" (most forms), CUDA's "... failed" or "not found"
    (nvidia-smi's); the pattern is slow to fail, and most lines that name a GPU say nothing of its absence."""
    return "gpu" in low or ("cuda" in low and "led" in low) or "not found" in low


# docker/podman run options that take a value (the next word unless written --opt=value)
_VALUE_LONG = frozenset("""
add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop cgroup-parent cgroupns cidfile
cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems device device-cgroup-rule
device-read-bps device-read-iops device-write-bps device-write-iops dns dns-option dns-search domainname entrypoint
env env-file expose gpus group-add health-cmd health-interval health-retries health-start-period health-timeout
hostname ip ip6 ipc isolation kernel-memory label label-file link link-local-ip log-driver log-opt mac-address
memory memory-reservation memory-swap memory-swappiness mount name network net network-alias oom-score-adj pid
pids-limit platform publish pull restart runtime security-opt shm-size stop-signal stop-timeout storage-opt sysctl
tmpfs ulimit user userns uts volume volume-driver volumes-from workdir hooks-dir secret arch os variant pod
""".split())
_VALUE_SHORT = frozenset("acehlmpuvw")


def _logical(lines: Tuple[Line, ...], start: int) -> Tuple[str, int]:
    """The command starting at ``lines[start]`` with its continuation lines (\\, ^ or a PowerShell backtick)
    joined, and the index of its last line."""
    parts: List[str] = []
    i = start
    while i < len(lines) and i - start < MAX_JOINED:
        text = lines[i].text.rstrip()
        cont = text.endswith("\\") or text.endswith(" ^") or text.endswith(" `")
        parts.append(text[:-1] if cont else text)
        if not cont:
            break
        i += 1
    return " ".join(parts), min(i, len(lines) - 1)


def _words(text: str) -> List[str]:
    text = re.split(r"\s(?:&&|\|\||;|\|)\s", text, maxsplit=1)[0]
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:
        return text.split()


def _asks(option: str, value: str) -> Optional[GpuRequest]:
    low = value.lower()
    if option == "gpus":
        return GpuRequest.GPUS
    if option == "runtime" and "nvidia" in low:
        return GpuRequest.RUNTIME
    if option == "device":
        if low.startswith("nvidia.com/gpu"):
            return GpuRequest.CDI
        if low.startswith("/dev/nvidia"):
            return GpuRequest.DEVICE
    if option in ("e", "env") and value.split("=", 1)[0] == "NVIDIA_VISIBLE_DEVICES":
        wanted = value.partition("=")[2].strip().lower() if "=" in value else "host"
        return GpuRequest.ENV if wanted not in ("", "void", "none") else None
    return None


def parse_run(words: List[str]) -> Optional[Tuple[GpuRequest, Optional[str]]]:
    """How the options of a run command (the words after ``run``) ask for GPUs, and the image; None when the
    command ends before naming an image (cut off or not a command)."""
    request = GpuRequest.NONE
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if not eq and name in _VALUE_LONG:
                value, i = (words[i + 1] if i + 1 < len(words) else ""), i + 1
            option = name
        else:
            letters = word[1:]
            cut = next((k for k, ch in enumerate(letters) if ch in _VALUE_SHORT), None)
            option, value = (letters[cut], letters[cut + 1:]) if cut is not None else (letters[-1:], "")
            if cut is not None and not value:
                value, i = (words[i + 1] if i + 1 < len(words) else ""), i + 1
        asked = _asks(option, value)
        if asked is not None and request is GpuRequest.NONE:
            request = asked
        i += 1
    if i >= len(words):
        return None
    return request, image_name(words[i])


def _run(segment: Segment, line: Line, runtime: str, rest: str) -> Iterator[Observation]:
    parsed = parse_run(_words(rest))
    if parsed is None:
        return
    kind = Runtime.PODMAN if runtime.lower() == "podman" else Runtime.DOCKER
    yield observe("container.run", ContainerRun(kind, parsed[0], parsed[1], line.number).encode(), segment, line,
                  f"{kind.value} run")
    yield observe("platform.container", kind.value, segment, line, f"{kind.value} run")


def _compose_file(segment: Segment) -> Iterator[Observation]:
    start = next((line for line in segment.lines if _SERVICES.match(line.text)), None)
    if start is None:
        return
    text = segment.text()
    request = next((req for req, rx in _COMPOSE_GPU if rx.search(text)), GpuRequest.NONE)
    image = next((m.group(1) for m in map(_COMPOSE_IMAGE.match, (x.text for x in segment.lines)) if m), None)
    run = ContainerRun(Runtime.COMPOSE, request, image_name(image) if image else None, start.number)
    yield observe("container.run", run.encode(), segment, start, "compose file")
    yield observe("platform.container", "docker", segment, start, "compose file")


# a line of prose that is a command all the same: it starts with the command and carries options
_PROSE_COMMAND = re.compile(r"^\s*(?:sudo\s+)?(?:docker|podman)\s+(?:container\s+)?run\s+(?:-{1,2}[\w-]+[= ]?\S*\s+)+\S")


# NGC images' entrypoint: "This container was built for NVIDIA Driver Release 450.36 or later, but" and, often on
# the next line, "version 440.100 was detected and compatibility mode is UNAVAILABLE."
_NGC_NEEDS = re.compile(r"This container was built for NVIDIA Driver Release (\d{2,3}\.\d{1,3}(?:\.\d{1,3})?) or later,"
                        r"\s*but\b(?:\s*version (\d{2,3}\.\d{1,3}(?:\.\d{1,3})?) was detected)?")
_NGC_FOUND = re.compile(r"^\s*version (\d{2,3}\.\d{1,3}(?:\.\d{1,3})?) was detected\b")
IMAGE_DRIVER = "image_driver_min"  # the driver release an NGC image's banner says it was built for


def ngc_banner(segment: Segment) -> Iterator[Observation]:
    """The driver an NGC image needs and the one it found, as its entrypoint banner says them."""
    lines = segment.lines
    for i, line in enumerate(lines):
        if "Driver Release" not in line.text:
            continue
        m = _NGC_NEEDS.search(line.text)
        if not m:
            continue
        yield observe(IMAGE_DRIVER, m.group(1), segment, line, "NGC image banner")
        found, where = m.group(2), line
        if found is None and i + 1 < len(lines):
            below = _NGC_FOUND.match(lines[i + 1].text)
            found, where = (below.group(1), lines[i + 1]) if below else (None, line)
        if found:
            yield observe("driver.version", found, segment, where, "NGC image banner")
        return


def container_runs(segment: Segment) -> Iterator[Observation]:
    """Each container start command and compose service file of a segment, and lines saying no GPU was found."""
    lines = segment.lines
    text = segment.text()
    low = text.lower()
    if "docker" in low or "podman" in low:
        i = 0
        while i < len(lines):
            line = lines[i]
            m = _RUN.match(line.text) if (segment.kind is not Kind.PROSE or line.text.lstrip()[:1] in "$#❯"
                                          or _PROSE_COMMAND.match(line.text)) else None
            if m:
                joined, last = _logical(lines, i)
                found = _RUN.match(joined)
                if found:
                    yield from _run(segment, line, found.group(1), found.group(2))
                i = last + 1
                continue
            if "`" in line.text:
                for inline in _INLINE_RUN.finditer(line.text):
                    yield from _run(segment, line, inline.group(1), inline.group(2))
            if "compose" in line.text.lower() and (_COMPOSE_UP.match(line.text) or _COMPOSE_INLINE.search(line.text)):
                run = ContainerRun(Runtime.COMPOSE, GpuRequest.UNKNOWN, None, line.number)
                yield observe("container.run", run.encode(), segment, line, "compose up")
                yield observe("platform.container", "docker", segment, line, "compose up")
            i += 1
    if "services:" in text:
        yield from _compose_file(segment)
    if "gpu" in low or "cpu" in low or "cuda" in low or "nvidia-smi" in low:
        for line in lines:
            words = line.text.lower()
            if (("gpu" in words or "cpu" in words or "cuda" in words or "smi" in words) and _no_gpu_words(words)
                    and _NO_GPU.search(line.text)):
                yield observe("container.no_gpu", line.text.strip()[:200], segment, line, "a program's message")
