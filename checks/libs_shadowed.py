"""Check that torch loaded the CUDA libraries of its own wheels, not copies that a search path put first."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

from gpudoctor import plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks import packages as pk
from gpudoctor.checks import toolkit as tk
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip
from gpudoctor.shell import Shell, UnsafeValue, literal

SHADOW_LINKS = ("https://github.com/pytorch/pytorch/issues/119989", "https://github.com/pytorch/pytorch/issues/104591")


def _is_own(facts: Facts, path: str) -> bool:
    """From torch/lib, an nvidia-* wheel, a torch-family wheel's vendored .libs, or (for a conda build of torch) the conda env."""
    unix = path.replace("\\", "/")
    if re.search(r"/(site|dist)-packages/(nvidia|torch|torch\.libs|torchvision\.libs|torchaudio\.libs|triton)/", unix, re.IGNORECASE):
        return True
    prefix = tk.conda_prefix(facts)
    return prefix is not None and unix.startswith(prefix + "/")


def _cause(facts: Facts, path: str) -> Tuple[str, Optional[str]]:
    """The search-path setting that put ``path`` first: (variable, its entry); the entry is None when unsure."""
    folder = tk.dirname(path)
    for entry in facts.libraries.ld_library_path:
        if entry.rstrip("/") == folder:
            return "LD_LIBRARY_PATH", entry
    for entry in facts.libraries.dll_search_dirs:
        if entry.rstrip("\\/").lower() == folder.lower():
            return "PATH", entry
    if any(tk.dirname(cached) == folder for _name, cached in facts.libraries.ldconfig_cuda):
        return "ldconfig", folder
    if path in re.split(r"[:\s]+", facts.env.get("LD_PRELOAD") or ""):
        return "LD_PRELOAD", path
    return _suspect(facts)


def _suspect(facts: Facts) -> Tuple[str, Optional[str]]:
    """The one LD_LIBRARY_PATH entry that looks like a CUDA folder, when there is exactly one."""
    suspects = [e for e in facts.libraries.ld_library_path if re.search(r"cuda|cudnn|nccl|nvidia", e, re.IGNORECASE)]
    return ("LD_LIBRARY_PATH", suspects[0]) if len(suspects) == 1 else ("search path", None)


def shadow_fix(facts: Facts, variable: str, entry: Optional[str]) -> Fix:
    words = "Remove it from the setting that names it."
    if variable == "LD_LIBRARY_PATH" and entry is not None:
        rest = [e for e in facts.libraries.ld_library_path if e != entry]
        command = (_cmd.export(facts, variable, ":".join(rest)) if plausible.path_list(rest) else None) if rest \
            else _cmd.unset(facts, variable)
        return _cmd.fix(f"Take {entry} out of LD_LIBRARY_PATH, here and in the profile or module file that sets it.",
                        (command,), words)
    if variable == "ldconfig" and entry is not None:
        grep = _cmd.command(facts, ["grep", "-rlF", entry, "/etc/ld.so.conf", "/etc/ld.so.conf.d"]) \
            if plausible.path(entry) else None
        return _cmd.fix(
            f"Remove {entry} from the loader cache: delete it from the file under /etc/ld.so.conf.d that names it, then rebuild.",
            (grep, "sudo ldconfig"), "Look for the folder in the files under /etc/ld.so.conf.d.",
        )
    if variable == "PATH" and entry is not None:
        return _cmd.fix(f"Take {entry} out of PATH, here and in the system settings.", (_path_without(entry),), words)
    if variable == "LD_PRELOAD":
        return _cmd.fix("Stop preloading that library.", (_cmd.unset(facts, variable),), words)
    trace = f"LD_DEBUG=libs {_fix.python(facts)} -c 'import torch' 2>&1 | grep -E 'cudnn|cublas|cudart|nccl'"
    return Fix("Find the setting that makes the loader pick that copy and remove it; the loader's trace shows each search.", (trace,))


def _path_without(entry: str) -> Optional[str]:
    """PowerShell: PATH for this session without ``entry``; None when the entry is not a plausible folder."""
    if not plausible.path(entry):
        return None
    try:
        folder = literal(entry, Shell.POWERSHELL)
    except UnsafeValue:
        return None
    return f"$env:Path = ($env:Path -split ';' | Where-Object {{ $_ -ne {folder} }}) -join ';'"


def _failed_beside_copies(facts: Facts) -> Iterator[Finding]:
    """A library that cannot be opened while an LD_LIBRARY_PATH folder holds another copy of the same library."""
    for lib in derived(facts).failed_libraries:
        what = tk.library(lib)
        if what is None:
            continue
        copies = [(n, p) for n, p in facts.libraries.ld_library_path_cuda if (tk.library(n) or ("",))[0] == what[0]]
        if not copies:
            continue
        folder = tk.dirname(copies[0][1])
        entry = next((e for e in facts.libraries.ld_library_path if e.rstrip("/") == folder), folder)
        yield Finding(
            "libs.shadowed", Severity.ERROR,
            f"import torch fails on {lib} while the LD_LIBRARY_PATH entry {entry} holds another {what[0]} ({copies[0][0]})",
            f"Observed: '{lib}: cannot open shared object file'; {', '.join(p for _n, p in copies)} come first on the "
            "loader's path. Required: the libraries of torch's own wheels, not a partial system copy.",
            shadow_fix(facts, "LD_LIBRARY_PATH", entry), SHADOW_LINKS, ("torch.import_error", "libraries.ld_library_path_cuda"),
        )


