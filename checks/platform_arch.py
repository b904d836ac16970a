"""Python and torch built for the CPU they run on: an x86_64 Python under Rosetta on Apple silicon, and torch
libraries of another architecture than the Python loading them."""

from __future__ import annotations

from typing import Iterator, Optional

from gpudoctor.checks.support import commands as _cmd
from gpudoctor.checks.support.paste_notes import extras, pasted_line
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

LAST_MACOS_X86_TORCH = "2.2.2"  # PyTorch stopped publishing macOS x86_64 wheels after 2.2
MAC_LINKS = ("https://docs.pytorch.org/docs/stable/notes/mps.html", "https://pytorch.org/get-started/locally/")


def _seen_machine(facts: Facts) -> str:
    platform = extras(facts, "paste.mac.platform")
    return pasted_line(facts, "platform.machine") or (f"Python platform {platform[0]}" if platform else "platform.machine()")


def _machine_check(facts: Facts) -> str:
    return f"{_cmd.python(facts)} -c \"import platform; print(platform.machine())\""


def _wrong_library(facts: Facts, have: Optional[str], need: Optional[str]) -> Finding:
    """dlopen refused a library of another architecture; ``have`` is the library's, ``need`` the Python process's."""
    python_wrong = need == "x86_64"  # the Python itself runs as x86_64 (Rosetta); the library is native
    where = pasted_line(facts, "signature.incompatible-architecture")
    what = "torch's libraries are" if where and "torch" in where else "a compiled library is"
    summary = (f"{what} built for {have} but this Python runs as {need}: they cannot be loaded" if have and need
               else f"{what} built for another CPU architecture than this Python: it cannot be loaded")
    if python_wrong:
        required = "this Python is an x86_64 build (under Rosetta on Apple silicon): use a native arm64 Python."
    else:
        required = (f"reinstall it for {need or 'the Python'}'s architecture in this Python (an installer or a terminal "
                    "running under Rosetta, a copied environment or pip's cache brought a build for another CPU).")
    return Finding(
        "platform.machine", Severity.ERROR, summary,
        "Observed: dlopen refuses a library of another architecture"
        + (f" ({where})" if where else "") + ". Required: Python and every compiled library of one architecture; "
        + required,
        Fix("Run the terminal and Python natively (`arch` prints arm64 on Apple silicon; an arm64 Python from "
            "python.org's universal2 installer, Homebrew in /opt/homebrew or Miniforge for arm64), then install torch "
            "(and the library named) again in that Python without pip's cache.",
            ("arch", _machine_check(facts), f"{_cmd.python(facts)} -m pip install --force-reinstall --no-cache-dir torch")),
        MAC_LINKS, ("extra", "platform.machine"),
    )


def _rosetta(facts: Facts, evidence: str) -> Finding:
    release = facts.platform.release
    old_release = bool(release and release.startswith("10.16"))
    return Finding(
        "platform.machine", Severity.ERROR,
        "this Python is an x86_64 build running under Rosetta on Apple silicon: no MPS, and no torch after "
        f"{LAST_MACOS_X86_TORCH}",
        f"Observed: the Python runs as x86_64 ({_seen_machine(facts)}) on {evidence}"
        + (f"; macOS answers it as version {release}, the compatibility version it shows old x86_64 builds" if old_release else "")
        + f". Required: a native arm64 Python. PyTorch publishes macOS x86_64 wheels only up to {LAST_MACOS_X86_TORCH} "
        "(pip finds no newer torch for this Python), and MPS, the Mac GPU backend, works only in arm64 processes.",
        Fix("Install an arm64 Python (python.org's universal2 installer, Homebrew in /opt/homebrew, or Miniforge/conda "
            "for osx-arm64; not an Intel Anaconda), check that it prints arm64, then create the environment and install "
            "torch in it.",
            ("sysctl -n sysctl.proc_translated", _machine_check(facts), _cmd.pip_install(facts, ["torch"]))),
        MAC_LINKS, ("platform.machine", "platform.system", "extra"),
    )


@check("platform.machine", "Python and torch built for this CPU")
def machine(facts: Facts) -> Iterator[Finding]:
    haves, needs = extras(facts, "paste.arch.have"), extras(facts, "paste.arch.need")
    if haves and needs:
        yield _wrong_library(facts, haves[0], needs[0])
        return
    if "incompatible-architecture" in extras(facts, "paste.signature"):
        yield _wrong_library(facts, None, None)
        return
    if facts.platform.system != "Darwin":
        raise skip("not macOS" if facts.platform.system else "the operating system is not known")
    if facts.platform.machine is None:
        raise skip("the Python's CPU architecture is not known")
    if facts.platform.machine != "x86_64":
        return
    rosetta = extras(facts, "paste.mac.rosetta")
    chips = extras(facts, "paste.mac.chip")
    if rosetta or chips:
        yield _rosetta(facts, f"this Mac ({chips[0]})" if chips else "Apple silicon (sysctl.proc_translated is 1)")
        return
    yield Finding(
        "platform.machine", Severity.INFO,
        f"this Python runs as x86_64 on macOS: torch for macOS x86_64 ends at {LAST_MACOS_X86_TORCH}",
        "Observed: platform.machine() is x86_64 (an Intel Mac, or an x86_64 Python under Rosetta on Apple silicon). "
        f"On an Intel Mac torch {LAST_MACOS_X86_TORCH} is the last release; on Apple silicon use an arm64 Python.",
        Fix("On Apple silicon, check whether this Python runs under Rosetta (1 means it does).",
            ("sysctl -n sysctl.proc_translated", _machine_check(facts))),
        MAC_LINKS, ("platform.machine",),
    )


CHECKS = [machine]
