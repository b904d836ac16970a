"""Every pip command the recommender can print names wheels that exist for that OS, CPU and Python.

The recommender is walked over GPU generations, drivers, platforms and Pythons; each command it prints,
the main one and every option's, is checked against the data's list of published wheels: PyPI's releases
and Python tags (published.py, refreshed from PyPI) and the download.pytorch.org variants per platform.
"""

from __future__ import annotations

import itertools
import re
from typing import Iterator, List, Optional, Tuple

import pytest
from gpudoctor.recommend import Recommendation, recommend
from gpudoctor import compat
from gpudoctor.compat.pypi import has_python, pypi_release
from gpudoctor.compat.releases import split_local_version
from gpudoctor.compat.wheels import platform_key

CCS = [(3, 0), (3, 5), (3, 7), (5, 0), (5, 3), (6, 1), (6, 2), (7, 0), (7, 2), (7, 5), (8, 0), (8, 6), (8, 7), (8, 9),
       (9, 0), (10, 0), (10, 3), (11, 0), (12, 0), (12, 1)]
LINUX_DRIVERS = [None, "418.39", "470.82.01", "525.60.13", "535.104.05", "560.35.03", "570.86.15", "575.57.08",
                 "580.65.06", "595.71.05", "540.4.0"]
WINDOWS_DRIVERS = [None, "472.12", "528.33", "551.61", "572.16", "581.57"]
PLATFORMS = [("Linux", "x86_64", LINUX_DRIVERS), ("Linux", "aarch64", LINUX_DRIVERS),
             ("Windows", "AMD64", WINDOWS_DRIVERS), ("Darwin", "arm64", [None]), ("Darwin", "x86_64", [None])]
PYTHONS = [None, "3.9.18", "3.10.12", "3.12.3", "3.14.0", "3.15.0"]
_REQ = re.compile(r"^(torch|torchvision|torchaudio)==([0-9][0-9.]*)(?:\+([a-z0-9.]+))?$")


def _pip_commands(rec: Recommendation, python: Optional[str]) -> Iterator[Tuple[str, Optional[str]]]:
    """(command, the Python it runs under): an option that makes a venv with another Python runs under that."""
    yield from ((c, python) for c in rec.commands)
    for option in rec.options:
        venv = next((m.group(1) for m in (re.match(r"^python(3\.\d+) -m venv ", c) for c in option.commands) if m),
                    None)
        target = f"{venv}.0" if venv else python
        yield from ((c, target) for c in option.commands if c.startswith("pip install") and "torch==" in c)


def _problems(command: str, system: str, machine: str, python: Optional[str]) -> List[str]:
    words = command.split()
    index = words[words.index("--index-url") + 1] if "--index-url" in words else None
    pins = [m.groups() for m in (_REQ.match(w) for w in words) if m]
    problems = []
    variants = {variant for _, _, variant in pins}
    if len(variants) != 1:
        problems.append(f"mixed or missing variants {sorted(map(str, variants))}")
    variant = next(iter(variants)) if variants else None
    if (index is None) != (variant is None) or (variant and index != compat.index_url(variant)):
        problems.append(f"index {index} does not serve {variant}")
    pyp = {"Linux": "linux", "Windows": "windows", "Darwin": "macos"}[system]
    arch = "arm64" if system == "Darwin" and machine == "arm64" else compat.base.normalise_machine(machine)
    torch_version = next((v for name, v, _ in pins if name == "torch"), None)
    release = compat.release_for_torch(torch_version)
    if release is None:
        return problems + ["no torch pin"]
    for name, version, _ in pins:
        found = pypi_release(name, version)
        if found is None and (split_local_version(version)[0] < "2" if name != "torchvision" else
                              tuple(int(x) for x in version.split(".")[:2]) < (0, 15)):
            continue  # older than the refreshed PyPI data (it starts at torch 2.0)
        if found is None:
            problems.append(f"{name} {version} is not a release")
            continue
        if variant is None and f"{pyp}-{arch}" not in found[1]:
            problems.append(f"{name} {version} has no PyPI wheel for {pyp}-{arch}")
        if has_python(name, version, python) is False:
            problems.append(f"{name} {version} has no wheel for Python {python}")
    if variant and variant != "cpu":
        if variant not in compat.published_variants(torch_version, system, machine):
            problems.append(f"torch {torch_version} has no {variant} wheel for {system} {machine}")
    if variant == "cpu" and platform_key(system, machine) is None:
        problems.append(f"no CPU wheel index for {system} {machine}")
    vision = next((v for name, v, _ in pins if name == "torchvision"), None)
    if vision and vision != release.latest.torchvision and compat.pairing(torch_version) is not None:
        pair = compat.pairing(torch_version)
        if pair is not None and vision != pair.torchvision:
            problems.append(f"torchvision {vision} was not released with torch {torch_version}")
    audio = next((v for name, v, _ in pins if name == "torchaudio"), None)
    if audio and compat.torchaudio_published(audio, variant) is False:
        problems.append(f"torchaudio {audio} is not published on {variant}")
    return problems


