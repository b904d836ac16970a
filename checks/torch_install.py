"""Check the torch install of the target interpreter: present, importable, and a GPU build on a GPU machine."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support.paste_notes import inferred_why
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need

_NVIDIA_WHEEL_LIBS = (
    "libcudnn", "libcublas", "libcusparse", "libcufft", "libcurand", "libcusolver", "libnccl", "libnvjitlink",
    "libcudart", "libnvrtc", "libcupti", "libnvtoolsext", "libcufile", "libnvshmem", "libcusparselt",
)
VC_REDIST = "winget install --id Microsoft.VCRedist.2015+.x64"


def _basename(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


def _python_label(facts: Facts) -> str:
    return facts.platform.python_executable or "the target Python"


def _import_fix(facts: Facts, error: str, name: Optional[str]) -> Fix:
    base = _basename(name).lower() if name else ""
    version = _fix.installed_version(facts, "torch") or ""
    ld_path = facts.env.get("LD_LIBRARY_PATH")
    reinstall = _fix.reinstall_current(facts)
    if base.startswith(_NVIDIA_WHEEL_LIBS) and "undefined symbol" in error and ld_path:
        return Fix(
            f"{_basename(name or '')} on LD_LIBRARY_PATH shadows the copy torch ships with; start Python without it.",
            (_fix.unset_env(facts, "LD_LIBRARY_PATH"),),
        )
    if base == "fbgemm.dll" and _fix.base_version(version) == "2.4.0":
        requirements = _fix.same_variant(facts, "2.4.1")
        upgrade = _fix.pip_install(facts, requirements, _fix.index_for(facts), _fix.force_needed(facts, requirements))
        return Fix("torch 2.4.0's Windows wheels miss libomp140.x86_64.dll, which fbgemm.dll needs; 2.4.1 fixed it.",
                   (upgrade,))
    if base.endswith(".dll") and ("winerror 126" in error.lower() or "winerror 1114" in error.lower()):
        commands = (VC_REDIST,) + ((reinstall.command,) if reinstall else ())
        return Fix("Install the latest Microsoft Visual C++ Redistributable; if that does not help, reinstall torch.",
                   commands)
    if base.startswith(_NVIDIA_WHEEL_LIBS):
        text = (f"{_basename(name or '')} comes from torch's nvidia-* pip dependencies, which are missing or partly "
                "uninstalled; reinstall torch with its dependencies.")
        return Fix(text, (reinstall.command,) if reinstall else ())
    if reinstall is None:
        return _fix.install_fix(facts, "Reinstall torch: install ")[0]
    return Fix("Reinstall the same torch build.", (reinstall.command,))


def _import_failed(facts: Facts) -> Finding:
    torch = facts.torch
    error = (torch.import_error or "").strip()
    last = error.splitlines()[-1] if error else "unknown error"
    name = derived(facts).import_failed_file
    detail = f"The file that failed to load: {name}\n\n" if name else ""
    detail += torch.import_traceback or error
    return Finding(
        code="torch.import-failed",
        severity=Severity.ERROR,
        summary=f"import torch fails in {_python_label(facts)}: {last}",
        detail=detail.strip(),
        fix=_import_fix(facts, error + "\n" + (torch.import_traceback or ""), name),
        evidence=("torch.import_error", "torch.import_traceback"),
    )


def _debug_import(facts: Facts, hang: bool) -> str:
    code = ("import faulthandler; faulthandler.dump_traceback_later(60, exit=True); import torch; "
            "print(torch.cuda.is_available())") if hang else "import torch; print(torch.cuda.is_available())"
    flags = "" if hang else " -X faulthandler"
    return f'{_fix.python(facts)}{flags} -c "{code}"'


def _gpu_names(facts: Facts) -> str:
    names = sorted({g.name for g in facts.gpus if g.name})
    return ", ".join(names)


@check("torch", "PyTorch install")
def torch_install(facts: Facts) -> Iterator[Finding]:
    torch = facts.torch
    if torch.timed_out:
        yield Finding(
            code="torch.import-hung",
            severity=Severity.ERROR,
            summary=f"import torch and CUDA initialisation did not finish in time in {_python_label(facts)}",
            detail=(torch.import_error or "").strip(),
            fix=Fix("Run the import by hand; after 60 s it prints where it hangs (often a stuck GPU, driver or "
                    "network file system).", (_debug_import(facts, hang=True), "nvidia-smi")),
            evidence=("torch.timed_out",),
        )
        return
    if torch.crashed:
        yield Finding(
            code="torch.import-crashed",
            severity=Severity.ERROR,
            summary=f"import torch and CUDA initialisation crashed in {_python_label(facts)}: {torch.crashed}",
            detail=(torch.import_traceback or torch.import_error or "").strip(),
            fix=Fix("Run the import by hand with faulthandler on to see which library crashes.",
                    (_debug_import(facts, hang=False),)),
            evidence=("torch.crashed",),
        )
        return
    installed = need(torch.installed, "torch.installed", "whether torch is installed is not known")
    if not installed:
        fix, why = _fix.install_fix(facts)
        yield Finding(
            code="torch.not-installed",
            severity=Severity.ERROR,
            summary=f"torch is not installed in {_python_label(facts)}",
            detail=why,
            fix=fix,
            evidence=("torch.installed",),
        )
        return
    if torch.import_error:
        yield _import_failed(facts)
        return
    version = torch.version or _fix.installed_version(facts, "torch") or "(unknown version)"
    cpu_build = (torch.cuda_compiled is False or version.endswith("+cpu")) and not torch.hip
    gpu_count = len(facts.gpus) or (facts.driver.gpu_count or 0)
    if cpu_build and gpu_count:
        fix, why = _fix.install_fix(facts, "Replace it with ")
        names = _gpu_names(facts)
        yield Finding(
            code="torch.cpu-build-on-gpu",
            severity=Severity.ERROR,
            summary=(f"torch {version} is a CPU-only build, but this machine has {gpu_count} NVIDIA GPU"
                     f"{'' if gpu_count == 1 else 's'}" + (f" ({names})" if names else "")),
            detail=_cpu_detail(facts) + (f"\n{why}" if why else ""),
            fix=fix,
            evidence=("torch.version", "torch.cuda_compiled", "gpus"),
            inferred=facts.is_inferred("torch.cuda_compiled"),
        )
        return
    yield Finding(
        code="torch.ok",
        severity=Severity.INFO,
        summary=f"torch {version} ({_build_label(facts)})" + (f" in {torch.location}" if torch.location else ""),
        detail=(compat.horizon_text(f"torch {version}") + "." if compat.newer_than_data(version)
                else compat.data_line() + "."),
        evidence=("torch.version", "torch.cuda", "torch.location"),
        short=f"{version}, {_build_label(facts)}",
    )


def _cpu_detail(facts: Facts) -> str:
    """Why the build is taken as CPU-only: torch's own word, or what it was inferred from."""
    said = "torch.cuda.is_available() is False with this build (\"Torch not compiled with CUDA enabled\")."
    if not facts.is_inferred("torch.cuda_compiled"):
        return said
    why = inferred_why(facts, "torch.cuda_compiled")
    return "Inferred, not observed" + (f": {why}." if why else ".")


def _build_label(facts: Facts) -> str:
    torch = facts.torch
    if torch.hip:
        return f"ROCm/HIP {torch.hip}"
    if not torch.cuda:
        if torch.mps_available:
            return "CPU and Apple MPS"
        cpu = torch.cuda_compiled is False or (torch.version or "").endswith("+cpu")
        return "CPU-only" if cpu else "build not known: no CUDA or CPU tag"
    parts: List[str] = [f"CUDA {torch.cuda}"]
    cudnn = torch.cudnn_version
    if cudnn:
        parts.append("cuDNN " + (f"{cudnn // 10000}.{cudnn % 10000 // 100}.{cudnn % 100}" if cudnn >= 10000
                                 else f"{cudnn // 1000}.{cudnn % 1000 // 100}.{cudnn % 100}"))
    return ", ".join(parts)


CHECKS: List[Check] = [torch_install]
