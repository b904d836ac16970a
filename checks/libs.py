"""Checks that torch loads the CUDA libraries of its own wheels: none shadowed, none missing, one CUDA major.

The libs.shadowed check lives in libs_shadowed; CHECKS lists it first, as always.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional

from gpudoctor import plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks import packages as pk
from gpudoctor.checks import toolkit as tk
from gpudoctor.checks.libs_shadowed import CHECKS as SHADOWED_CHECKS
from gpudoctor.checks.libs_shadowed import SHADOW_LINKS as SHADOW_LINKS
from gpudoctor.checks.libs_shadowed import shadow_fix as _shadow_fix  # noqa: F401 - named through this module
from gpudoctor.checks.libs_shadowed import shadowed as shadowed
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

MISSING_LINKS = ("https://github.com/pytorch/pytorch/issues/104259", "https://github.com/pytorch/pytorch/issues/96595")
MIXED_LINKS = ("https://docs.nvidia.com/cuda/cuda-installation-guide-linux/#pip-wheels",)

UNINSTALL_IN_WORDS = "Uninstall the wheels listed above with pip uninstall."
_TORCH_OWN = ("libtorch", "libc10", "libshm", "libcaffe2", "libgomp", "libnvfuser")


def _texts(facts: Facts) -> str:
    t = facts.torch
    return "\n".join(x for x in (t.import_error, t.import_traceback, t.init_error, t.cudnn_error, *t.warnings) if x)


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


CHECKS = [*SHADOWED_CHECKS, mixed_cuda_majors, missing, wrong_version]
