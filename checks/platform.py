"""Checks of the platform around torch: WSL, containers, macOS, machines without an NVIDIA GPU, and AMD/NVIDIA builds."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from gpudoctor import compat, plausible
from gpudoctor.checks.support import containers as _containers
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import mac_containers as _mac
from gpudoctor.checks.support import vendors as _vendors
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks import packages as pk
from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts, NvmlError, Source
from gpudoctor.facts.containers import wsl_distro
from gpudoctor.facts.derive import derived
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, need, skip
from gpudoctor.shell import Shell, quote

WSL_LINKS = ("https://docs.nvidia.com/cuda/wsl-user-guide/index.html",)
CONTAINER_LINKS = ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",
                   "https://docs.nvidia.com/deploy/cuda-compatibility/")
MPS_LINKS = ("https://docs.pytorch.org/docs/stable/notes/mps.html",)
INSTALL_LINKS = ("https://pytorch.org/get-started/locally/",)
WSL_LIB = "/usr/lib/wsl/lib"
WSL2_GPU_BUILD = 19044  # Windows 10 21H2: the first Windows 10 build with GPU compute in WSL 2
TOOLKIT_INSTALL = (
    "docker run --rm --gpus all ubuntu nvidia-smi -L",
    "sudo apt-get install -y nvidia-container-toolkit",
    "sudo nvidia-ctk runtime configure --runtime=docker",
    "sudo systemctl restart docker",
)


def _extra(facts: Facts, key: str) -> Optional[str]:
    return next((value for name, value in facts.extra if name == key), None)


def _wsl(facts: Facts) -> Optional[int]:
    """1 or 2 under WSL (from the probe, else from a kernel release like 5.15.153.1-microsoft-standard-WSL2)."""
    release = (facts.platform.release or "").lower()
    if facts.platform.wsl or "microsoft" not in release:
        return facts.platform.wsl
    return 2 if "wsl2" in release or "microsoft-standard" in release else 1


def nvidia_present(facts: Facts) -> bool:
    """An NVIDIA GPU shows anywhere: NVML, the PCI bus, or a loaded nvidia or nouveau kernel module."""
    modules = {"nvidia", "nouveau"} & set(facts.driver.kernel_modules)
    return bool(facts.gpus or (facts.driver.gpu_count or 0) > 0 or _extra(facts, "nvidia_pci") or modules)


def driver_build(facts: Facts) -> Optional[str]:
    """Install this torch release in the newest CUDA variant the driver runs, with its torchvision and torchaudio."""
    release = compat.release_for_torch(pk.torch_version(facts))
    if release is None or release.historic or not facts.driver.version:
        return None  # a historic release is judged, never reinstalled
    runs = [v for v in release.cuda_variants
            if compat.driver_can_run(facts.driver.version, compat.variant_cuda(v), facts.platform.system)]
    base = _fix.base_version(pk.torch_version(facts) or "")
    torch = base if any(p.torch == base for p in release.patches) else release.latest.torch
    return pk.release_set(facts, torch, runs[-1], force_reinstall=True) if runs else None


def _owner_purge(facts: Facts, owner: str) -> Tuple[Optional[str], ...]:
    """``dpkg -S PATH`` and the purge of the package it names; None for each when the path is not plausible."""
    if not plausible.path(owner):
        return (None, None)
    quoted = quote(owner, Shell.POSIX)
    return (_cmd.command(facts, ["dpkg", "-S", owner]), f'sudo apt-get purge "$(dpkg -S {quoted} | cut -d: -f1)"')


@check("platform.wsl", "WSL uses the Windows NVIDIA driver")
def wsl(facts: Facts) -> Iterator[Finding]:
    version = _wsl(facts)
    rocm = _vendors.rocm_under_wsl(facts, version)
    if rocm is not None:
        yield rocm
        return
    if need(facts.platform.system, "platform.system", "the operating system is not known") != "Linux" or version is None:
        raise skip("not running under WSL")
    libs = facts.libraries
    if version == 1:
        yield _wsl1(facts)
        return
    linux_libcuda = [p for p in libs.libcuda_paths if not p.startswith(WSL_LIB + "/")]
    if linux_libcuda:
        owner = linux_libcuda[0]
        modules = [m for m in facts.driver.kernel_modules if m.startswith("nvidia")]
        yield Finding(
            "platform.wsl", Severity.ERROR,
            f"a Linux NVIDIA driver is installed inside WSL ({', '.join(linux_libcuda)}); WSL 2 must use the Windows driver's {WSL_LIB}",
            f"Observed: libcuda at {', '.join(linux_libcuda)}" + (f"; kernel modules {', '.join(modules)}" if modules else "")
            + f". Required: libcuda only from {WSL_LIB}, which the Windows driver provides; a Linux driver inside WSL breaks "
            "CUDA (is_available() False, or 'out of memory' from cudaGetDeviceCount).",
            _cmd.fix("Remove the Linux driver package that owns that file (a .run install: sudo nvidia-uninstall), then rebuild "
                     "the loader cache. Install only the WSL-Ubuntu cuda-toolkit package if you need a toolkit.",
                     _owner_purge(facts, owner) + ("sudo ldconfig",),
                     "Find the package with dpkg -S and the libcuda path above, and purge it with apt-get."),
            WSL_LINKS, ("libraries.libcuda_paths", "driver.kernel_modules"),
        )
    if libs.wsl_lib_dir is False:
        yield Finding(
            "platform.wsl", Severity.ERROR, f"{WSL_LIB} is missing: the Windows NVIDIA driver does not reach this WSL distribution",
            f"Observed: no {WSL_LIB}. Required: an NVIDIA Windows driver with WSL support and an up-to-date WSL.",
            Fix("Install the current NVIDIA driver on Windows, then update and restart WSL from Windows PowerShell.",
                ("wsl --update", "wsl --shutdown")),
            WSL_LINKS, ("libraries.wsl_lib_dir",),
        )
    if derived(facts).libcuda_so_unopened:
        yield Finding(
            "platform.wsl", Severity.WARNING, f"libcuda.so cannot be opened: it lives in {WSL_LIB}, which is not searched",
            f"Observed: 'libcuda.so: cannot open shared object file'. Required: {WSL_LIB} on LD_LIBRARY_PATH for libraries "
            "that load libcuda.so rather than libcuda.so.1.",
            Fix(f"Add {WSL_LIB} to LD_LIBRARY_PATH.", (f"export LD_LIBRARY_PATH={WSL_LIB}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}",)),
            WSL_LINKS, ("torch.import_error", "torch.init_error"),
        )
    if libs.wsl_lib_dir is None and not libs.libcuda_paths:
        raise skip(f"whether {WSL_LIB} exists was not looked at")


def _wsl1(facts: Facts) -> Finding:
    distro = wsl_distro(facts)
    build = _extra(facts, "paste.wsl.windows_build")
    old = build is not None and build.isdigit() and int(build) < WSL2_GPU_BUILD
    return Finding(
        "platform.wsl", Severity.ERROR, "this is WSL 1, which has no GPU support; CUDA needs WSL 2",
        "Observed: WSL 1" + (f" (distribution {distro})" if distro else "") + (f", Windows build {build}" if build else "")
        + ". Required: WSL 2 with the NVIDIA Windows driver" + (f"; GPU access in WSL 2 needs Windows 10 build "
                                                                 f"{WSL2_GPU_BUILD} (21H2) or Windows 11" if old else "")
        + ". No Linux driver installed inside WSL 1 can reach the GPU.",
        Fix(("Update Windows first; then in " if old else "In ") + "Windows PowerShell, list the distributions and "
            "convert this one to WSL 2.",
            ("wsl --list --verbose", f"wsl --set-version {quote(distro, Shell.POWERSHELL) if distro else '<distribution>'} 2")),
        WSL_LINKS, ("platform.wsl",),
    )


CONTAINER_FIXES = {  # how each kind of container gets the GPUs
    "kubernetes": Fix("Request a GPU in the pod spec (resources.limits nvidia.com/gpu: 1) on a node with the NVIDIA device "
                      "plugin; check that nodes offer GPUs.", ("kubectl describe nodes | grep -i nvidia.com/gpu",)),
    "apptainer": Fix("Start the container with --nv.", ("apptainer exec --nv IMAGE nvidia-smi -L",)),
    "podman": Fix("Pass the GPUs through CDI (NVIDIA Container Toolkit), then test.", (
        "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml", "podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L")),
    "docker": Fix("On the host, test GPU access; if the test lists the GPUs, start your container with --gpus all "
                  "(docker run --gpus all IMAGE ...). If docker answers 'could not select device driver', install the NVIDIA "
                  "Container Toolkit (add NVIDIA's repository first, see the guide), configure docker and restart it.",
                  TOOLKIT_INSTALL),
}


def _forward_compat(facts: Facts, error: str) -> Finding:
    """Errors 803/804: the image's CUDA (often its forward-compatibility libcuda) against the host driver."""
    cuda = facts.env.get("CUDA_VERSION") or facts.torch.cuda
    driver, system = facts.driver.version, facts.platform.system
    driver_cuda = compat.driver_cuda_version(driver) if driver else None
    runs = compat.driver_can_run(driver, cuda, system) if cuda else None
    requirement = compat.driver_requirement(cuda, system) if cuda else None
    compat_dirs = [e for e in facts.libraries.ld_library_path if "/compat" in e]
    rest = ":".join(e for e in facts.libraries.ld_library_path if e not in compat_dirs)
    build = driver_build(facts)
    unset = _cmd.export(facts, "LD_LIBRARY_PATH", rest) if plausible.path_list(rest.split(":") if rest else []) else None
    commands: tuple[str, ...] = (unset,) if compat_dirs and unset else ()
    commands = (commands + ((build,) if build else ())) or ("nvidia-smi",)
    label = f"CUDA {cuda}" if cuda else "CUDA"
    image = f"the image's {label}"
    if runs:
        required = (f"the host driver's own libcuda, which runs {label} through minor-version compatibility; the "
                    "forward-compatibility libraries work only on data-center GPUs.")
    else:
        minimum = f" (>= {requirement.minimum})" if requirement and requirement.minimum else ""
        required = f"a host driver that runs {label}{minimum}, or an image and torch build for the driver's CUDA."
    return Finding(
        "platform.container", Severity.ERROR,
        f"{image} is newer than the host driver" + (f" {driver}" if driver else " supports")
        + (f" (supports CUDA {driver_cuda})" if driver_cuda else "")
        + f": {error}",
        f"Observed: {error}"
        + (f", with the image's forward-compatibility libraries first on LD_LIBRARY_PATH ({', '.join(compat_dirs)})" if compat_dirs else "")
        + f". Required: {required}",
        Fix(("Take the forward-compatibility folder out of LD_LIBRARY_PATH; then " if compat_dirs else "")
            + "upgrade the host driver, or use an image made for the driver's CUDA"
            + (", or install the torch build the driver runs" if build else "") + ".", commands),
        CONTAINER_LINKS, ("torch.init_error", "driver.version", "env.variables"),
    )


