"""The CUDA that a pasted install command asks for, against the driver and the GPU the same paste shows."""

from __future__ import annotations

from typing import Iterator

from gpudoctor import compat
from gpudoctor.compat.arch import first_toolkit
from gpudoctor.compat.cc import sm_name
from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.checks.support import vendors
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip


def _asked(facts: Facts) -> list[tuple[str, str]]:
    """(CUDA version, what asked for it) from conda pins and download.pytorch.org index names."""
    found = [(value.split(" ", 1)[0], value.split(" ", 1)[1].strip("()")) for value in extras(facts, "paste.install_cuda")]
    for variant in vendors.torch_indexes(facts):
        cuda = compat.variant_cuda(variant) if variant.startswith("cu") and variant[2:].isdigit() else None
        if cuda:
            found.append((cuda, f"the {variant} index"))
    return found


@check("paste.install-cuda", "The CUDA an install command asks for, against the driver")
def install_cuda(facts: Facts) -> Iterator[Finding]:
    asked = _asked(facts)
    if not asked:
        raise skip("no install command in the input names a CUDA version")
    driver = facts.driver.version
    if not driver:
        raise skip("the driver version is not known")
    supports = facts.driver.cuda_version or compat.driver_cuda_version(driver)
    for cuda, what in asked:
        if compat.driver_can_run(driver, cuda, facts.platform.system) is not False:
            continue
        need = compat.driver_requirement(cuda, facts.platform.system)
        minimum = f" (it needs driver >= {need.minimum})" if need and need.minimum else ""
        yield Finding(
            code="paste.install-cuda",
            severity=Severity.WARNING,
            summary=f"the install command asks for CUDA {cuda} ({what}), newer than driver {driver} runs"
                    + (f" (CUDA {supports})" if supports else "") + f"{minimum}: the torch it installs cannot start CUDA",
            detail=f"Observed: {what}; NVIDIA driver {driver}. Required: a torch build for a CUDA the driver runs, or a "
                   "newer driver.",
            fix=Fix("Install the torch build of the CUDA the driver supports (nvidia-smi's 'CUDA Version' is the "
                    "newest), or update the driver.", ("nvidia-smi",)),
            evidence=("extra", "driver.version"),
            cause="driver.too-old-for-torch",
        )
        return


@check("paste.install-arch", "The CUDA an install command asks for, against the GPU's architecture")
def install_arch(facts: Facts) -> Iterator[Finding]:
    asked = [(cuda, what) for cuda, what in _asked(facts) if what.endswith(" index")]
    if not asked:
        raise skip("no install command in the input names a CUDA wheel index")
    ccs = [(gpu, gpu.compute_capability) for gpu in facts.gpus if gpu.compute_capability]
    if not ccs:
        raise skip("no GPU with a known compute capability")
    if facts.torch.arch_flags or (facts.torch.version and facts.torch.cuda):
        raise skip("the installed torch build is known: gpu.arch judges its kernels")
    for cuda, what in asked:
        variant = what.split()[1]
        for gpu, cc in ccs:
            if compat.variant_serves(variant, cc, facts.platform.system, facts.platform.machine) is not False:
                continue
            sm = sm_name(cc)
            newer = cc >= (9, 0)
            yield Finding(
                code="paste.install-arch",
                severity=Severity.ERROR,
                summary=f"the install command takes torch from {what}, and no official {variant} wheel has kernels "
                        f"for GPU {gpu.index} ({gpu.name}, {sm})",
                detail=f"Observed: {what} (CUDA {cuda}); GPU {gpu.index} is {sm} (compute capability "
                       f"{cc[0]}.{cc[1]}). Required: a torch build whose architectures include {sm}.",
                fix=Fix(("Install torch from a newer CUDA index: the GPU needs kernels a CUDA "
                         f"{first_toolkit(cc)} or newer toolkit builds (gpudoctor recommend names the one "
                         "for this machine)." if newer else
                         "This GPU is older than every architecture these wheels carry: install a torch release "
                         "from an older CUDA index that still builds for it, or build torch from source."),
                        ("gpudoctor recommend",)),
                evidence=("extra", "torch_index", "gpus"),
                cause="gpu.arch-too-new" if newer else "gpu.arch-too-old",
            )
            return


CHECKS = [install_cuda, install_arch]
