"""Toolkit probe: the CUDA toolkit (nvcc) that extension builds would use, found the way torch finds it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping, Optional

from gpudoctor.facts import ToolkitFacts
from gpudoctor.probes.command import Runner, find_tool, run_command

NVCC_TIMEOUT = 15.0
_RELEASE = re.compile(r"release (\d+\.\d+)")


@dataclass(frozen=True)
class ToolkitResult:
    """The toolkit facts and, when nvcc was found but did not answer, why."""

    toolkit: ToolkitFacts
    error: Optional[str] = None


def _nvcc_in(home: str, windows: bool) -> Optional[str]:
    path = os.path.join(home, "bin", "nvcc.exe" if windows else "nvcc")
    return path if os.path.isfile(path) else None


def locate(environ: Mapping[str, str], windows: bool = os.name == "nt") -> ToolkitFacts:
    """CUDA_HOME, then CUDA_PATH, then nvcc on PATH, then /usr/local/cuda (torch.utils.cpp_extension's order)."""
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        home = environ.get(variable)
        if home:
            return ToolkitFacts(nvcc_path=_nvcc_in(home, windows), cuda_home=home, source=variable)
    on_path = find_tool("nvcc", environ)
    if on_path:
        return ToolkitFacts(nvcc_path=on_path, cuda_home=os.path.dirname(os.path.dirname(on_path)), source="PATH")
    if not windows:
        nvcc = _nvcc_in("/usr/local/cuda", windows)
        if nvcc:
            return ToolkitFacts(nvcc_path=nvcc, cuda_home="/usr/local/cuda", source="/usr/local/cuda")
    return ToolkitFacts()


def probe_toolkit(environ: Optional[Mapping[str, str]] = None, run: Runner = run_command) -> ToolkitResult:
    """Locate the toolkit and ask its nvcc for the release."""
    found = locate(os.environ if environ is None else environ)
    if found.nvcc_path is None:
        return ToolkitResult(found)
    done = run([found.nvcc_path, "--version"], NVCC_TIMEOUT)
    match = _RELEASE.search(done.stdout)
    if match:
        return ToolkitResult(ToolkitFacts(found.nvcc_path, match.group(1), found.cuda_home, found.source))
    why = done.error or f"`{found.nvcc_path} --version` printed no release (exit status {done.returncode})"
    return ToolkitResult(found, why)
