"""Checks of the NVIDIA kernel driver's state: the NVSwitch fabric manager, nvidia_uvm and nouveau."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import DriverSource, FabricManager, Facts, Gpu
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need, skip

FABRIC_MANAGER_GUIDE = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
LINUX_INSTALL_GUIDE = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html"
UVM_AFTER_SUSPEND = "https://github.com/pytorch/pytorch/issues/88639"

# GPU models whose 8-GPU (and 16-GPU) boards connect every GPU through NVSwitch chips: HGX/DGX A100
# (SXM4), DGX-2 (V100 SXM3), HGX H100/H800/H200/H20 and HGX B200/B300. SXM2 boards (DGX-1) and the
# 4-GPU HGX boards link GPUs directly and need no fabric manager.
NVSWITCH_MODELS = ("SXM3", "SXM4", "SXM5", "SXM6", "H100 80GB HBM3", "H800", "H200", "H20", "B200", "B300")
NVSWITCH_MIN_GPUS = 8
ERROR_802 = "system not yet initialized"


def _nvswitch_class(name: str) -> bool:
    upper = name.upper()
    if "PCIE" in upper or "NVL" in upper or "GH200" in upper or "GB200" in upper:
        return False
    return any(model.upper() in upper for model in NVSWITCH_MODELS)


def _distro_family(facts: Facts) -> str:
    distro = (facts.platform.distro or "").lower()
    if any(name in distro for name in ("red hat", "rhel", "rocky", "alma", "centos", "fedora", "amazon", "oracle")):
        return "rhel"
    if "suse" in distro or "sles" in distro:
        return "suse"
    return "debian"


def _linux_only(facts: Facts) -> None:
    system = facts.platform.system
    if system is not None and system != "Linux":
        raise skip(f"kernel modules are a Linux matter; this is {system}")
    if facts.platform.wsl:
        raise skip("WSL2 uses the Windows driver through /dev/dxg; there are no NVIDIA kernel modules to check")


def _gpu_span(gpus: List[Gpu]) -> str:
    indices = [g.index for g in gpus]
    names = sorted({g.name or "unknown model" for g in gpus})
    contiguous = indices == list(range(min(indices), max(indices) + 1))
    span = f"{min(indices)}-{max(indices)}" if contiguous else ", ".join(map(str, indices))
    return f"GPUs {span} ({', '.join(names)})"


def _fabric_install(facts: Facts) -> Tuple[str, ...]:
    version = facts.driver.version
    branch = version.split(".")[0] if version else (
        "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1 | cut -d. -f1)"
    )
    family = _distro_family(facts)
    if family == "rhel":
        install = f"sudo dnf install nvidia-fabricmanager-{branch}"
    elif family == "suse":
        install = f"sudo zypper install cuda-drivers-fabricmanager-{branch}"
    else:
        install = f"sudo apt-get install nvidia-fabricmanager-{branch}"
    return (install, "sudo systemctl enable --now nvidia-fabricmanager", "nv-fabricmanager --version")


@check("driver.fabric-manager", "NVSwitch fabric manager")
def fabric_manager(facts: Facts) -> Iterator[Finding]:
    init_error = facts.torch.init_error or ""
    error_802 = ERROR_802 in init_error.lower()
    if not facts.gpus and not error_802:
        need(None, "gpus", "no GPU list from NVML, so whether this is an NVSwitch machine is not known")
    switched = [g for g in facts.gpus if g.name and _nvswitch_class(g.name)]
    if len(switched) < NVSWITCH_MIN_GPUS and not error_802:
        return
    state = FabricManager.parse(facts.driver.fabric_manager)
    if facts.driver.fabric_manager is None and not error_802:
        raise skip(f"{_gpu_span(switched)} sit on NVSwitch, but the fabric manager's state was not read")
    machine = _gpu_span(switched) + " sit on an NVSwitch fabric" if switched else "CUDA reports Error 802"
    driver = facts.driver.version or "unknown"
    cuda_says = " and CUDA fails with 'Error 802: system not yet initialized'" if error_802 else ""
    required = (f"nvidia-fabricmanager {driver}, running (the same version as the driver)" if facts.driver.version
                else "nvidia-fabricmanager of exactly the driver's version, running")
    evidence = ("gpus", "driver.fabric_manager", "driver.version") + (("torch.init_error",) if error_802 else ())
    fm_version = facts.driver.fabric_manager_version
    if state is FabricManager.RUNNING and fm_version and facts.driver.version and fm_version != facts.driver.version:
        observed = f"nvidia-fabricmanager {fm_version} with driver {driver}"
        fix = Fix(
            f"Install the fabric manager of exactly the driver's version ({driver}) and restart it.",
            _fabric_install(facts)[:1] + ("sudo systemctl restart nvidia-fabricmanager", "nv-fabricmanager --version"),
        )
    elif state is FabricManager.RUNNING:
        if not error_802:
            return
        observed = "nvidia-fabricmanager running, yet CUDA is not initialised"
        fix = Fix(
            "The service runs but did not set up the fabric; its log says why (most often a version that "
            f"differs from the driver's {driver}). Install the matching version and restart it.",
            ("sudo journalctl -u nvidia-fabricmanager -b --no-pager -n 50", "nv-fabricmanager --version")
            + _fabric_install(facts)[:1] + ("sudo systemctl restart nvidia-fabricmanager",),
        )
    elif state is FabricManager.STOPPED:
        observed = "nvidia-fabricmanager installed but not running"
        fix = Fix(
            "Start the service and enable it at boot; if it stops again, its log names the reason "
            f"(a version other than the driver's {driver} is the usual one).",
            ("sudo systemctl enable --now nvidia-fabricmanager",
             "sudo journalctl -u nvidia-fabricmanager -b --no-pager -n 50"),
        )
    else:
        observed = "nvidia-fabricmanager not installed" if state is FabricManager.MISSING else "fabric manager state not read"
        fix = Fix(
            f"Install the fabric manager of the driver's branch, check that its version equals the driver's "
            f"({driver}; pin it if the repository offers a newer one) and start it.",
            _fabric_install(facts),
        )
    yield Finding(
        code="driver.fabric-manager",
        severity=Severity.ERROR,
        summary=(f"{machine}{cuda_says}: observed {observed}; required {required}" if switched else
                 f"CUDA fails with 'Error 802: system not yet initialized', the NVSwitch fabric manager's error: "
                 f"observed {observed}; required {required}"),
        detail="On NVSwitch systems the GPUs cannot run CUDA until the fabric manager has configured the "
        "NVLink fabric; until then every CUDA call fails with Error 802.",
        fix=fix,
        links=(FABRIC_MANAGER_GUIDE,),
        evidence=evidence,
    )


def _container_without_uvm(facts: Facts) -> Optional[Finding]:
    """In a container, nvidia-smi works and CUDA does not start, and no message says why: the usual cause is a
    missing /dev/nvidia-uvm (the host loaded nvidia_uvm after the container started, or it was not passed)."""
    t = facts.torch
    in_container = facts.platform.container or extras(facts, "paste.container_said")
    smi_works = bool(extras(facts, "paste.smi_works")) or bool(facts.driver.version and facts.gpus)
    others = [s for s in extras(facts, "paste.signature") if s != "cuda-unavailable"]
    if (not in_container or not smi_works or t.is_available is not False or t.cuda_compiled is False or t.hip
            or others or t.init_error or t.import_error or facts.platform.dev_nvidia is not None):
        return None
    return Finding(
        code="driver.uvm",
        severity=Severity.WARNING,
        summary="in the container nvidia-smi works but CUDA does not start: the container most likely lacks "
                "/dev/nvidia-uvm",
        detail="Observed: nvidia-smi works inside the container; torch.cuda.is_available() is False. Required: "
               "/dev/nvidia-uvm in the container as well. NVML (nvidia-smi) needs only /dev/nvidia0 and "
               "/dev/nvidiactl; CUDA also needs /dev/nvidia-uvm, which exists only once the host has loaded "
               "nvidia_uvm. A container started before that (nvidia_uvm loads on the first CUDA use after boot) "
               "never gets it. If /dev/nvidia-uvm is there, check that torch is a CUDA build the driver runs.",
        fix=Fix("On the host, load nvidia_uvm and create its device node, then restart the container (or pass "
                "--device /dev/nvidia-uvm:/dev/nvidia-uvm).",
                ("ls -l /dev/nvidia*", "sudo nvidia-modprobe -u -c=0", 'python -c "import torch; '
                 'print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"')),
        links=(UVM_AFTER_SUSPEND,),
        evidence=("extra", "torch.is_available"),
    )


@check("driver.uvm", "nvidia_uvm kernel module")
def uvm(facts: Facts) -> Iterator[Finding]:
    _linux_only(facts)
    in_container = _container_without_uvm(facts)
    if in_container is not None:
        yield in_container
        return
    init_error = facts.torch.init_error or ""
    modules = facts.driver.kernel_modules
    if modules and "nvidia" in modules and "nvidia_uvm" not in modules:
        yield Finding(
            code="driver.uvm",
            severity=Severity.ERROR,
            summary="the nvidia module is loaded but nvidia_uvm is not; CUDA needs both "
            f"(loaded: {', '.join(modules)})",
            detail="Without nvidia_uvm (and its /dev/nvidia-uvm node) CUDA cannot initialise, while "
            "nvidia-smi still works.",
            fix=Fix("Load the module (nvidia-modprobe also creates its device node).",
                    ("sudo modprobe nvidia_uvm", "sudo nvidia-modprobe -u -c=0")),
            links=(UVM_AFTER_SUSPEND,),
            evidence=("driver.kernel_modules",),
        )
        return
    if "cuda unknown error" in init_error.lower() or "error-999" in extras(facts, "paste.signature"):
        yield Finding(
            code="driver.uvm",
            severity=Severity.ERROR,
            summary="CUDA initialisation failed with 'CUDA unknown error' (cudaErrorUnknown: 999, or 30 before CUDA "
            "10.1); the usual cause is an nvidia_uvm module left broken by suspend/resume",
            detail=f"torch reported: {init_error.strip()}\nReloading nvidia_uvm needs every CUDA process "
            "stopped first. If the error comes back after each resume, enable the NVIDIA suspend services "
            "(nvidia-suspend, nvidia-resume). If a reload and a reboot do not help, the driver install "
            "itself is broken: see the driver check.",
            fix=Fix("Reload the module, or reboot.",
                    ("sudo modprobe -r nvidia_uvm && sudo modprobe nvidia_uvm", "sudo reboot")),
            links=(UVM_AFTER_SUSPEND,),
            evidence=("torch.init_error", "driver.kernel_modules"),
        )
        return
    if not modules:
        if facts.torch.is_available:
            return
        need(None, "driver.kernel_modules", "the loaded kernel modules were not read")
    if "nvidia" not in modules:
        raise skip("the nvidia kernel module is not loaded, so nvidia_uvm is not judged (see the driver check)")
    nodes = facts.platform.dev_nvidia
    if nodes is not None and facts.platform.container is None:
        names = {node.rsplit("/", 1)[-1] for node in nodes}
        if "nvidia-uvm" not in names:
            yield Finding(
                code="driver.uvm",
                severity=Severity.ERROR,
                summary="nvidia_uvm is loaded but /dev/nvidia-uvm does not exist; CUDA cannot open it",
                detail=f"/dev nodes present: {', '.join(sorted(names)) or 'none'}",
                fix=Fix("Create the device node.", ("sudo nvidia-modprobe -u -c=0",)),
                links=(UVM_AFTER_SUSPEND,),
                evidence=("platform.dev_nvidia", "driver.kernel_modules"),
            )


def _nouveau_fix(facts: Facts) -> Fix:
    family = _distro_family(facts)
    initramfs = "sudo dracut --force" if family in ("rhel", "suse") else "sudo update-initramfs -u"
    commands: tuple[str, ...] = (
        "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
        initramfs,
        "sudo reboot",
    )
    if "ubuntu" in (facts.platform.distro or "").lower():
        commands += ("sudo ubuntu-drivers install",)
    return Fix(
        "Blacklist nouveau, rebuild the initramfs so it is not loaded at boot, reboot, then install the "
        "NVIDIA driver (and reboot once more).",
        commands,
    )


@check("driver.nouveau", "nouveau driver")
def nouveau(facts: Facts) -> Iterator[Finding]:
    _linux_only(facts)
    modules = facts.driver.kernel_modules
    if not modules:
        if facts.gpus and facts.driver.source == DriverSource.NVML.value:
            return
        need(None, "driver.kernel_modules", "the loaded kernel modules were not read")
    if "nouveau" not in modules:
        return
    both = "nvidia" in modules
    yield Finding(
        code="driver.nouveau",
        severity=Severity.WARNING if both else Severity.ERROR,
        summary=(
            "the open-source nouveau module is loaded next to NVIDIA's; required: nouveau not loaded"
            if both else
            "the open-source nouveau module drives the GPU instead of NVIDIA's driver; CUDA needs the "
            "nvidia module (required: nvidia loaded, nouveau not loaded)"
        ),
        detail=f"loaded kernel modules: {', '.join(modules)}",
        fix=_nouveau_fix(facts),
        links=(LINUX_INSTALL_GUIDE,),
        evidence=("driver.kernel_modules",),
    )


CHECKS: List[Check] = [fabric_manager, uvm, nouveau]
