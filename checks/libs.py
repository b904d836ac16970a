"""Checks that torch loads the CUDA libraries of its own wheels: none shadowed, none missing, one CUDA major."""

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
from gpudoctor.registry import check, skip
from gpudoctor.shell import Shell, UnsafeValue, literal

SHADOW_LINKS = ("https://github.com/pytorch/pytorch/issues/119989", "https://github.com/pytorch/pytorch/issues/104591")
MISSING_LINKS = ("https://github.com/pytorch/pytorch/issues/104259", "https://github.com/pytorch/pytorch/issues/96595")
MIXED_LINKS = ("https://docs.nvidia.com/cuda/cuda-installation-guide-linux/#pip-wheels",)

UNINSTALL_IN_WORDS = "Uninstall the wheels listed above with pip uninstall."
_TORCH_OWN = ("libtorch", "libc10", "libshm", "libcaffe2", "libgomp", "libnvfuser")


def _texts(facts: Facts) -> str:
    t = facts.torch
    return "\n".join(x for x in (t.import_error, t.import_traceback, t.init_error, t.cudnn_error, *t.warnings) if x)


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


def _shadow_fix(facts: Facts, variable: str, entry: Optional[str]) -> Fix:
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
            _shadow_fix(facts, "LD_LIBRARY_PATH", entry), SHADOW_LINKS, ("torch.import_error", "libraries.ld_library_path_cuda"),
        )


