"""When no official wheel fits, or a better one needs a change: the reason and the options, with commands."""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Tuple

from gpudoctor.compat.arch import TEGRA_CCS, arch_support
from gpudoctor.compat.base import CC, Confidence, S, major_minor, python_tuple, weakest
from gpudoctor.compat.cc import format_cc, parse_arch_token
from gpudoctor.compat.floor import official_floor
from gpudoctor.compat.generations import JETPACK_TEXT, is_jetson
from gpudoctor.recommend.options import conda_kepler_option, cpu_option, source_build_option
from gpudoctor.recommend.plan import InstallPlan, NewEnv
from gpudoctor.recommend.recommendation import (
    DRIVER_TOO_OLD,
    GPU_UNSUPPORTED,
    MIXED_GPUS,
    PYTHON_UNSUPPORTED,
    Option,
    Recommendation,
    pip_keeps,
)
from gpudoctor.compat.releases import RELEASES, Release, pairing, release_for_torch, split_local_version
from gpudoctor.recommend.search import (
    Candidate,
    Machine,
    candidates,
    driver_need,
    install_plan,
    search,
    variant_problem,
)
from gpudoctor.compat.wheels import published_variants, wheel_arch_list


def _platform(target: Machine) -> str:
    return f"{target.system} {target.machine}"


def _plan(c: Candidate, current: Optional[str], vision: bool, audio: bool, fresh: bool = False,
          python: Optional[str] = None, new_env: Optional[NewEnv] = None) -> InstallPlan:
    pair = c.release.latest
    force = not fresh and pip_keeps(current, pair.torch, c.variant)
    plan = install_plan(pair.torch, pair.torchvision if vision else None, pair.torchaudio if audio else None,
                        c.variant, force, python)
    return replace(plan, new_env=new_env, confidence=c.confidence)


def _need(c: Candidate, target: Optional[Machine] = None) -> str:
    """The driver a build needs; on Jetson the CUDA of the JetPack, since L4T numbers its driver otherwise."""
    if target is not None and is_jetson(target.gpus):
        return f"a JetPack with CUDA {c.cuda} or newer"
    return driver_need(c.requirement)


def _upgrade_confidence(c: Candidate) -> Confidence:
    """An upgrade to the minimum rests on the build's rows and on the minimum itself."""
    return weakest([c.confidence] + ([c.requirement.confidence] if c.requirement else []))


def _venv(release: Release) -> Tuple[str, NewEnv]:
    top = f"{release.python[1][0]}.{release.python[1][1]}"
    return top, NewEnv(top)


def why_not_newest(chosen: Candidate, target: Machine) -> Optional[str]:
    """Why the newest release is not the one recommended, variant by variant."""
    newest = RELEASES[0]
    if chosen.release is newest:
        return None
    if newest.supports_python(target.python) is False:
        return f"torch {newest.latest.torch} supports Python {newest.python_text}, not {target.python}."
    problems = []
    for variant in published_variants(newest.latest.torch, target.system, target.machine):
        problem = variant_problem(newest, variant, target)
        if problem:
            problems.append(f"{variant}: {problem}")
    if not problems:
        return None
    return f"torch {newest.latest.torch} is not an option: " + "; ".join(problems) + "."


def driver_upgrade_option(chosen: Candidate, target: Machine, current: Optional[str], vision: bool,
                          audio: bool) -> Optional[Option]:
    """A newer release that a driver upgrade would allow."""
    if target.driver is None:
        return None
    better = search(target, ignore_driver=True)
    if better is None or RELEASES.index(better.release) >= RELEASES.index(chosen.release):
        return None
    text = f"Or upgrade to {_need(better, target)} and install torch {better.torch}+{better.variant}."
    if is_jetson(target.gpus):
        text += " " + JETPACK_TEXT
    return Option(text, _plan(better, current, vision, audio, python=target.python), confidence=_upgrade_confidence(better))


def stay_option(chosen: Candidate, target: Machine, current: Optional[str], vision: bool,
                audio: bool) -> Optional[Option]:
    """Keep the installed torch version, with a build that serves this machine."""
    public, _ = split_local_version(current or "")
    release = release_for_torch(public)
    pair = pairing(public)
    if release is None or pair is None or release is chosen.release or release.historic:
        return None  # historic releases judge old pastes; installing one is never advised
    if release.supports_python(target.python) is False:
        return None
    found = candidates(release, target)
    if not found:
        return None
    best = max(found, key=lambda c: (c.native, major_minor(c.cuda)))
    plan = install_plan(pair.torch, pair.torchvision if vision else None, pair.torchaudio if audio else None,
                        best.variant, pip_keeps(current, pair.torch, best.variant), target.python)
    text = f"Or keep torch {pair.torch} and install its {best.variant} build."
    confidence = best.confidence
    jit = [(format_cc(cc), s.by) for cc, s in zip(target.gpus, best.supports) if s.via_ptx]
    if jit:
        text += (f" It has no kernels built for CC {', '.join(dict.fromkeys(c for c, _ in jit))}: it runs there only "
                 f"through PTX JIT of {', '.join(dict.fromkeys(str(b) for _, b in jit))} (the driver compiles the "
                 "kernels at first use, minutes, cached afterwards), and libraries or operators without that PTX "
                 "fail.")
        confidence = weakest([confidence, S])
    return Option(text, replace(plan, confidence=confidence), confidence=confidence)


def _platform_tokens(target: Machine) -> List[Tuple[str, str]]:
    """(token, "torch+variant") for every official wheel of this platform, newest release first."""
    found = []
    for release in RELEASES:
        for variant in published_variants(release.latest.torch, target.system, target.machine):
            arch = wheel_arch_list(release.latest.torch, variant, target.system, target.machine)
            found += [(token, f"{release.latest.torch}+{variant}") for token in (arch.tokens if arch else ())]
    return found