@check("platform.container", "GPU access inside a container")
def container(facts: Facts) -> Iterator[Finding]:
    kind = facts.platform.container
    started = _containers.started_without_gpus(facts)
    if not kind and started is None:
        raise skip("not inside a container")
    if started is not None:
        yield started
    mac = _mac.on_mac(facts)
    if mac is not None:
        yield mac
    if not kind:
        return
    forward = derived(facts).forward_compat_error
    if forward:
        yield _forward_compat(facts, forward)
    nodes = facts.platform.dev_nvidia
    if nodes is not None and not [n for n in nodes if n.startswith("/dev/nvidia")]:
        pci = _extra(facts, "nvidia_pci")
        wanted = facts.env.get("NVIDIA_VISIBLE_DEVICES")
        expected = bool(pci) or (wanted not in (None, "", "void", "none"))
        yield Finding(
            "platform.container", Severity.ERROR if expected else Severity.INFO,
            f"no /dev/nvidia* devices in this {kind} container: it was started without GPU access" if expected
            else f"no /dev/nvidia* devices in this {kind} container, and nothing shows that it should have a GPU",
            "Observed: no /dev/nvidia* device nodes" + (f"; the host's PCI bus shows NVIDIA devices ({pci})" if pci else "")
            + (f"; NVIDIA_VISIBLE_DEVICES={wanted} asks for GPUs" if expected and wanted else "")
            + ". Required: the NVIDIA runtime passing GPUs in (docker run --gpus all)."
            + ("" if expected else " Nothing here shows that the host has an NVIDIA GPU; if it has none, this is expected."),
            CONTAINER_FIXES.get(kind, CONTAINER_FIXES["docker"]), CONTAINER_LINKS, ("platform.dev_nvidia", "platform.container"),
        )
    elif nodes and not facts.libraries.libcuda_paths and facts.driver.nvml_failure is NvmlError.LIBRARY_NOT_FOUND:
        yield Finding(
            "platform.container", Severity.ERROR,
            f"this {kind} container has /dev/nvidia* devices but no driver libraries (libcuda, NVML)",
            "Observed: device nodes without libcuda.so: the devices were passed with --device instead of through the NVIDIA "
            "runtime, which also mounts the driver's libraries. Required: --gpus all (or NVIDIA_DRIVER_CAPABILITIES=compute,utility).",
            CONTAINER_FIXES.get(kind, CONTAINER_FIXES["docker"]), CONTAINER_LINKS, ("platform.dev_nvidia", "libraries.libcuda_paths", "driver.nvml_error"),
        )
    elif nodes is None and not forward and started is None and mac is None:
        raise skip("the /dev/nvidia* device nodes were not looked at")


