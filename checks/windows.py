"""Check why import torch fails to load a DLL on Windows (WinError 126, 127, 1114) and name the known cause."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks import packages as pk
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, need, skip

_CUDA_BIN = re.compile(r"CUDA[\\/]v(\d+(?:\.\d+)?)[\\/]bin", re.IGNORECASE)
MEANING = {
    "126": "a DLL it depends on was not found",
    "127": "a DLL it depends on lacks a function it needs: another version of that DLL was found first",
    "1114": "a DLL's initialisation routine failed",
}
VC_REDIST_URL = "https://aka.ms/vs/17/release/vc_redist.x64.exe"
VC_REDIST = (
    f"Invoke-WebRequest {VC_REDIST_URL} -OutFile vc_redist.x64.exe",
    ".\\vc_redist.x64.exe /install /passive /norestart",
)
VC_MINIMUM = (14, 40)  # VS 2022 17.10 made std::mutex constexpr; older runtimes crash or fail in DLLs built since
LINKS = {
    "fbgemm": "https://github.com/pytorch/pytorch/issues/131662",
    "vc": "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
    "torch_python": "https://github.com/pytorch/pytorch/issues/169429",
    "store": "https://docs.python.org/3/using/windows.html#known-issues",
    "dependencies": "https://github.com/lucasg/Dependencies",
}

Cause = Tuple[str, str, Tuple[str, ...], str]  # (what is wrong, what to do, commands, link key)


def _version_pair(text: Optional[str]) -> Optional[Tuple[int, int]]:
    match = re.match(r"(\d+)\.(\d+)", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def _same_build(facts: Facts, torch: str) -> Optional[str]:
    """Another torch release in the installed variant, with its torchvision and torchaudio."""
    variant = _fix.split_version(pk.torch_version(facts) or "")[1]
    release = compat.release_for_torch(torch)
    if variant and variant.startswith("cu") and (release is None or variant not in release.cuda_variants):
        return None
    return pk.release_set(facts, torch, variant)


def _causes(facts: Facts, code: str, dll: str) -> List[Cause]:
    causes: List[Cause] = []
    version = _fix.base_version(pk.torch_version(facts) or "")
    if dll == "fbgemm.dll" and version == "2.4.0":
        upgrade = _same_build(facts, "2.4.1")
        causes.append(("torch 2.4.0's Windows wheels lack libomp140.x86_64.dll, which fbgemm.dll needs (fixed in 2.4.1)",
                       "upgrade to torch 2.4.1", (upgrade,) if upgrade else (), "fbgemm"))
    if dll == "torch_python.dll" and code == "1114" and (_fix.release_series(version) or (0, 0)) >= (2, 9):
        pin = _same_build(facts, "2.8.0")
        causes.append((f"torch {version}'s torch_python.dll fails to initialise on some machines (an open PyTorch issue)",
                       "pin torch 2.8.0, the workaround reported", (pin,) if pin else (), "torch_python"))
    runtime = facts.libraries.vc_runtime_version
    pair = _version_pair(runtime)
    if pair is not None and pair < VC_MINIMUM:
        causes.append((f"the Visual C++ runtime is {runtime}, older than the {VC_MINIMUM[0]}.{VC_MINIMUM[1]} that DLLs "
                       "built by current compilers need", "install the latest Visual C++ runtime", VC_REDIST, "vc"))
    elif pair is None and code == "1114":
        causes.append(("an old Visual C++ runtime is the usual cause of this error (its version was not read)",
                       "install the latest Visual C++ runtime", VC_REDIST, "vc"))
    cuda_dirs = [d for d in facts.libraries.dll_search_dirs if _CUDA_BIN.search(d)]
    versions = sorted({m.group(1) for m in map(_CUDA_BIN.search, cuda_dirs) if m})
    if len(versions) > 1 or (cuda_dirs and code == "127"):
        keep = "Where-Object { $_ -notmatch 'CUDA\\\\v[0-9.]+\\\\(bin|libnvvp)' }"
        causes.append((f"PATH holds CUDA toolkit DLL folders ({'; '.join(cuda_dirs)}), whose DLLs can be found before the "
                       "ones torch ships", "take the CUDA folders out of PATH", (f"$env:Path = ($env:Path -split ';' | {keep}) -join ';'",),
                       "dependencies"))
    if facts.platform.microsoft_store_python:
        minor = ".".join((facts.platform.python_version or "3.12").split(".")[:2])
        causes.append(("this Python comes from the Microsoft Store, whose sandbox changes where DLLs and files are found",
                       "install Python from python.org and recreate the environment with it",
                       (f"winget install -e --id Python.Python.{minor}",), "store"))
    if dll.startswith("caffe2_nvrtc") and not causes:
        causes.append(("no confirmed cause is known for caffe2_nvrtc.dll", "inspect its dependencies", (), "dependencies"))
    return causes


@check("windows.dll-load-failed", "Windows DLLs of torch load")
def dll_load_failed(facts: Facts) -> Iterator[Finding]:
    if need(facts.platform.system, "platform.system", "the operating system is not known") != "Windows":
        raise skip("not Windows")
    pk.require_torch(facts)
    reading = derived(facts)
    code = reading.import_winerror
    if code is None:
        return
    path = reading.import_dll
    dll = re.split(r"[\\/]", path)[-1].lower() if path else ""
    causes = _causes(facts, code, dll)
    named = path or "a DLL"
    detail = f"Observed: [WinError {code}] loading {named}: {MEANING[code]}."
    if causes:
        detail += " Causes that fit this machine: " + "; ".join(c[0] for c in causes) + "."
    detail += f" To see which dependency fails, open {named} in Dependencies (github.com/lucasg/Dependencies)."
    commands = tuple(cmd for c in causes for cmd in c[2])
    if causes and commands:
        steps = "; then ".join(c[1] for c in causes)
        fix = Fix(steps[0].upper() + steps[1:] + ".", commands)
    else:
        reinstall = pk.torch_reinstall(facts)
        fix = Fix(
            "Install the latest Visual C++ Redistributable, then reinstall the same torch build.",
            VC_REDIST + ((reinstall,) if reinstall else ()),
        )
    links = tuple(dict.fromkeys([LINKS[c[3]] for c in causes] + [LINKS["vc"], LINKS["dependencies"]]))
    yield Finding(
        "windows.dll-load-failed", Severity.ERROR,
        f"import torch fails with [WinError {code}] loading {dll or 'a DLL'}: {MEANING[code]}",
        detail, fix, links,
        ("torch.import_error", "libraries.vc_runtime_version", "libraries.dll_search_dirs", "platform.microsoft_store_python"),
    )


CHECKS = [dll_load_failed]
