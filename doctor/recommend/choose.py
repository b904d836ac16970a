"""The fix recommender: the newest official torch build whose kernels cover every GPU and whose CUDA the driver runs."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, List, Optional, Sequence, Tuple

from gpudoctor.compat.base import (
    CC,
    C,
    U,
    major_minor,
    normalise_machine,
    normalise_system,
    python_tuple,
    version_tuple,
    weakest,
)
from gpudoctor.compat.cc import format_cc, parse_cc
from gpudoctor.compat.cudnn import bundled_cudnn, cudnn_version_text
from gpudoctor.recommend.fallbacks import driver_upgrade_option, explain, stay_option, why_not_newest
from gpudoctor.recommend.recommendation import (
    PLATFORM_UNSUPPORTED,
    PYTHON_UNSUPPORTED,
    Option,
    Recommendation,
    pip_keeps,
)
from gpudoctor.compat.horizon import newer_than_data, newest_torch
from gpudoctor.compat.published import DATA_DATE
from gpudoctor.compat.pypi import has_python, last_on_platform, python_tags
from gpudoctor.compat.releases import RELEASES, index_url, release_for_torch, torchaudio_published
from gpudoctor.recommend.plan import InstallPlan, NewEnv, Package
from gpudoctor.recommend.search import Candidate, Machine, candidates, driver_need, install_plan, search
from gpudoctor.compat.wheels import platform_key


def recommend(ccs: Iterable[object], driver_version: Optional[str], system: Optional[str], machine: Optional[str],
              python_version: Optional[str] = None, current_torch: Optional[str] = None, *,
              with_torchvision: bool = True, with_torchaudio: bool = False,
              gpu_names: Optional[Sequence[Optional[str]]] = None) -> Recommendation:
    """Choose the torch build to install for these GPUs, this driver, OS, CPU architecture and Python.

    ``ccs``: compute capabilities ((8, 6) or "8.6"); a value that is not one raises ValueError. An empty list
    means no GPU is known and the driver alone decides. ``current_torch`` ("2.13.0+cu130") decides whether the
    command needs ``--force-reinstall`` (same public version, other variant: `torch==2.13.0` would keep it).
    ``gpu_names`` (parallel to ``ccs``) only makes the text friendlier.
    """
    gpus: List[CC] = []
    for value in ccs:
        cc = parse_cc(value)
        if cc is None:
            raise ValueError(f"not a compute capability: {value!r}")
        gpus.append(cc)
    labels = [_label(cc, gpu_names, i) for i, cc in enumerate(gpus)]
    os_name, arch = normalise_system(system), normalise_machine(machine)
    assumed: List[str] = []
    if system is None and os_name is None:  # a paste that does not say: the platform most wheels are for
        os_name = "Linux"
        assumed.append("Linux")
    if machine is None and arch is None and os_name in ("Linux", "Windows"):
        arch = "x86_64"
        assumed.append("x86_64")
    if os_name == "Darwin":
        return _macos(gpus, arch, python_version, current_torch, with_torchvision, with_torchaudio)
    if os_name is None or arch is None or platform_key(os_name, arch) is None:
        where = f"{system or 'an unknown OS'} on {machine or 'an unknown CPU'}"
        return Recommendation(False, f"PyTorch publishes no CUDA wheels for {where}.", reason=PLATFORM_UNSUPPORTED,
                              options=(Option("Build PyTorch from source with CUDA for this platform: "
                                              "https://github.com/pytorch/pytorch#from-source", confidence=U),))
    target = Machine(tuple(gpus), driver_version, os_name, arch, python_version)
    chosen = search(target)
    if chosen is None:
        return explain(target, labels, current_torch, with_torchvision, with_torchaudio)
    audio_note = ""
    if with_torchaudio:
        chosen, audio_note = _with_audio(chosen, target)
    rec = _finish(chosen, target, labels, current_torch, with_torchvision, with_torchaudio and not audio_note)
    guessed = (f"The input does not say which operating system or CPU this is; the commands are for "
               f"{' '.join(assumed)}.",) if assumed else ()
    return replace(rec, notes=rec.notes + ((audio_note,) if audio_note else ()) + guessed)


def _with_audio(chosen: Candidate, target: Machine) -> Tuple[Candidate, str]:
    """A build whose index and Python have the torchaudio of its release; else the build and why there is none."""
    audio = chosen.release.latest.torchaudio
    if not audio:
        return chosen, f"No torchaudio is known for torch {chosen.torch}."
    if has_python("torchaudio", audio, target.python) is False:
        return chosen, (f"torchaudio {audio} has no wheel for Python {describe_python(target.python)} "
                        f"({', '.join(python_tags('torchaudio', audio))}), so it is left out.")
    if torchaudio_published(audio, chosen.variant) is not False:
        return chosen, ""
    others = [c for c in candidates(chosen.release, target) if torchaudio_published(audio, c.variant)]
    if others:
        best = max(others, key=lambda c: (c.native, major_minor(c.cuda)))
        return best, ""
    return chosen, f"gpudoctor knows no torchaudio {audio} wheel on the {chosen.variant} index, so it is left out."


def _label(cc: CC, names: Optional[Sequence[Optional[str]]], index: int) -> str:
    name = names[index] if names is not None and index < len(names) else None
    return f"{name} ({format_cc(cc)})" if name else f"CC {format_cc(cc)}"


def _finish(chosen: Candidate, target: Machine, labels: List[str], current: Optional[str], with_vision: bool,
            with_audio: bool) -> Recommendation:
    pair = chosen.release.latest
    variant = chosen.variant
    vision = pair.torchvision if with_vision else None
    audio = pair.torchaudio if with_audio else None
    force = pip_keeps(current, pair.torch, variant)
    why_force = f"torch {current} is already installed and pip would otherwise keep it as it is"
    plan = install_plan(pair.torch, vision, audio, variant, force, target.python, why_force)
    full = f"{pair.torch}+{variant}"
    what = f"torch {full}" + (f" with torchvision {vision}+{variant}" if vision else "")
    if audio:
        what += f" and torchaudio {audio}+{variant}"
    if target.gpus:
        served = ", ".join(f"{label} by {s.by}" + (" (PTX JIT)" if s.via_ptx else "")
                           for label, s in zip(labels, chosen.supports))
        gpu_part = f"its kernels cover every GPU ({served})"
    else:
        gpu_part = "no GPU compute capability is known, so only the driver decided"
    req = chosen.requirement
    need = driver_need(req)
    if target.driver is None:
        driver_part = f"it needs {need} (the driver version is unknown)"
    elif chosen.native:
        driver_part = f"driver {target.driver} (CUDA {target.driver_cuda}) supports CUDA {chosen.cuda}"
    else:
        driver_part = (f"driver {target.driver} (CUDA {target.driver_cuda}) runs CUDA {chosen.cuda} builds through "
                       f"minor-version compatibility (it needs {need})")
    text = f"Install {what}: {gpu_part}; {driver_part}."
    if python_tuple(target.python) is None:
        text += f" The Python version is unknown: torch {pair.torch} supports Python {chosen.release.python_text}."
    if force:
        text += f" --force-reinstall because {plan.force_reason}."
    confidence = weakest([chosen.confidence] + ([pair.torchaudio_confidence] if audio else []))
    if chosen.weak_text():
        text += f" This rests on {chosen.weak_text()}."
    notes = [s.note for s in chosen.supports if s.note]
    cudnn = bundled_cudnn(pair.torch, variant)
    kepler = [format_cc(cc) for cc in target.gpus if cc < (5, 0)]
    if kepler and cudnn is not None and cudnn >= 8900:
        notes.append(f"cuDNN {cudnn_version_text(cudnn)} in this build needs CC 5.0 or newer: on {', '.join(kepler)} "
                     "convolutions can fail (CUDNN_STATUS_ARCH_MISMATCH); set torch.backends.cudnn.enabled = False "
                     "(SECONDARY).")
    if pair.inferred:
        notes.append(f"torchvision {pair.torchvision} for torch {pair.torch}: {pair.note}.")
    why = why_not_newest(chosen, target)
    if why:
        notes.append(why)
    if current and newer_than_data(current):
        notes.append(f"The installed torch {current} is newer than gpudoctor's data, which ends at torch "
                     f"{newest_torch()} (data of {DATA_DATE}): another build of it may serve this machine too, "
                     "but only the releases in the data can be checked here.")
    installed = release_for_torch(current)
    if installed is not None and installed is not chosen.release and installed.supports_python(target.python) is False:
        notes.append(f"The installed torch {current} has no wheels for Python {describe_python(target.python)} "
                     f"(torch {installed.minor} supports {installed.python_text}).")
    if audio and pair.torchaudio_confidence is not C:
        notes.append(f"torchaudio {audio} for torch {pair.torch} is {pair.torchaudio_confidence.value}: "
                     "torchaudio 2.11 is built against the stable ABI and supports torch 2.11 and later")
    if vision and version_tuple(target.python) == (3, 14, 1) and (version_tuple(vision) or ()) >= (0, 28):
        notes.append(f"torchvision {vision} declares Requires-Python !=3.14.1: use another Python 3.14 patch release")
    options = [o for o in (driver_upgrade_option(chosen, target, current, with_vision, with_audio),
                           stay_option(chosen, target, current, with_vision, with_audio)) if o is not None]
    plan = replace(plan, confidence=confidence, notes=tuple(notes))
    return Recommendation(True, text, full, f"{vision}+{variant}" if vision else None,
                          f"{audio}+{variant}" if audio else None, variant, chosen.cuda, index_url(variant), plan,
                          confidence, None, tuple(options), tuple(notes), (chosen.arch.source, chosen.release.source))


def _macos(gpus: List[CC], arch: Optional[str], python: Optional[str], current: Optional[str],
           with_vision: bool, with_audio: bool) -> Recommendation:
    intel = arch == "x86_64"
    pool = [r for r in RELEASES if not intel or r.minor == "2.2"]
    fitting = [r for r in pool if r.supports_python(python) is not False]
    if not fitting:
        newest = pool[0]
        top = f"{newest.python[1][0]}.{newest.python[1][1]}"
        return Recommendation(
            False, f"No PyTorch release for macOS {'x86_64' if intel else 'arm64'} supports Python {python}; "
                   f"torch {newest.latest.torch} supports Python {newest.python_text}.", reason=PYTHON_UNSUPPORTED,
            options=(Option(f"Create an environment with Python {top} and install torch there.",
                            InstallPlan((Package("torch", newest.latest.torch),), new_env=NewEnv(top, ".venv"))),))
    pair = fitting[0].latest
    vision = pair.torchvision if with_vision else None
    audio = pair.torchaudio if with_audio else None
    if audio and has_python("torchaudio", audio, python) is False:
        audio = None
    plan = install_plan(pair.torch, vision, audio, None, pip_keeps(current, pair.torch, None), python,
                        f"torch {current} is already installed and pip would otherwise keep it as it is")
    notes = ("PyTorch has no CUDA support on macOS, so NVIDIA GPUs cannot be used there.",) if gpus else ()
    if intel:
        last = last_on_platform("torch", "macos-x86_64")
        sure = last == pair.torch
        text = (f"macOS has no CUDA. torch {pair.torch} is the last release with macOS x86_64 wheels"
                + ("" if sure else " (UNCONFIRMED)") + "; it runs on the CPU, and MPS needs macOS 12.3 or later.")
        confidence = C if sure else U
    else:
        text = (f"macOS has no CUDA: install the PyPI wheel torch {pair.torch} and use the Apple GPU through MPS "
                "(torch.device(\"mps\"); check torch.backends.mps.is_available()).")
        confidence = C
    return Recommendation(True, text, pair.torch, vision, audio, None, None, None,
                          replace(plan, confidence=confidence, notes=notes), confidence, notes=notes)


def describe_python(python: Optional[str]) -> str:
    """ "3.11" for "3.11.4"; the text itself when it cannot be parsed."""
    parsed = python_tuple(python)
    return f"{parsed[0]}.{parsed[1]}" if parsed else str(python)
