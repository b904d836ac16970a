"""torch on an NVIDIA Jetson in a pasted report: only builds made for JetPack drive the board's integrated GPU."""

from __future__ import annotations

import re
from typing import Iterator

from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

_JETPACK_BUILD = re.compile(r"\+nv\d|\.nv\d|a0\+\w+\.nv")  # NVIDIA's Jetson wheels: "2.1.0a0+41361538.nv23.06"
_JETSON_DOCS = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"


def _failed_work(facts: Facts) -> bool:
    """The paste shows CUDA work failing: an error message, a traceback, or one cut short."""
    return (bool(facts.torch.init_error) or bool(extras(facts, "paste.signature"))
            or bool(extras(facts, "paste.traceback")) or bool(extras(facts, "paste.traceback_cut")))


def _failure_shown(facts: Facts) -> bool:
    """CUDA work fails in the paste, or the paste does not say that torch sees the GPU."""
    return facts.torch.is_available is None or _failed_work(facts)


@check("paste.jetson-torch", "torch built for the Jetson's JetPack")
def jetson_torch(facts: Facts) -> Iterator[Finding]:
    board = extras(facts, "paste.jetson")
    if not board:
        raise skip("the input shows no Jetson")
    t = facts.torch
    version = t.version or ""
    if _JETPACK_BUILD.search(version):
        return
    source = extras(facts, "paste.torch_source")
    failed = t.is_available is False or t.cuda_compiled is False
    unused = bool(version) and "gpu-unused-unexplained" in extras(facts, "paste.signature")  # a torch not NVIDIA's, idle
    if not failed and not unused and not (source and _failure_shown(facts)):
        return
    label = f"torch {version}" if version else "the installed torch"
    said = f"torch.cuda.is_available() is False{f' with torch {version}' if version else ''}" if failed else (
        f"torch from {source[0]}, and " + ("CUDA work fails" if _failed_work(facts) else
                                           "the paste does not show CUDA working")) if source else (
        f"the paste says the GPU stays unused, with torch {version}, which is not a JetPack build")
    yield Finding(
        code="paste.jetson-torch",
        severity=Severity.WARNING,
        summary=f"{label} cannot use this Jetson's GPU: on a Jetson only torch built for its JetPack release can "
                "(wheels from PyPI or download.pytorch.org and conda-forge's builds are CPU-only there or built for "
                "server ARM GPUs)",
        detail=f"Observed: {board[0]}; {said}"
               + (f"; torch came from {source[0]}" if source and failed else "") + ". Required: NVIDIA's torch wheel for this JetPack "
               "version (its version carries an 'nv' tag), or a jetson-containers image.",
        fix=Fix("Uninstall this torch and install the wheel NVIDIA publishes for the board's JetPack release (see the "
                "guide), or run in a jetson-containers image; check the JetPack version first.",
                ("cat /etc/nv_tegra_release", "pip3 uninstall -y torch")),
        links=(_JETSON_DOCS,),
        evidence=("extra",),
    )


CHECKS = [jetson_torch]
