"""The torch that is installed *now*: what pip's or uv's install log put in place, and a sentence saying an install
left a CPU build. Both describe a later state than a collect_env pasted from before, and replace its torch."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator, List, Optional, Tuple
from urllib.parse import unquote

from gpudoctor import compat
from gpudoctor.compat.base import version_tuple
from gpudoctor.facts import Facts
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Line, Segment

NOW = "torch.now"  # the version an install log put in place
NOW_CPU = "torch.now_cpu"  # a sentence saying the torch is now a CPU build
_INSTALLED = re.compile(r"^\s*Successfully installed\s+(.*)$")
_INSTALLED_TORCH = re.compile(r"(?:^|\s)torch-(\d+\.\d+[\w.]*(?:\+[\w.]+)?)(?=\s|$)")
_UV_ADDED = re.compile(r"^\s*\+\s+torch==(\d+\.\d+[\w.]*(?:\+[\w.]+)?)\s*$")
# a torch wheel pip fetches: "Downloading torch-2.1.0%2Bcpu-cp39-cp39-linux_x86_64.whl", or a URL under /whl/cpu/
_WHEEL = re.compile(r"(?:(/whl/(?:nightly/)?(cpu|cu\d{2,3}|rocm[\d.]+)/))?(?:[^\s/]*/)*torch-(\d+\.\d+[\w.]*?)"
                    r"(?:(?:%2B|\+)([\w.]+))?-cp\d+-[\w]+-(\w+)\.whl", re.I)
_CPU_WORDS = re.compile(r"(?:\bcpu[- ]only\b|\bcpu (?:versions?|builds?|wheels?)\b|`?\+cpu`?(?:\s+build)?\b|"
                        r"\b(?:build|version|wheel|package)s? without (?:cuda|gpu)(?: support)?\b|"
                        r"\bnon-?cuda (?:torch|pytorch|build|version|wheel)\b|\b(?:py)?torch for (?:the )?cpu\b|"
                        r"cpu\s*(?:版本|版))", re.I)
_FETCHING = re.compile(r"^\s*(?:Downloading|Collecting|Obtaining|Looking in|Saved|Processing|Using cached|File was)\b",
                       re.I)  # pip's own lines: the wheel was fetched, not necessarily installed
_TORCH_WORD = re.compile(r"\b(?:py)?torch\b|torch\.__version__", re.I)
_LATER = re.compile(r"\b(?:after(?:wards)?|now|since then|then|became|replaced|changes?d?|switched|turned into|"
                    r"downgraded|ended up|install(?:s|ed)|pulled(?: in)?|pulls in|brought in|picked|picks|chose|chooses|"
                    r"selected|resolved|fetched|downloaded|fell back|falls back)\b|安装|装上|默认", re.I)
_NEGATION = re.compile(r"\b(?:not|no|n't|instead of|rather than|never|without)\b[^.]{0,20}$", re.I)
# a command line itself (what was asked for, not what is there), or an index URL that names a build
_COMMAND = re.compile(r"^\s*(?:[$>]\s*)?(?:python3?\s+-m\s+)?(?:pip3?|uv(?:\s+pip)?|conda|mamba)\s+install\b|"
                      r"--index-url|--extra-index-url|download\.pytorch\.org", re.I)


def _wheel_version(m: re.Match[str]) -> Tuple[str, bool]:
    """The version a torch wheel installs, and whether it is a CPU build (a PyPI wheel for Windows or macOS is)."""
    release, tag, folder, platform = m.group(3), m.group(4), m.group(2), m.group(5).lower()
    tag = tag or (folder.lower() if folder else None)
    cpu = (tag or "").lower() == "cpu" or (not tag and (platform.startswith("win") or platform.startswith("macosx")))
    return (f"{release}+{tag}" if tag else release), cpu


def install_logs(segment: Segment) -> Iterator[Observation]:
    """pip's "Successfully installed ... torch-X" (with the wheel it downloaded, which names the build), uv's
    "+ torch==X", and a sentence that says torch became a CPU build."""
    wheels: List[Tuple[str, bool]] = []
    lone: List[Tuple[Tuple[str, bool], Line]] = []  # wheels named as what was installed, not as pip fetched them
    installed = False
    for line in segment.lines:
        text = unquote(line.text) if "%2B" in line.text else line.text
        if "torch-" in text and ".whl" in text:
            m = _WHEEL.search(text)
            if m:
                wheels.append(_wheel_version(m))
                if not _FETCHING.match(text):
                    lone.append((_wheel_version(m), line))
        m = _INSTALLED.match(text) if "Successfully installed" in text else None
        if m:
            installed = True
            found = _INSTALLED_TORCH.search(m.group(1))
            if found:
                version = found.group(1)
                wheel = next((w for w in reversed(wheels) if w[0].split("+")[0] == version.split("+")[0]), None)
                if wheel is not None and "+" not in version:
                    version = wheel[0]
                yield observe(NOW, version, segment, line, "pip install log")
                if wheel is not None and wheel[1]:
                    yield observe(NOW_CPU, True, segment, line, "pip install log")
            continue
        m = _UV_ADDED.match(text) if "torch==" in text else None
        if m:
            yield observe(NOW, m.group(1), segment, line, "uv install log")
            continue
        low = text.lower()
        if "cpu" in low or "without" in low or "non" in low:  # each of _CPU_WORDS' forms holds one of these
            yield from _sentence(segment, line, text)
    if lone and not installed:  # a torch wheel the paste names on its own: the build the user installed
        (version, cpu), line = lone[-1]
        yield observe(NOW, version, segment, line, "wheel file")
        if cpu:
            yield observe(NOW_CPU, True, segment, line, "wheel file")


def _sentence(segment: Segment, line: Line, text: str) -> Iterator[Observation]:
    cpu = _CPU_WORDS.search(text)
    if not cpu or not _TORCH_WORD.search(text) or not _LATER.search(text) or _COMMAND.search(text):
        return
    if _NEGATION.search(text[:cpu.start()]):
        return
    yield observe(NOW_CPU, True, segment, line, "prose")


def _last(observations: List[Observation], path: str) -> Optional[Observation]:
    return next((o for o in reversed(observations) if o.path == path), None)


def apply_now(facts: Facts, observations: List[Observation]) -> Facts:
    """The torch the install log or a sentence says is there now, over an earlier report's torch: the version
    and what followed from it (CUDA, arch list, availability) are replaced."""
    now, cpu = _last(observations, NOW), _last(observations, NOW_CPU)
    if now is None and cpu is None:
        return facts
    torch = facts.torch
    later_cpu = cpu is not None and (now is None or cpu.line >= now.line)
    version = now.value if now is not None else None  # a sentence names the build, not the version
    if later_cpu and version and "+" in version and not version.endswith("+cpu"):
        version = version.split("+")[0]
    if version == torch.version and (not later_cpu or torch.cuda_compiled is False):
        return facts
    said = now if now is not None and not later_cpu else cpu
    assert said is not None
    notes: Tuple[Tuple[str, str], ...] = (
        ("paste.torch_replaced", f"{torch.version or 'unknown'} (an earlier report) replaced by "
                           f"{'a CPU build' if later_cpu else version} (line {said.line}, later)"),
        ("paste.line.torch.version", f"{said.line}: {said.quote}"),
    )
    replaced = dataclasses.replace(
        torch, version=version, installed=True, cuda=None, arch_flags=None, cudnn_version=None, device_count=None,
        devices=(), is_available=False if later_cpu else None, cuda_compiled=False if later_cpu else None)
    return dataclasses.replace(facts, torch=replaced, extra=facts.extra + notes)


CONDA_FORGE = "conda.forge_only"  # a conda command that built the environment from conda-forge with no CUDA pin
CONDA_NO_BUILD = "conda.no_cuda_build"  # pytorch=V with a cudatoolkit no CUDA build of V was made for
_CONDA = re.compile(r"\b(?:conda|mamba|micromamba)\s+(create|install)\b(.*)$")
_OPTION_WITH_VALUE = frozenset({"-n", "--name", "-p", "--prefix", "-c", "--channel", "--file"})
_TORCH_SPECS = frozenset({"pytorch", "torch", "pytorch-gpu", "pytorch-cpu", "pytorch-cuda", "cpuonly"})
_CUDA_SPEC = re.compile(r"^[\"']?(cudatoolkit|pytorch-cuda|cuda-version)=+(\d+\.\d+)(?:[.*\d]*)[\"']?$", re.I)
_CUDA_PIN = re.compile(r"^(?:pytorch-gpu|pytorch-cuda|cudatoolkit|cuda-version|cuda)(?:[=<>!].*)?$|cuda", re.I)


def _conda_words(rest: str) -> Tuple[List[str], List[str]]:
    """The channels and the package specs of a conda command line's arguments."""
    words = [w.strip("`'\"") for w in rest.split("#", 1)[0].split()]
    channels: List[str] = []
    specs: List[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in _OPTION_WITH_VALUE and i + 1 < len(words):
            if word in ("-c", "--channel"):
                channels.append(words[i + 1].lower())
            i += 2
            continue
        if word.startswith(("-c=", "--channel=")):
            channels.append(word.split("=", 1)[1].lower())
        elif not word.startswith("-") and word not in ("&&", "|", ";"):
            specs.append(word)
        i += 1
    return channels, specs


def conda_commands(segment: Segment) -> Iterator[Observation]:
    """`conda create|install` lines: one that asks for a CPU build says so; one that builds an environment from
    conda-forge alone with no CUDA pin leaves the CUDA-or-CPU choice to the solver."""
    for line in segment.lines:
        text = line.text
        if "conda" not in text:
            continue
        m = _CONDA.search(text)
        if not m:
            continue
        channels, specs = _conda_words(m.group(2))
        names = {re.split(r"[=<>!\[]", spec, maxsplit=1)[0].lower() for spec in specs}
        if names & {"pytorch-cpu", "cpuonly"}:
            yield observe("torch.cuda_compiled", False, segment, line, "conda command")
            continue
        for spec in specs:  # the CUDA the command asks for: cudatoolkit=10.2, pytorch-cuda=11.8, cuda-version=12.4
            cuda = _CUDA_SPEC.match(spec)
            if cuda:
                yield observe("install_cuda", f"{cuda.group(2)} ({cuda.group(1)}={cuda.group(2)})", segment, line,
                              "conda command")
                break
        missing = _no_cuda_build(channels, specs)
        if missing:
            yield observe(CONDA_NO_BUILD, missing, segment, line, "conda command")
        pinned = any(_CUDA_PIN.search(spec) for spec in specs)
        creates = m.group(1) == "create" or bool(names & _TORCH_SPECS)
        if creates and channels and set(channels) == {"conda-forge"} and not pinned:
            yield observe(CONDA_FORGE, " ".join(text.split())[:200], segment, line, "conda command")


_PYTORCH_PIN = re.compile(r"^[\"']?pytorch==?(\d+\.\d+(?:\.\d+)?)[\"']?$", re.I)
_TOOLKIT_PIN = re.compile(r"^[\"']?cudatoolkit==?(\d+\.\d+)(?:[.*\d]*)[\"']?$", re.I)


def _no_cuda_build(channels: List[str], specs: List[str]) -> str:
    """'pytorch 1.9.1 with cudatoolkit=11.6' where the pytorch channel has no CUDA build of that release for that
    cudatoolkit (from 1.13 on its CUDA builds go with pytorch-cuda, never cudatoolkit): the solver then takes the
    CPU build. '' otherwise."""
    if "pytorch" not in channels:
        return ""
    version = next((m.group(1) for m in map(_PYTORCH_PIN.match, specs) if m), None)
    toolkit = next((m.group(1) for m in map(_TOOLKIT_PIN.match, specs) if m), None)
    if version is None or toolkit is None or any(s.lower().startswith("pytorch-cuda") for s in specs):
        return ""
    release = compat.release_for_torch(version)
    if release is None:
        return ""
    if not _modern(version) and compat.cuda_variant(toolkit) in release.cuda_variants:
        return ""
    return f"pytorch {version} with cudatoolkit={toolkit}"


def _modern(version: str) -> bool:
    """From 1.13 on, the pytorch channel's CUDA builds depend on pytorch-cuda instead of cudatoolkit."""
    return (version_tuple(version) or (0,)) >= (1, 13)


def _build_open(facts: Facts) -> bool:
    """Nothing in the facts says which torch build it is yet: no CUDA, ROCm or local version tag, no verdict."""
    torch = facts.torch
    return torch.cuda_compiled is None and not torch.cuda and not torch.hip and "+" not in (torch.version or "")


def _cpu_inferred(facts: Facts, why: str, installed: bool = False) -> Facts:
    """The facts with torch marked a CPU build, inferred, and the note saying why."""
    torch = dataclasses.replace(facts.torch, cuda_compiled=False, installed=True if installed else facts.torch.installed)
    return dataclasses.replace(facts, torch=torch, inferred=tuple(facts.inferred) + ("torch.cuda_compiled",),
                               extra=facts.extra + (("inferred.torch.cuda_compiled", why),))


def conda_no_cuda_build(facts: Facts, observations: List[Observation]) -> Facts:
    """torch from a conda command that pins a cudatoolkit no CUDA build of the pinned pytorch exists for: the solve
    picked the CPU build (marked inferred), unless the paste shows CUDA working or another build."""
    said = _last(observations, CONDA_NO_BUILD)
    if (said is None or facts.torch.is_available is True or not _build_open(facts)
            or facts.platform.system == "Darwin"):
        return facts
    builds = "pytorch-cuda" if _modern(said.value.split()[1]) else "that cudatoolkit"
    return _cpu_inferred(facts, f"line {said.line}: the conda command asks for {said.value}, and the pytorch channel "
                                f"has no CUDA build of that release with {builds}: conda takes the CPU build",
                         installed=True)


def conda_forge_cpu(facts: Facts, observations: List[Observation]) -> Facts:
    """torch from an environment conda-forge solved with no CUDA pin, which torch itself says cannot use CUDA
    and nothing else explains: the solve picked the CPU build (marked inferred)."""
    said = _last(observations, CONDA_FORGE)
    torch = facts.torch
    if (said is None or torch.is_available is not False or not _build_open(facts) or torch.init_error
            or torch.import_error or facts.platform.system == "Darwin"):
        return facts
    return _cpu_inferred(facts, f"line {said.line}: the environment was solved from conda-forge alone with no CUDA pin "
                                "(pytorch-gpu, cuda-version), and torch reports CUDA unavailable: the CPU build")


NIX_TORCH = "nix.torch"  # torch taken from nixpkgs' source-built attribute
# nixpkgs' torch built from source ("python310Packages.pytorch", "python3Packages.torch"), not the upstream wheel
# ("torch-bin", "pytorch-bin") or the CUDA variant ("torchWithCuda")
_NIX_TORCH = re.compile(r"\bpython3\d*Packages\.(?:py)?torch\b(?![-\w])")


def nix_packages(segment: Segment) -> Iterator[Observation]:
    """torch named as nixpkgs' source-built attribute, in a nix-shell or nix command or a Nix expression."""
    for line in segment.lines:
        if "Packages." in line.text:
            m = _NIX_TORCH.search(line.text)
            if m:
                yield observe(NIX_TORCH, m.group(), segment, line, "nix")
                return


def nix_cpu_torch(facts: Facts, observations: List[Observation]) -> Facts:
    """torch from nixpkgs' source build, which torch says cannot use CUDA: nixpkgs builds it without CUDA unless the
    configuration sets cudaSupport (marked inferred)."""
    said = _last(observations, NIX_TORCH)
    if said is None or facts.torch.is_available is not False or not _build_open(facts):
        return facts
    return _cpu_inferred(facts, f"line {said.line}: torch is nixpkgs' {said.value}, which nixpkgs builds without CUDA "
                                "unless its configuration sets cudaSupport (torch-bin or torchWithCuda have CUDA), and "
                                "torch reports CUDA unavailable")
