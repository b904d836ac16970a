"""Check each GPU's compute capability against the GPU architectures compiled into the installed torch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.compat.floor import official_floor
from gpudoctor.facts import Facts
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Severity
from gpudoctor.registry import Check, Skip, check, need, skip

CC = Tuple[int, int]


def kernels_text(flags: Tuple[str, ...]) -> str:
    """``sm_50..sm_90`` (cubins, lowest to highest) plus ``+ PTX compute_120`` when the build carries PTX."""
    tokens = [(compat.parse_cc(t), t) for t in flags]
    cubins = sorted((cc, t) for cc, t in tokens if cc and not t.startswith("compute_"))
    ptx = sorted((cc, t) for cc, t in tokens if cc and t.startswith("compute_"))
    text = ""
    if cubins:
        text = cubins[0][1] if len(cubins) == 1 else f"{cubins[0][1]}..{cubins[-1][1]}"
    if ptx:
        text += (" + " if text else "") + "PTX " + ", ".join(t for _, t in ptx)
    return text or " ".join(flags)


@dataclass(frozen=True)
class Target:
    """One GPU to judge: NVML's ``GPU 0`` or, without NVML, torch's ``cuda:0``."""

    prefix: str  # "GPU " | "cuda:"
    index: int
    name: Optional[str]
    cc: Optional[CC]
    cc_inferred: bool  # looked up from the name

    @property
    def label(self) -> str:
        return f"{self.prefix}{self.index}" + (f" ({self.name})" if self.name else "")


def _targets(facts: Facts) -> List[Target]:
    """Every GPU with its compute capability, NVML's list first, else torch's; looked up by name where missing."""
    devices = [("GPU ", g.index, g.name, g.compute_capability) for g in facts.gpus] or [
        ("cuda:", d.index, d.name, d.compute_capability) for d in facts.torch.devices]
    targets = []
    for prefix, index, name, cc in devices:
        looked_up = compat.gpu_cc_from_name(name) if cc is None and name else None
        targets.append(Target(prefix, index, name, cc or looked_up, looked_up is not None))
    return targets


def _notes(inferred_flags: bool, target: Target) -> List[str]:
    return [note for note in (
        "the wheel's architecture list was looked up, not read from the install" if inferred_flags else "",
        "the GPU's compute capability was looked up from its name" if target.cc_inferred else "",
    ) if note]


def torch_refuses(facts: Facts, cc: CC) -> Optional[str]:
    """torch's own message that this GPU has no usable kernels, when its warnings or CUDA errors carry one."""
    return derived(facts).kernel_refusal(f"sm_{cc[0]}{cc[1]}")


def _unsupported(facts: Facts, target: Target, support: compat.ArchSupport, observed: str, notes: List[str],
                 inferred: bool, refused: Optional[str] = None) -> Finding:
    cc = target.cc or (0, 0)
    if refused:
        detail = f"torch reports: {refused}\nThe build's {support.by} PTX does not rescue this GPU in practice."
    elif support.note:
        detail = support.note
    elif support.reason == "too_old" and support.min_cc:
        detail = f"The lowest architecture in this build is sm_{support.min_cc[0]}{support.min_cc[1]}."
    else:
        detail = (f"The build has no sm_{cc[0]}x kernel and no PTX the driver could compile for it; CUDA fails with "
                  "\"no kernel image is available for execution on the device\".")
    fix, why = _fix.install_fix(facts)
    too_old = support.reason == "too_old" or (not support.reason and support.min_cc is not None and cc < support.min_cc)
    return Finding(code="gpu.arch-too-old" if too_old else "gpu.arch-too-new",
                   severity=Severity.ERROR, summary=observed,
                   detail="\n".join([detail] + notes + ([why] if why else [])),
                   fix=fix, evidence=("torch.arch_flags", "gpus"), inferred=inferred)


def _through_ptx(facts: Facts, support: compat.ArchSupport, observed: str, driver_cuda: Optional[str],
                 notes: List[str], inferred: bool) -> Finding:
    needed = _fix.cuda_major_minor(facts.torch.cuda)
    have = _fix.cuda_major_minor(driver_cuda)
    too_old = bool(needed and have and have < needed)
    summary = f"{observed}: it runs through the {support.by} PTX, compiled at first use"
    if too_old and have:
        summary += f"; driver CUDA {_fix.format_cuda(have)} is older than the CUDA {facts.torch.cuda} that made it"
    return Finding(code="gpu.arch-ptx-jit", severity=Severity.WARNING if too_old else Severity.INFO, summary=summary,
                   detail="\n".join([support.note] + notes), fix=_fix.install_fix(facts)[0] if too_old else None,
                   evidence=("torch.arch_flags", "gpus", "driver.cuda_version"), inferred=inferred)