@check("libs.shadowed", "CUDA libraries come from torch's own wheels")
def shadowed(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
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
            detail, _shadow_fix(facts, variable, entry), SHADOW_LINKS,
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
            _shadow_fix(facts, variable, entry), SHADOW_LINKS, ("torch.cudnn_error", "libraries.ld_library_path"),
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


@check("libs.mixed-cuda-majors", "nvidia-* wheels of one CUDA major")
def mixed_cuda_majors(facts: Facts) -> Iterator[Finding]:
    if not facts.packages:
        raise skip("the installed distributions are not known")
    by_major: Dict[int, List[str]] = {}
    for dist in facts.packages:
        major = tk.wheel_cuda_major(dist.name, dist.version)
        if major is not None:
            by_major.setdefault(major, []).append(f"{dist.name} {dist.version}")
    torch_major = tk.torch_cuda_major(facts)
    shown = {m: d for m, d in by_major.items() if torch_major is None or m != torch_major}
    if not shown or (torch_major is None and len(by_major) < 2):
        return
    listed = "; ".join(f"CUDA {m}: {', '.join(sorted(d))}" for m, d in sorted(shown.items()))
    uninstall = {m: _uninstall(facts, sorted(i.split(" ")[0] for i in d)) for m, d in shown.items()}
    if torch_major is not None:
        reinstall = pk.torch_reinstall(facts)
        summary = f"nvidia-* wheels of another CUDA major than torch's CUDA {torch_major}: {listed}"
        required = f"only CUDA {torch_major} libraries beside torch {pk.torch_version(facts)}"
        fix = _cmd.fix(
            "Uninstall the other major's wheels (unless another package here needs them), then reinstall torch with its own.",
            tuple(uninstall[m] for m in sorted(shown)) + ((reinstall,) if reinstall else ()), UNINSTALL_IN_WORDS,
        )
    else:
        summary = f"nvidia-* wheels of {len(shown)} CUDA majors in one environment: {listed}"
        required = "one CUDA major; torch here is not a CUDA build, so keep the one your other packages need"
        fix = _cmd.fix("Keep one CUDA major: run the command that removes the major you do not need.",
                       tuple(uninstall[m] for m in sorted(shown)), UNINSTALL_IN_WORDS)
    yield Finding(
        "libs.mixed-cuda-majors", Severity.WARNING, summary,
        f"Observed: {listed}. Required: {required}. Two CUDA majors let the loader or another library pick the wrong copy.",
        fix, MIXED_LINKS, ("packages", "torch.cuda"),
    )


def _uninstall(facts: Facts, names: List[str]) -> Optional[str]:
    if not all(plausible.requirement(n) for n in names):
        return None
    return _cmd.command(facts, _cmd.python(facts) + ["-m", "pip", "uninstall", "-y", *names])


@check("libs.missing", "Libraries torch needs are installed")
def missing(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    pk.require_torch(facts)
    dist = facts.package("torch")
    texts = _texts(facts)
    if (dist is None or not dist.requires) and not texts:
        raise skip("torch's requirements are not known")
    reqs = tk.nvidia_requirements(facts)
    absent = [f"{req.name}{req.specifier}" for req, have in reqs if have is None]
    reinstall = pk.torch_reinstall(facts)
    version = pk.torch_version(facts)
    failed = list(derived(facts).failed_libraries)
    if absent:
        works = t.is_available is True and not t.import_error
        yield Finding(
            "libs.missing", Severity.WARNING if works else Severity.ERROR,
            f"torch {version} needs {', '.join(absent)}, which {'is' if len(absent) == 1 else 'are'} not installed",
            f"Observed: none of {', '.join(absent)} in this environment"
            + (f"; import fails on {', '.join(failed)}" if failed else "")
            + ("; CUDA works now only because these libraries were found elsewhere" if works else "")
            + ". Required: every nvidia-* wheel torch lists.",
            Fix("Reinstall torch together with its nvidia-* wheels." if reinstall else "Install the missing nvidia-* wheels.",
                (reinstall,) if reinstall else (_fix.pip_install(facts, absent),)),
            MISSING_LINKS, ("packages", "torch.import_error"),
        )
    yield from _unloadable(facts, failed, absent, reinstall)


@check("libs.wrong-version", "nvidia-* wheels at the versions torch requires")
def wrong_version(facts: Facts) -> Iterator[Finding]:
    pk.require_torch(facts)
    dist = facts.package("torch")
    if dist is None or not dist.requires:
        raise skip("torch's requirements are not known")
    for req, have in tk.nvidia_requirements(facts):
        if have is not None and req.specifier and not req.specifier.contains(have.version, prereleases=True):
            yield Finding(
                "libs.wrong-version", Severity.WARNING,
                f"{have.name} {have.version} is installed; torch {dist.version} requires {req.name}{req.specifier}",
                f"Observed: {have.name} {have.version}. Required: {req.name}{req.specifier}, the version torch was built and "
                "tested with; another one can fail with undefined symbols or a cuDNN version error.",
                Fix(f"Install the {req.name} that torch requires.", (_fix.pip_install(facts, [f"{req.name}{req.specifier}"]),)),
                MISSING_LINKS, ("packages",),
            )


def _unloadable(facts: Facts, failed: List[str], absent: List[str], reinstall: Optional[str]) -> Iterator[Finding]:
    """Libraries named by a load error: a file missing from torch itself, or from an installed nvidia wheel."""
    major = tk.torch_cuda_major(facts)
    dist = facts.package("torch")
    torch_dir = facts.torch.location or (f"{dist.location}/torch" if dist and dist.location else None)
    for lib in failed:
        known = tk.library(lib)
        if lib.startswith(_TORCH_OWN):
            where = f"{torch_dir}/lib/{lib}" if torch_dir else f"torch/lib/{lib}"
            command = pk.torch_reinstall(facts, no_deps=True)
            yield Finding(
                "libs.missing", Severity.ERROR, f"torch's own library {lib} cannot be loaded: {where} is missing",
                f"Observed: import fails with '{lib}: cannot open shared object file'. Required: {where}, part of the torch wheel.",
                Fix("The torch install is damaged; reinstall the same torch build.", (command,) if command else ()),
                MISSING_LINKS, ("torch.import_error", "torch.location"),
            )
        elif known is not None and major is not None:
            wheel = next((r.name for r, _h in tk.nvidia_requirements(facts) if tk.ships(r.name, known[1])), None)
            wheel = wheel or tk.wheel_for(known[1], major)
            if any(tk.ships(re.split(r"[\[=<>~!; ]", a)[0], known[1]) for a in absent):
                continue
            have = facts.package(wheel)
            state = f"{have.name} {have.version} is installed but {lib} cannot be loaded from it" if have else f"{wheel} is not installed"
            yield Finding(
                "libs.missing", Severity.ERROR, f"torch cannot load {known[0]} ({lib}): {state}",
                f"Observed: '{lib}: cannot open shared object file'. Required: {lib} from {wheel} in site-packages/nvidia. "
                "An installed wheel whose file is missing was partly removed, or the environment splits lib and lib64.",
                Fix("Reinstall torch together with its nvidia-* wheels." if reinstall else f"Reinstall {wheel}.",
                    (reinstall or _fix.pip_install(facts, [wheel], force_reinstall=True),)),
                MISSING_LINKS, ("torch.import_error", "packages"),
            )


CHECKS = [shadowed, mixed_cuda_majors, missing, wrong_version]
