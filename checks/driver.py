"""Check the NVIDIA driver: loaded, user-space and kernel module in step, and new enough for torch's CUDA."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from gpudoctor import compat
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support.vendors import amd_gpu
from gpudoctor.checks.support.driver_advice import insufficient, no_upgrade_helps, upgrade_text
from gpudoctor.facts import Facts, NvmlError
from gpudoctor.facts.derive import cuda_of_found_version, derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, Skip, check, skip

_MISMATCH_TEXT = "driver/library version mismatch"
_NO_COMM_TEXT = "couldn't communicate with the nvidia driver"
_NO_DRIVER_TEXT = "found no nvidia driver on your system"
_INSUFFICIENT = "driver version is insufficient"  # torch's own words: the libcuda it loaded is too old
_RELOAD = "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"
DOWNLOAD_URL = "https://www.nvidia.com/Download/index.aspx"


def _distro_family(facts: Facts) -> Optional[str]:
    distro = (facts.platform.distro or "").lower()
    if any(name in distro for name in ("ubuntu", "pop!_os", "linux mint", "elementary")):
        return "ubuntu"
    if "debian" in distro:
        return "debian"
    if any(name in distro for name in ("fedora", "red hat", "rhel", "rocky", "alma", "centos")):
        return "fedora"
    return None


def install_driver_commands(facts: Facts) -> Tuple[str, ...]:
    """The distribution's own command that installs (or upgrades to) the recommended NVIDIA driver."""
    family = _distro_family(facts)
    if family == "ubuntu":
        return ("sudo ubuntu-drivers install",)
    if family == "debian":
        return ("sudo apt update && sudo apt install nvidia-driver",)
    if family == "fedora":
        return ("sudo dnf install akmod-nvidia",)
    return ()


def _hold_commands(facts: Facts) -> Tuple[str, ...]:
    family = _distro_family(facts)
    if family in ("ubuntu", "debian"):
        return ("dpkg-query -W -f='${Package}\\n' '*nvidia*' | xargs sudo apt-mark hold",)
    if family == "fedora":
        return ("sudo dnf versionlock add 'nvidia-*' 'kmod-nvidia*' 'akmod-nvidia*'",)
    return ()


def _texts(facts: Facts) -> str:
    d = facts.driver
    return "\n".join(t for t in (d.nvml_error_text, d.smi_error_text) if t)


def _mismatch(facts: Facts) -> Optional[Finding]:
    d = facts.driver
    texts = _texts(facts)
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


def _pci_nvidia(facts: Facts) -> Optional[bool]:
    """Whether the PCI scan saw an NVIDIA device; None when there was no scan."""
    for key, value in facts.extra:
        if key == "nvidia_pci":
            return bool(value.strip())
    return None


def _gpu_expected(facts: Facts) -> bool:
    d = facts.driver
    return bool(facts.gpus or d.gpu_count or facts.platform.dev_nvidia or "nouveau" in d.kernel_modules
                or _pci_nvidia(facts))


def _cpu_container(facts: Facts) -> bool:
    """A container seen to have no /dev/nvidia* nodes whose environment asks for no GPU: a CPU container."""
    wanted = facts.env.get("NVIDIA_VISIBLE_DEVICES")
    return (bool(facts.platform.container) and facts.platform.dev_nvidia == ()
            and wanted in (None, "", "void", "none"))


def _load_fix(facts: Facts, installed: bool) -> Fix:
    if facts.platform.wsl:
        return Fix(
            "Under WSL the driver comes from Windows: install or update the NVIDIA driver on Windows (never a Linux "
            f"driver inside WSL) from {DOWNLOAD_URL}, then restart WSL from Windows.",
            ("wsl.exe --shutdown",),
        )
    if facts.platform.container:
        return Fix(
            "Start the container with GPU access; the host needs the NVIDIA driver and the NVIDIA Container Toolkit.",
            ("docker run --rm --gpus all ubuntu nvidia-smi -L",),
        )
    if (facts.platform.system or "").lower() != "linux":
        return Fix(f"Install the NVIDIA driver for this GPU from {DOWNLOAD_URL}, then restart.")
    nouveau = "nouveau" in facts.driver.kernel_modules
    text = "Load the NVIDIA kernel module; if it refuses, the kernel log says why (often Secure Boot rejecting an "
    text += "unsigned module, or a new kernel without the module rebuilt)."
    if nouveau:
        text += (" The open-source nouveau driver is loaded and holds the GPU; the NVIDIA driver's installer "
                 "disables it.")
    if not installed:
        text = "Install the NVIDIA driver" + (f" ({DOWNLOAD_URL})" if not install_driver_commands(facts) else "")
        text += ", then reboot."
        if nouveau:
            text += " The open-source nouveau driver is loaded now; the NVIDIA driver disables it."
        return Fix(text, install_driver_commands(facts) + ("sudo reboot",))
    commands: Tuple[str, ...] = ("sudo modprobe nvidia", "sudo dmesg | grep -i -E 'nvidia|nouveau' | tail -n 20")
    commands += install_driver_commands(facts)
    return Fix(text, commands)