def _below_every_wheel(facts: Facts) -> Iterator[Finding]:
    """A GPU older than every official wheel's kernels, judged without the installed torch's list: no official
    wheel in the data serves it, so neither does the one installed, unless it is older than the data or self-built."""
    p = facts.platform
    if facts.torch.is_available is True or (p.machine or "x86_64").lower() not in ("x86_64", "amd64"):
        return
    floor = official_floor(p.system if p.system in ("Linux", "Windows") else "Linux")
    if floor is None:
        return
    for target in _targets(facts):
        if target.cc is None or target.cc >= floor.cc:
            continue
        cc = target.cc
        fix, why = _fix.install_fix(facts)
        yield Finding(
            code="gpu.arch-too-old", severity=Severity.WARNING,
            summary=f"{target.label} is sm_{cc[0]}{cc[1]}: no official torch wheel from {floor.oldest_release} to "
                    f"{floor.newest_release} has kernels for it (the oldest are {floor.token}, last in torch "
                    f"{floor.shipped_in})",
            detail="\n".join([f"Observed: {target.label}, compute capability {cc[0]}.{cc[1]}; the installed torch's "
                              "architecture list is not shown. Required: a build with kernels for "
                              f"sm_{cc[0]}{cc[1]}: an older release than the data covers, or a source build."]
                             + _notes(False, target) + ([why] if why else [])),
            fix=fix, evidence=("gpus",), inferred=True)


@check("gpu.arch", "GPU architecture vs the wheel's kernels")
def gpu_arch(facts: Facts) -> Iterator[Finding]:
    torch = facts.torch
    if torch.installed is False:
        raise skip("torch is not installed")
    if torch.import_error or torch.timed_out or torch.crashed:
        raise skip("torch does not import, so its GPU architectures are unknown")
    version = torch.version or _fix.installed_version(facts, "torch") or "(version not shown)"
    if torch.hip:
        raise skip(f"torch {version} is a ROCm build; NVIDIA architectures do not apply")
    if torch.cuda_compiled is False or version.endswith("+cpu"):
        raise skip(f"torch {version} is a CPU build: it has no GPU kernels")
    if torch.arch_flags is None:
        below = list(_below_every_wheel(facts))
        if below:
            yield from below
            return
    flags = need(torch.arch_flags, "torch.arch_flags", "torch did not report the GPU architectures it was built for")
    if not flags:
        raise skip("torch reports an empty list of GPU architectures")
    targets = [t for t in _targets(facts) if t.cc is not None]
    if not targets:
        raise Skip("no GPU's compute capability is known", "gpus")
    inferred_flags = facts.is_inferred("torch.arch_flags")
    kernels = kernels_text(flags)
    driver_cuda = facts.driver.cuda_version or compat.driver_cuda_version(facts.driver.version)
    fine: Dict[Tuple[str, Optional[str], CC, str, str, bool], List[int]] = {}
    for target in targets:
        cc = target.cc or (0, 0)
        support = compat.arch_support(flags, cc, driver_cuda, torch.cuda)
        if not support.decided:
            raise skip(f"torch's architecture list names no CUDA architecture: {' '.join(flags)}")
        notes = _notes(inferred_flags, target)
        inferred = inferred_flags or target.cc_inferred
        observed = f"torch {version} has kernels for {kernels}; {target.label} is sm_{cc[0]}{cc[1]}"
        if not support.supported:
            yield _unsupported(facts, target, support, observed, notes, inferred)
        elif support.via_ptx and torch_refuses(facts, cc):
            yield _unsupported(facts, target, support, observed, notes, inferred, torch_refuses(facts, cc))
        elif support.via_ptx:
            yield _through_ptx(facts, support, observed, driver_cuda, notes, inferred)
        else:
            key = (target.prefix, target.name, cc, support.by or "", "\n".join(notes), inferred)
            fine.setdefault(key, []).append(target.index)
    for (prefix, name, cc, by, notes_text, inferred), indices in fine.items():
        one = len(indices) == 1
        plural = "GPUs " if prefix == "GPU " else prefix
        who = f"{prefix}{indices[0]}" if one else plural + ", ".join(map(str, indices))
        yield Finding(code="gpu.arch-ok", severity=Severity.INFO,
                      summary=f"{who}{f' ({name})' if name else ''} {'is' if one else 'are'} sm_{cc[0]}{cc[1]} and "
                              f"run{'s' if one else ''} the {by} kernels of torch {version}",
                      detail=notes_text, evidence=("torch.arch_flags", "gpus"), inferred=inferred,
                      short=f"{who}: sm_{cc[0]}{cc[1]}"
                      + (f" by {by}" if by and by != f"sm_{cc[0]}{cc[1]}" else ""))


CHECKS: List[Check] = [gpu_arch]