@check("platform.macos", "macOS: MPS instead of CUDA")
def macos(facts: Facts) -> Iterator[Finding]:
    if need(facts.platform.system, "platform.system", "the operating system is not known") != "Darwin":
        raise skip("not macOS")
    mps = facts.torch.mps_available
    test = f"{_fix.python(facts)} -c \"import torch; print(torch.ones(2, device='mps') * 2)\""
    if mps:
        yield Finding(
            "platform.macos", Severity.INFO, "macOS has no CUDA; this Mac's GPU works through MPS: use torch.device(\"mps\")",
            "Observed: torch.backends.mps.is_available() is True. Put models and tensors on torch.device(\"mps\") "
            "where CUDA code says \"cuda\".",
            Fix("Run a tensor on the GPU through MPS.", (test,)), MPS_LINKS, ("torch.mps_available",),
        )
    elif mps is False:
        rosetta = facts.platform.machine == "x86_64"
        yield Finding(
            "platform.macos", Severity.WARNING, "macOS has no CUDA, and MPS (the Mac GPU backend) is not available to this torch",
            "Observed: torch.backends.mps.is_available() is False"
            + ("; this Python runs as x86_64 (an Intel Mac, or Rosetta on Apple silicon)" if rosetta else "")
            + ". Required: Apple silicon (or an AMD GPU) with macOS 12.3 or later and an arm64 Python for Apple silicon.",
            Fix("Check the Python's architecture (arm64 on Apple silicon), then reinstall torch under an arm64 Python.",
                (f"{_fix.python(facts)} -c \"import platform; print(platform.machine())\"", _fix.pip_install(facts, ["torch"]))),
            MPS_LINKS, ("torch.mps_available", "platform.machine"),
        )
    else:
        yield Finding("platform.macos", Severity.INFO, "macOS has no CUDA; whether MPS works was not reported")