@check("libs.shadowed", "CUDA libraries come from torch's own wheels")
def shadowed(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    stubs = [e for e in facts.libraries.ld_library_path if e.rstrip("/").endswith("/stubs")]
    if stubs and facts.platform.system != "Darwin":
        yield Finding(
            "libs.shadowed", Severity.WARNING,
            f"LD_LIBRARY_PATH names the CUDA toolkit's stub folder {stubs[0]}: programs load its libcuda.so, which has "
            "no driver behind it, instead of the driver's",
            f"Observed: LD_LIBRARY_PATH holds {stubs[0]}. Required: the driver's libcuda.so.1 (under WSL, the one in "
            "/usr/lib/wsl/lib); the stub libraries are for linking only, and CUDA reports no device or 'stub "
            "library' when one is loaded.",
            shadow_fix(facts, "LD_LIBRARY_PATH", stubs[0]), SHADOW_LINKS, ("libraries.ld_library_path",),
        )
    pk.require_torch(facts)
    if facts.platform.system == "Darwin":
        raise skip("macOS has no CUDA libraries")
    reading = derived(facts)
    severity = Severity.ERROR if reading.library_error else Severity.WARNING
    built, runtime = reading.cudnn_compiled, reading.cudnn_runtime
    foreign: Dict[str, List[str]] = {}
    candidates = list(t.loaded_libraries) + list(reading.undefined_symbol_libraries)
    for path in candidates:
        if tk.library(path) is not None and not _is_own(facts, path) and path not in foreign.get(tk.dirname(path), []):
            foreign.setdefault(tk.dirname(path), []).append(path)
    for folder, paths in foreign.items():
        variable, entry = _cause(facts, paths[0])
        what = ", ".join(sorted({(tk.library(p) or ("", ""))[0] for p in paths}))
        why = f"the {variable} entry {entry}" if entry else f"the loader's {variable}"
        detail = f"Observed: {'; '.join(paths)}, found through {why}. Required: CUDA libraries from site-packages/nvidia/*/lib or torch/lib."
        if built is not None:
            detail += f" torch was compiled against cuDNN {built} and found {runtime}."
        yield Finding(
            "libs.shadowed", severity, f"torch loaded {what} from {folder}, not from its own wheels ({why} comes first)",
            detail, shadow_fix(facts, variable, entry), SHADOW_LINKS,
            ("torch.loaded_libraries", "libraries.ld_library_path", "libraries.ldconfig_cuda"),
        )
    if foreign:
        return
    cudnn_paths = [p for p in t.loaded_libraries if (tk.library(p) or ("",))[0] == "cuDNN"]
    if built is not None and not cudnn_paths:
        variable, entry = _suspect(facts)
        yield Finding(
            "libs.shadowed", Severity.ERROR,
            f"torch was compiled against cuDNN {built} but loaded cuDNN {runtime}"
            + (f", most likely through the LD_LIBRARY_PATH entry {entry}" if entry else ""),
            f"Observed: cuDNN {runtime} at run time; LD_LIBRARY_PATH={':'.join(facts.libraries.ld_library_path)}. "
            f"Required: cuDNN {built}, the one from torch's own nvidia-cudnn wheel.",
            shadow_fix(facts, variable, entry), SHADOW_LINKS, ("torch.cudnn_error", "libraries.ld_library_path"),
        )
        return
    imported = t.version is not None and not (t.import_error or t.crashed or t.timed_out)
    if not imported:
        beside = list(_failed_beside_copies(facts))
        yield from beside
        if not beside:
            raise skip("torch did not import, so the libraries it loads are not known")
        return
    strays: Dict[str, List[str]] = {}
    for soname, path in facts.libraries.ld_library_path_cuda:
        if tk.library(soname) is not None:
            strays.setdefault(tk.dirname(path), []).append(soname)
    if strays:
        listed = "; ".join(f"{folder} ({', '.join(sorted(set(libs)))})" for folder, libs in strays.items())
        yield Finding(
            "libs.shadowed", Severity.INFO, f"LD_LIBRARY_PATH holds CUDA libraries that torch did not load: {listed}",
            "torch found its own copies first." if t.cuda else
            "This torch is not a CUDA build and loads none; a CUDA build would find these before its own wheels' copies.",
            evidence=("libraries.ld_library_path_cuda", "torch.loaded_libraries"),
        )
    if not t.loaded_libraries:
        raise skip("the libraries torch loaded were not recorded (they are read from /proc on Linux)")


CHECKS: List[Check] = [shadowed]
