"""Check the NVIDIA driver: loaded, user-space and kernel module in step, and new enough for torch's CUDA."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support.driver_missing import (
    DOWNLOAD_URL,
    NO_DRIVER_TEXT,
    distro_family,
    driver_texts,
    gpu_expected,
    install_driver_commands,
    load_fix,
    no_driver,
    on_amd,
)
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support.driver_advice import insufficient, no_upgrade_helps, upgrade_text
from gpudoctor.checks.support.paste_notes import extras, inferred_why
from gpudoctor.compat.drivers import parse_driver
from gpudoctor.facts import SMI_UNREAD, DriverSource, Facts, NvmlError
from gpudoctor.facts.derive import cuda_of_found_version, derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, Skip, check, skip

__all__ = ["CHECKS", "DOWNLOAD_URL", "driver", "install_driver_commands"]

_MISMATCH_TEXT = "driver/library version mismatch"
_NO_COMM_TEXT = "couldn't communicate with the nvidia driver"
_INSUFFICIENT = "driver version is insufficient"  # torch's own words: the libcuda it loaded is too old
_RELOAD = "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"


def _hold_commands(facts: Facts) -> Tuple[str, ...]:
    family = distro_family(facts)
    if family in ("ubuntu", "debian"):
        return ("dpkg-query -W -f='${Package}\\n' '*nvidia*' | xargs sudo apt-mark hold",)
    if family == "fedora":
        return ("sudo dnf versionlock add 'nvidia-*' 'kmod-nvidia*' 'akmod-nvidia*'",)
    return ()


def _mismatch(facts: Facts) -> Optional[Finding]:
    d = facts.driver
    texts = driver_texts(facts)
    user = d.version if d.version and d.version != d.kernel_module_version else None
    if user is None:
        user = derived(facts).nvml_library_version
    flagged = d.nvml_failure is NvmlError.VERSION_MISMATCH or _MISMATCH_TEXT in texts.lower()
    differs = bool(d.version and d.kernel_module_version and d.version != d.kernel_module_version)
    if not (flagged or differs):
        return None
    sides = (("user-space", user), ("kernel module", d.kernel_module_version))
    observed = ", ".join(f"{label} {value}" for label, value in sides if value)
    where = "On the host, not in this container: r" if facts.platform.container else "R"
    works = facts.torch.is_available is True
    return Finding(
        code="driver.nvml-mismatch",
        severity=Severity.WARNING if works else Severity.ERROR,
        summary="NVIDIA driver/library version mismatch" + (f": {observed}" if observed else "")
        + ("; torch still sees the GPU, so only NVML (nvidia-smi) fails for now" if works else ""),
        detail=(
            "The driver's user-space libraries were replaced (often by an unattended upgrade) while the old kernel "
            "module is still loaded; NVML and CUDA refuse to work until the two match again"
            + (" (processes that started CUDA before the change keep working; new ones fail)." if works else ".")
            + (f"\n{texts}" if texts else "")
        ),
        fix=Fix(
            f"{where}eboot, or stop every process that uses the GPU and reload the kernel modules. Then hold the "
            "driver packages so they change only when you upgrade on purpose.",
            ("sudo reboot", _RELOAD) + _hold_commands(facts),
        ),
        evidence=("driver.nvml_error", "driver.version", "driver.kernel_module_version"),
    )


def smi_missing_explained(facts: Facts) -> bool:
    """A missing nvidia-smi that says nothing of the driver: torch itself reaches the GPU (nvidia-smi left out of
    an image or PATH), or the GPUs were read from NVML, which needs the driver."""
    t = facts.torch
    return bool(t.is_available or t.device_count) or (bool(facts.gpus) and facts.driver.source == DriverSource.NVML.value)


def judges_mismatch(facts: Facts) -> bool:
    """Whether this check names an NVML/driver version mismatch from the facts."""
    return (facts.platform.system or "").lower() != "darwin" and _mismatch(facts) is not None


def judges_smi_error(facts: Facts) -> bool:
    """Whether this check reads the driver's state from nvidia-smi's error: the driver not loaded, or none there."""
    if (facts.platform.system or "").lower() == "darwin":
        return False
    d = facts.driver
    if _NO_COMM_TEXT in driver_texts(facts).lower():
        return True
    return derived(facts).smi_missing and not d.version and not smi_missing_explained(facts)


def _not_loaded(facts: Facts) -> Optional[Finding]:
    d = facts.driver
    texts = driver_texts(facts).lower()
    init = (facts.torch.init_error or "").lower()
    installed_not_loaded = d.nvml_failure is NvmlError.DRIVER_NOT_LOADED or _NO_COMM_TEXT in texts
    nothing_seen = not facts.gpus and not d.version and d.nvml_failure is not NvmlError.LIBRARY_NOT_FOUND
    torch_says = NO_DRIVER_TEXT in init and nothing_seen and gpu_expected(facts)
    if not installed_not_loaded and not torch_says:
        return None
    said = d.nvml_error_text or d.smi_error_text or facts.torch.init_error or ""
    amd = on_amd(facts, "the NVIDIA driver does not answer", said.strip())
    if amd is not None:
        return amd
    return Finding(
        code="driver.not-loaded",
        severity=Severity.ERROR,
        summary="the NVIDIA driver is installed but its kernel module is not loaded",
        detail=said.strip(),
        fix=load_fix(facts, installed=True),
        evidence=("driver.nvml_error", "driver.kernel_modules"),
    )


def _too_old(facts: Facts) -> Optional[Finding]:
    torch = facts.torch
    if not torch.cuda or torch.hip:
        return None
    system = facts.platform.system or "Linux"
    version = facts.driver.version
    found = derived(facts).driver_found_version
    can_run = compat.driver_can_run(version, torch.cuda, system) if version else None
    said = _INSUFFICIENT in (torch.init_error or "").lower() and torch.is_available is False
    if can_run is not False and found is None:
        return insufficient(facts) if said else None
    if version:
        supports = compat.driver_cuda_version(version) or facts.driver.cuda_version
        observed = f"driver {version}" + (f" supports CUDA {supports}" if supports else "")
    else:
        number = found or 0
        observed = f"the driver supports CUDA {cuda_of_found_version(number)} (torch: \"found version {number}\")"
    requirement = compat.driver_requirement(torch.cuda, system)
    minimum = requirement.minimum if requirement else None
    major = torch.cuda.split(".")[0]
    series = f"{major}.x" if major.isdigit() and int(major) >= 11 else torch.cuda  # minor-version compatibility from 11
    label = torch.version or _fix.installed_version(facts, "torch") or "torch"
    needs = f"torch {label} needs CUDA {series}" + (f", i.e. driver >= {minimum}" if minimum else "")
    commands: List[str] = list(install_driver_commands(facts)) if not facts.platform.wsl else []
    text = upgrade_text(facts, requirement, minimum)
    if text is None:
        commands, text = [], ""
    elif facts.platform.wsl:
        text += f" on Windows ({DOWNLOAD_URL})"
    elif not commands:
        text += f" ({DOWNLOAD_URL})"
    wheel = _fix.recommended_install(facts)
    if wheel is not None and wheel.ok:
        text += (f", or install the torch build this driver runs: {wheel.what}." if text else
                 f"Install the torch build this driver runs: {wheel.what}.")
        commands.append(wheel.command)
    else:
        text += "."
    blocked = no_upgrade_helps(facts, requirement)
    if blocked:
        text = blocked + " " + text
    built = inferred_why(facts, "torch.cuda")
    detail = (torch.init_error or "").strip()
    if built:
        detail = f"torch's CUDA version is inferred, not observed: {built}.\n{detail}".strip()
    return Finding(
        code="driver.too-old-for-torch",
        severity=Severity.ERROR,
        summary=f"{observed}; {needs}",
        detail=detail,
        fix=Fix(text, tuple(commands)),
        evidence=("driver.version", "torch.cuda", "torch.init_error"),
        inferred=bool(built) or (requirement is not None and requirement.confidence is not compat.Confidence.CONFIRMED),
    )


def _older_than_image(facts: Facts) -> Optional[Finding]:
    """An NGC image's banner: the image was built for a newer driver than the host's (the banner names both)."""
    needed = next(iter(extras(facts, "paste.image_driver_min")), None)
    version = facts.driver.version
    have, need = parse_driver(version), parse_driver(needed)
    if have is None or need is None or have >= need:
        return None
    return Finding(
        code="driver.too-old-for-torch",
        severity=Severity.ERROR,
        summary=f"the host's NVIDIA driver {version} is older than the {needed} this container image was built for",
        detail=f"Observed: driver {version} (the image's banner). Required: driver {needed} or newer, or an image built "
               "for an older CUDA. Forward compatibility (the image's newer CUDA on an older driver) works only on data "
               "center GPUs.",
        fix=Fix(f"Update the host's NVIDIA driver to {needed} or newer, or use an older tag of the image (one built for "
                "the CUDA this driver supports: nvidia-smi's 'CUDA Version').", ("nvidia-smi",)),
        evidence=("driver.version", "extra"),
    )


def _smi_unread(facts: Facts) -> bool:
    """collect_env on Linux printed "Could not collect" for both the driver and the GPUs, and torch, a CUDA build,
    answers False: nvidia-smi is missing or reaches no driver."""
    return (all(SMI_UNREAD in (facts.probe_error(key) or "") for key in ("driver", "gpus"))
            and facts.torch.is_available is False and not facts.driver.version and not facts.gpus
            and (facts.platform.system or "").lower() == "linux")


@check("driver", "NVIDIA driver")
def driver(facts: Facts) -> Iterator[Finding]:
    if (facts.platform.system or "").lower() == "darwin":
        raise skip("macOS has no NVIDIA CUDA driver")
    mismatch = _mismatch(facts)
    if mismatch is not None:
        yield mismatch
        return
    not_loaded = _not_loaded(facts)
    if not_loaded is not None:
        yield not_loaded
        return
    d = facts.driver
    if d.nvml_failure is NvmlError.LIBRARY_NOT_FOUND and not d.version:
        yield from no_driver(facts, "NVML library not found")
        return
    if NO_DRIVER_TEXT in (facts.torch.init_error or "").lower() and not d.version and not d.nvml_error:
        yield from no_driver(facts, 'torch: "Found no NVIDIA driver on your system"')
        return
    if derived(facts).smi_missing and not d.version and not smi_missing_explained(facts):
        yield from no_driver(facts, "nvidia-smi is not installed")
        return
    if _smi_unread(facts):
        yield from no_driver(facts, "collect_env could not read the driver or a GPU: nvidia-smi is missing or fails")
        return
    too_old = _too_old(facts) or _older_than_image(facts)
    if too_old is not None:
        yield too_old
        return
    version = d.version
    if version is None:
        raise Skip("the driver version is not known", "driver")
    if d.nvml_failure in (NvmlError.NO_PERMISSION, NvmlError.OTHER):
        yield Finding(
            code="driver.nvml-error",
            severity=Severity.WARNING,
            summary=f"NVML could not initialise: {d.nvml_error_text or d.nvml_error}",
            detail="gpudoctor read the driver version elsewhere; GPU details may be missing.",
            fix=Fix("Check that your user may open the NVIDIA device files.", ("ls -l /dev/nvidia*",)),
            evidence=("driver.nvml_error",),
        )
    supports = d.cuda_version or compat.driver_cuda_version(version)
    runs = ""
    torch = facts.torch
    if torch.cuda and not torch.hip:
        requirement = compat.driver_requirement(torch.cuda, facts.platform.system)
        needs = f", needs >= {requirement.minimum}" if requirement and requirement.minimum else ""
        runs = f"; new enough for torch {torch.version} (CUDA {torch.cuda}{needs})"
        if requirement is None:  # no table covers that CUDA: say so rather than vouch for the driver
            runs = (f"; whether it is new enough for torch {torch.version} (CUDA {torch.cuda}) is not known: "
                    "gpudoctor's driver tables start at CUDA 10.0")
    yield Finding(
        code="driver.ok",
        severity=Severity.INFO,
        summary=f"NVIDIA driver {version}" + (f" (CUDA {supports})" if supports else "") + runs,
        evidence=("driver.version", "driver.cuda_version"),
        short=f"{version}" + (f", CUDA {supports}" if supports else ""),
    )


CHECKS: List[Check] = [driver]