@check("platform.no-nvidia-gpu", "An NVIDIA GPU is present")
def no_nvidia_gpu(facts: Facts) -> Iterator[Finding]:
    if facts.platform.system == "Darwin":
        raise skip("macOS: see platform.macos")
    if nvidia_present(facts) or (facts.torch.device_count or 0) > 0 and not facts.torch.hip:
        return
    if facts.platform.container or _wsl(facts):
        raise skip("inside a container or WSL the GPUs of the host cannot be listed from here")
    d = facts.driver
    seen: List[str] = []
    if d.gpu_count == 0 and d.nvml_error is None and d.source:
        seen.append(f"{d.source} reports 0 GPUs")
    if _extra(facts, "nvidia_pci") == "":
        seen.append("no NVIDIA device on the PCI bus")
    no_driver = d.nvml_failure in (NvmlError.LIBRARY_NOT_FOUND, NvmlError.DRIVER_NOT_LOADED)
    if not seen and no_driver and facts.platform.dev_nvidia == () \
            and not any(m.startswith("nvidia") for m in d.kernel_modules):
        seen.append("no NVIDIA driver, kernel module or /dev/nvidia* device")
    pasted = Source.parse(facts.meta.source) in (Source.PASTE, Source.COLLECT_ENV)
    if not seen and pasted and not facts.driver.version:
        yield from _other_vendor(facts)
        return
    if not seen:
        raise skip("whether this machine has an NVIDIA GPU is not known")
    # in a pasted report about CUDA failing, the missing GPU is the answer; on a machine checked as it is, a fact
    failing = facts.torch.is_available is False or bool(extras(facts, "paste.signature"))
    yield Finding(
        "platform.no-nvidia-gpu", Severity.WARNING if pasted and failing else Severity.INFO,
        "this machine has no NVIDIA GPU: torch can only use the CPU here",
        f"Observed: {'; '.join(seen)}.",
        Fix("If the machine does have an NVIDIA GPU, look for it; otherwise the CPU build of torch is the one to use.",
            ("Get-PnpDevice -Class Display" if _fix.is_windows(facts) else "lspci -nn | grep -i -E 'vga|3d|display'",)),
        INSTALL_LINKS, ("driver.gpu_count", "extra", "platform.dev_nvidia"),
    )


