"""No NVIDIA driver at all (none installed, or a container without one), and the fixes that install or load it."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

from gpudoctor.checks.support.vendors import amd_gpu
from gpudoctor.facts import Facts, Source
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import skip

NO_DRIVER_TEXT = "found no nvidia driver on your system"
DOWNLOAD_URL = "https://www.nvidia.com/Download/index.aspx"


def distro_family(facts: Facts) -> Optional[str]:
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
    family = distro_family(facts)
    if family == "ubuntu":
        return ("sudo ubuntu-drivers install",)
    if family == "debian":
        return ("sudo apt update && sudo apt install nvidia-driver",)
    if family == "fedora":
        return ("sudo dnf install akmod-nvidia",)
    return ()


def driver_texts(facts: Facts) -> str:
    d = facts.driver
    return "\n".join(t for t in (d.nvml_error_text, d.smi_error_text) if t)


def _pci_nvidia(facts: Facts) -> Optional[bool]:
    """Whether the PCI scan saw an NVIDIA device; None when there was no scan."""
    for key, value in facts.extra:
        if key == "nvidia_pci":
            return bool(value.strip())
    return None


def gpu_expected(facts: Facts) -> bool:
    d = facts.driver
    return bool(facts.gpus or d.gpu_count or facts.platform.dev_nvidia or "nouveau" in d.kernel_modules
                or _pci_nvidia(facts))


def _cpu_container(facts: Facts) -> bool:
    """A container seen to have no /dev/nvidia* nodes whose environment asks for no GPU: a CPU container."""
    wanted = facts.env.get("NVIDIA_VISIBLE_DEVICES")
    return (bool(facts.platform.container) and facts.platform.dev_nvidia == ()
            and wanted in (None, "", "void", "none"))


def load_fix(facts: Facts, installed: bool) -> Fix:
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


def on_amd(facts: Facts, seen: str, detail: str) -> Optional[Finding]:
    """No NVIDIA driver on a machine that shows an AMD GPU and no NVIDIA one: expected, and no fault of its own."""
    amd = amd_gpu(facts)
    if not amd or gpu_expected(facts):
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


def no_driver(facts: Facts, seen: str) -> Iterator[Finding]:
    """No driver at all (``seen`` says how we know): none installed, or a container started without GPUs."""
    torch = facts.torch
    torch_says = NO_DRIVER_TEXT in (torch.init_error or "").lower()
    cuda_build = (bool(torch.cuda) and not torch.hip) or torch_says
    detail = "\n".join(t for t in (driver_texts(facts), (torch.init_error or "").strip() if torch_says else "") if t)
    if gpu_expected(facts):
        yield Finding(
            code="driver.not-loaded",
            severity=Severity.ERROR,
            summary=(f"this container has no access to the NVIDIA driver ({seen}), but the machine has an NVIDIA GPU"
                     if facts.platform.container else
                     f"no NVIDIA driver is installed ({seen}), but this machine has an NVIDIA GPU"),
            detail=detail,
            fix=load_fix(facts, installed=False),
            evidence=("driver.nvml_error", "platform.dev_nvidia", "driver.kernel_modules"),
        )
        return
    if _pci_nvidia(facts) is False:
        raise skip(f"no NVIDIA GPU on the PCI bus and no NVIDIA driver ({seen})")
    if not cuda_build:
        what = f"torch {torch.version} is not a CUDA build" if torch.version else "torch is not a CUDA build"
        raise skip(f"no NVIDIA driver or GPU on this machine ({seen}) and {what}")
    amd = on_amd(facts, f"no NVIDIA driver ({seen})", detail)
    if amd is not None:
        yield amd
        return
    fix = load_fix(facts, installed=False)
    if not facts.platform.container and not facts.platform.wsl and (facts.platform.system or "").lower() == "linux":
        text = "See whether the machine has an NVIDIA GPU; if it does, " + fix.text[0].lower() + fix.text[1:]
        if Source.parse(facts.meta.source) in (Source.PASTE, Source.COLLECT_ENV):  # a paste may come from a container
            text += " Inside a container install no driver: start the container with the GPUs (docker run --gpus all)."
        fix = Fix(text, ("lspci | grep -i nvidia",) + fix.commands)
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