def _on_amd(facts: Facts, seen: str, detail: str) -> Optional[Finding]:
    """No NVIDIA driver on a machine that shows an AMD GPU and no NVIDIA one: expected, and no fault of its own."""
    amd = amd_gpu(facts)
    if not amd or _gpu_expected(facts):
        return None
    return Finding(
        code="driver.not-loaded",
        severity=Severity.INFO,
        summary=f"{seen}, and none is needed: this machine shows an AMD GPU ({', '.join(amd[:3])})",
        detail="\n".join(part for part in (detail, "CUDA builds of torch and nvidia-smi look for an NVIDIA driver; an "
                                            "AMD GPU needs a ROCm build of torch instead (torch.cuda-build-on-amd).")
                         if part),
        evidence=("torch.init_error", "driver.nvml_error", "amd_gpu"),
    )


def _not_loaded(facts: Facts) -> Optional[Finding]:
    d = facts.driver
    texts = _texts(facts).lower()
    init = (facts.torch.init_error or "").lower()
    installed_not_loaded = d.nvml_failure is NvmlError.DRIVER_NOT_LOADED or _NO_COMM_TEXT in texts
    nothing_seen = not facts.gpus and not d.version and d.nvml_failure is not NvmlError.LIBRARY_NOT_FOUND
    torch_says = _NO_DRIVER_TEXT in init and nothing_seen and _gpu_expected(facts)
    if not installed_not_loaded and not torch_says:
        return None
    said = d.nvml_error_text or d.smi_error_text or facts.torch.init_error or ""
    amd = _on_amd(facts, "the NVIDIA driver does not answer", said.strip())
    if amd is not None:
        return amd
    return Finding(
        code="driver.not-loaded",
        severity=Severity.ERROR,
        summary="the NVIDIA driver is installed but its kernel module is not loaded",
        detail=said.strip(),
        fix=_load_fix(facts, installed=True),
        evidence=("driver.nvml_error", "driver.kernel_modules"),
    )


def _no_driver(facts: Facts, seen: str) -> Iterator[Finding]:
    """No driver at all (``seen`` says how we know): none installed, or a container started without GPUs."""
    torch = facts.torch
    torch_says = _NO_DRIVER_TEXT in (torch.init_error or "").lower()
    cuda_build = (bool(torch.cuda) and not torch.hip) or torch_says
    detail = "\n".join(t for t in (_texts(facts), (torch.init_error or "").strip() if torch_says else "") if t)
    if _gpu_expected(facts):
        yield Finding(
            code="driver.not-loaded",
            severity=Severity.ERROR,
            summary=(f"this container has no access to the NVIDIA driver ({seen}), but the machine has an NVIDIA GPU"
                     if facts.platform.container else
                     f"no NVIDIA driver is installed ({seen}), but this machine has an NVIDIA GPU"),
            detail=detail,
            fix=_load_fix(facts, installed=False),
            evidence=("driver.nvml_error", "platform.dev_nvidia", "driver.kernel_modules"),
        )
        return
    if _pci_nvidia(facts) is False:
        raise skip(f"no NVIDIA GPU on the PCI bus and no NVIDIA driver ({seen})")
    if not cuda_build:
        what = f"torch {torch.version} is not a CUDA build" if torch.version else "torch is not a CUDA build"
        raise skip(f"no NVIDIA driver or GPU on this machine ({seen}) and {what}")
    amd = _on_amd(facts, f"no NVIDIA driver ({seen})", detail)
    if amd is not None:
        yield amd
        return
    fix = _load_fix(facts, installed=False)
    if not facts.platform.container and not facts.platform.wsl and (facts.platform.system or "").lower() == "linux":
        fix = Fix("See whether the machine has an NVIDIA GPU; if it does, " + fix.text[0].lower() + fix.text[1:],
                  ("lspci | grep -i nvidia",) + fix.commands)
    build = f"a CUDA {torch.cuda} build" if torch.cuda else "a CUDA build"
    label = f"torch {torch.version}" if torch.version else "torch"
    if _cpu_container(facts):
        yield Finding(
            code="driver.not-loaded",
            severity=Severity.INFO,
            summary=f"no NVIDIA driver in this container ({seen}) and nothing shows it should have a GPU; "
                    f"{label} is {build} and runs on the CPU here",
            detail=detail,
            fix=fix,
            evidence=("driver.nvml_error", "platform.dev_nvidia", "env.variables"),
        )
        return
    yield Finding(
        code="driver.not-loaded",
        severity=Severity.WARNING,
        summary=f"no NVIDIA driver found ({seen}); {label} is {build} that needs one",
        detail=detail,
        fix=fix,
        evidence=("driver.nvml_error", "torch.cuda", "torch.init_error"),
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
    return Finding(
        code="driver.too-old-for-torch",
        severity=Severity.ERROR,
        summary=f"{observed}; {needs}",
        detail=(torch.init_error or "").strip(),
        fix=Fix(text, tuple(commands)),
        evidence=("driver.version", "torch.cuda", "torch.init_error"),
        inferred=requirement is not None and requirement.confidence is not compat.Confidence.CONFIRMED,
    )


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
        yield from _no_driver(facts, "NVML library not found")
        return
    if _NO_DRIVER_TEXT in (facts.torch.init_error or "").lower() and not d.version and not d.nvml_error:
        yield from _no_driver(facts, 'torch: "Found no NVIDIA driver on your system"')
        return
    if derived(facts).smi_missing and not d.version and not facts.gpus:
        yield from _no_driver(facts, "nvidia-smi is not installed")
        return
    too_old = _too_old(facts)
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