def _gpu_problem(cc: CC, label: str, target: Machine) -> str:
    """Why no official wheel of this platform serves one GPU."""
    tokens = _platform_tokens(target)
    cubins = [(parsed.cc, token, where) for token, where in tokens
              for parsed in (parse_arch_token(token),) if parsed and not parsed.ptx]
    reason = arch_support([token for token, _ in tokens], cc).reason
    where = _platform(target)
    floor = official_floor(target.system, target.machine) if reason == "too_old" else None
    if floor is not None:
        return (f"{label} is older than every official wheel for {where} (the oldest kernels are {floor.token}, last "
                f"shipped in torch {floor.shipped_in})")
    if reason == "tegra" or cc in TEGRA_CCS:
        return f"{label} is a Tegra/Jetson GPU and no official wheel for {where} has kernels for it"
    high = max(cubins, key=lambda item: item[0])[1] if cubins else "none"
    return f"{label} is newer than every official wheel's kernels for {where} (the newest are {high})"


def _per_gpu_option(target: Machine, cc: CC, labels: List[str], vision: bool, audio: bool) -> Option:
    """One environment for the GPUs of one compute capability."""
    names = ", ".join(label for label, g in zip(labels, target.gpus) if g == cc)
    alone = replace(target, gpus=(cc,))
    sub, extra = search(alone), ""
    if sub is None:
        sub = search(alone, ignore_driver=True)
        extra = f", after upgrading to {_need(sub, target)}" if sub else ""
    if sub is None:
        return Option(f"For {names}: no official build supports Python {target.python}.")
    return Option(f"For {names}: torch {sub.torch}+{sub.variant} in its own environment{extra}, with "
                  "CUDA_VISIBLE_DEVICES naming only those GPUs.", _plan(sub, None, vision, audio, True, target.python),
                  confidence=sub.confidence)


def explain(target: Machine, labels: List[str], current: Optional[str], vision: bool, audio: bool) -> Recommendation:
    """ok=False: the reason no official wheel fits, and the options."""
    options: List[Option] = []
    py = python_tuple(target.python)
    py_text = f"{py[0]}.{py[1]}" if py else "unknown"
    if search(target, ignore_driver=True, ignore_python=True) is None:
        lonely = [i for i, cc in enumerate(target.gpus)
                  if search(replace(target, gpus=(cc,)), ignore_driver=True, ignore_python=True) is None]
        if lonely:
            reason = GPU_UNSUPPORTED
            text = "No official PyTorch wheel can use this GPU: " + "; ".join(
                _gpu_problem(target.gpus[i], labels[i], target) for i in lonely) + "."
        else:
            reason = MIXED_GPUS
            text = (f"No single official PyTorch build has kernels for all of {', '.join(labels)}: each needs a "
                    "different build.")
            for cc in sorted(set(target.gpus)):
                options.append(_per_gpu_option(target, cc, labels, vision, audio))
        options.append(source_build_option(target))
        conda = conda_kepler_option(target)
        if conda:
            options.append(conda)
    elif py is not None and search(target, ignore_driver=True) is None:
        reason = PYTHON_UNSUPPORTED
        runnable = search(replace(target, python=None))
        other = runnable or search(replace(target, python=None), ignore_driver=True)
        assert other is not None
        text = (f"No PyTorch release that can serve these GPUs supports Python {py_text}: torch "
                f"{other.torch}+{other.variant} needs Python {other.release.python_text}.")
        top, venv = _venv(other.release)
        extra = "" if runnable else f" after upgrading to {_need(other, target)}"
        options.append(Option(f"Create an environment with Python {top} and install torch {other.torch}+"
                               f"{other.variant} there{extra}.", _plan(other, None, vision, audio, True, f"{top}.0", venv),
                              confidence=other.confidence))
    else:
        reason = DRIVER_TOO_OLD
        best = search(target, ignore_driver=True)
        assert best is not None
        text = (f"The NVIDIA driver {target.driver} (CUDA {target.driver_cuda or 'unknown'}) is too old for every "
                f"official build that serves these GPUs on Python {py_text}: the least they need is "
                f"{_need(best, target)} (torch {best.torch}+{best.variant}).")
        upgrade = f"Upgrade to {_need(best, target)} and install torch {best.torch}+{best.variant}."
        if is_jetson(target.gpus):
            upgrade += " " + JETPACK_TEXT
        options.append(Option(upgrade, _plan(best, current, vision, audio, python=target.python),
                              confidence=_upgrade_confidence(best)))
        older = search(replace(target, python=None))
        if older is not None and py is not None:
            top, venv = _venv(older.release)
            options.append(Option(f"Or keep this driver and use Python {older.release.python_text} with torch "
                                  f"{older.torch}+{older.variant}.", _plan(older, None, vision, audio, True, f"{top}.0", venv),
                                  confidence=older.confidence))
    cpu = cpu_option(target, current, vision, audio)
    if cpu is not None:
        options.append(cpu)
    return Recommendation(False, text, reason=reason, options=tuple(options), confidence=_verdict_confidence(target))


def _verdict_confidence(target: Machine) -> Confidence:
    """How sure "nothing fits" is: the weakest arch list of the newest release for this platform."""
    newest = RELEASES[0].latest.torch
    lists = [wheel_arch_list(newest, v, target.system, target.machine)
             for v in published_variants(newest, target.system, target.machine)]
    return weakest(a.confidence for a in lists if a is not None)