_XPU_INDEX = "https://download.pytorch.org/whl/xpu"


def _other_vendor(facts: Facts) -> Iterator[Finding]:
    """A paste that names only an AMD or an Intel GPU, or a Huawei Ascend NPU: CUDA code and CUDA builds of torch
    cannot use it."""
    amd, intel, ascend = _vendors.amd_gpu(facts), _vendors.intel_gpu(facts), _vendors.ascend_npu(facts)
    t = facts.torch
    rocm = bool(t.hip) or "+rocm" in (t.version or "")
    cuda_said = "no-driver" in extras(facts, "paste.signature") or derived(facts).driver_found_version is not None
    if amd and not rocm and (t.version or t.cuda or t.cuda_compiled is not None or cuda_said
                             or _vendors.rocm_index(facts) or _vendors.torch_indexes(facts)):
        amd = ()  # a CUDA or CPU build on the AMD GPU: the checks of torch's builds judge it, with the ROCm build as fix
    if not amd and not intel and not ascend:
        raise skip("whether this machine has an NVIDIA GPU is not known")
    named = amd or intel or ascend
    models = [re.sub(r"(?:\s+[a-z]+)+$", "", item) for item in named if any(ch.isdigit() for ch in item)]
    if amd:
        vendor = "an AMD GPU"
        fix = Fix("CUDA needs an NVIDIA GPU. On Linux, torch's ROCm builds use AMD GPUs (and `torch.cuda` then means the "
                  "AMD GPU); code with CUDA kernels of its own (custom extensions) runs only on NVIDIA GPUs, so run it "
                  "on the CPU or on a machine with an NVIDIA GPU.", ("rocminfo",))
        links: Tuple[str, ...] = (_vendors.ROCM_INSTALL_LINK,)
    elif ascend and not intel:
        vendor = "a Huawei Ascend NPU"
        fix = Fix("CUDA needs an NVIDIA GPU. Ascend NPUs are used through Huawei's torch_npu adapter with the CANN "
                  "toolkit (`import torch_npu`, the device \"npu\"), not `torch.cuda`; code written for CUDA only runs on "
                  "the CPU here.", ())
        links = ("https://github.com/Ascend/pytorch",)
    else:
        vendor = "an Intel GPU"
        fix = Fix(f"CUDA needs an NVIDIA GPU. Intel GPUs are used through torch's XPU builds ({_XPU_INDEX}, "
                  "`torch.xpu`), not `torch.cuda`; code written for CUDA only runs on the CPU here.", ())
        links = ("https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html",)
    own = rocm or "+xpu" in (t.version or "")
    working = own and t.is_available is True  # a ROCm or XPU torch that uses the GPU
    yield Finding(
        "platform.no-nvidia-gpu", Severity.INFO if working else Severity.WARNING,
        f"the paste names {vendor}" + (f" ({models[0]})" if models else "") +
        " and no NVIDIA GPU: CUDA code and CUDA builds of torch cannot use it",
        f"Observed: {vendor} named in the paste ({', '.join(named[:3])}); no NVIDIA GPU, driver or "
        "nvidia-smi output anywhere in it.\nRequired: an NVIDIA GPU and its driver for CUDA.",
        fix, links, ("extra", "amd_gpu", "intel_gpu", "ascend_npu"), inferred=True,
        cause="torch.cuda-build-on-amd" if amd else "",  # one cause with that finding where a message shows it
    )


CHECKS = [wsl, container, macos, no_nvidia_gpu]