def _cases() -> Iterator[Tuple[str, str, Optional[str], Optional[str], Tuple[Tuple[int, int], ...]]]:
    for system, machine, drivers in PLATFORMS:
        gpu_sets: List[Tuple[Tuple[int, int], ...]] = [()] + [(cc,) for cc in CCS] + [((6, 1), (12, 0))]
        for driver, python, gpus in itertools.product(drivers, PYTHONS, gpu_sets):
            yield system, machine, driver, python, gpus


@pytest.mark.parametrize("audio", [False, True])
def test_every_recommended_command_names_published_wheels(audio: bool) -> None:
    bad = []
    seen = 0
    for system, machine, driver, python, gpus in _cases():
        rec = recommend(gpus, driver, system, machine, python, "2.6.0+cu124", with_torchaudio=audio)
        for command, runs_under in _pip_commands(rec, python):
            seen += 1
            for problem in _problems(command, system, machine, runs_under):
                bad.append(f"{system} {machine} driver={driver} python={python} gpus={gpus}: {command}: {problem}")
    assert seen > 1000
    assert not bad, "\n".join(sorted(set(bad))[:40]) + f"\n({len(set(bad))} in all)"


def test_the_walk_catches_a_wheel_that_does_not_exist() -> None:
    assert _problems("pip install torch==2.11.0+cu132 torchaudio==2.11.0+cu132 --index-url "
                     "https://download.pytorch.org/whl/cu132", "Linux", "x86_64", "3.12.3") == [
        "torch 2.11.0 has no cu132 wheel for Linux x86_64", "torchaudio 2.11.0 is not published on cu132"]
    assert _problems("pip install torch==2.15.0+cu130 --index-url https://download.pytorch.org/whl/cu130",
                     "Linux", "x86_64", "3.10.12") == ["torch 2.15.0 has no wheel for Python 3.10.12"]
    assert _problems("pip install torch==2.13.0+cu129 --index-url https://download.pytorch.org/whl/cu129",
                     "Windows", "AMD64", "3.12.3") == ["torch 2.13.0 has no cu129 wheel for Windows AMD64"]
    assert _problems("pip install torch==2.15.0 torchvision==0.29.2", "Darwin", "x86_64", "3.12.3") == [
        "torch 2.15.0 has no PyPI wheel for macos-x86_64", "torchvision 0.29.2 has no PyPI wheel for macos-x86_64"]


def test_the_python_315_user_gets_215_not_a_314_venv() -> None:
    rec = recommend([(8, 6)], "595.71.05", "Linux", "x86_64", "3.15.0", None)
    assert rec.ok and rec.torch is not None and split_local_version(rec.torch)[0] == "2.15.0"
