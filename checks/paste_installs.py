"""The CUDA that a pasted install command asks for, against the driver the same paste shows."""

from __future__ import annotations

from typing import Iterator

from gpudoctor import compat
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


CHECKS = [install_cuda]
