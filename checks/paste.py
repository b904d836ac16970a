"""Error messages found in a pasted report that no other check explains: each names its cause and fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, Optional, Tuple

from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

CUDA_INDEX = "https://download.pytorch.org/whl/cu128"
_REINSTALL = (f"pip install --force-reinstall torch torchvision --index-url {CUDA_INDEX}",)
_ASK = "python -m torch.utils.collect_env"


@dataclass(frozen=True)
class Cause:
    """What a recognised message means, how bad it is, and what to do."""

    severity: Severity
    summary: str
    fix: str
    commands: Tuple[str, ...] = ()
    links: Tuple[str, ...] = ()


E, W, NOTE = Severity.ERROR, Severity.WARNING, Severity.INFO
CAUSES: Dict[str, Cause] = {
    "no-kernel-image": Cause(E, "the torch build has no kernels for this GPU's architecture (no kernel image)",
                             "Install a torch build whose arch list includes the GPU (Blackwell sm_120 needs a "
                             "CUDA 12.8+ build of torch 2.7 or newer; Kepler/Maxwell need an older torch).",
                             ('python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list(), '
                              'torch.cuda.get_device_capability())"', *_REINSTALL)),
    "sm-incompatible": Cause(E, "the GPU's architecture is not in the torch build's list of supported architectures",
                             "Install a torch build that supports the GPU (Blackwell sm_120 needs a CUDA 12.8+ build "
                             "of torch 2.7 or newer).", _REINSTALL),
    "driver-insufficient": Cause(E, "the NVIDIA driver is older than the CUDA runtime torch was built with",
                                 "Update the NVIDIA driver, or install a torch built for an older CUDA that the "
                                 "driver supports (nvidia-smi's 'CUDA Version' is the newest it supports).",
                                 ("nvidia-smi", "pip install torch --index-url https://download.pytorch.org/whl/cu118")),
    "driver-too-old": Cause(E, "the NVIDIA driver is too old for this torch build's CUDA",
                            "Update the NVIDIA driver, or install a torch built for an older CUDA.",
                            ("nvidia-smi", "pip install torch --index-url https://download.pytorch.org/whl/cu118")),
    "not-compiled-with-cuda": Cause(E, "torch is a CPU-only build (Torch not compiled with CUDA enabled)",
                                    "Replace it with a CUDA build from the PyTorch index (on macOS there is no CUDA: "
                                    "use the 'mps' device instead).", ("pip uninstall -y torch", *_REINSTALL)),
    "no-device": Cause(E, "CUDA sees no GPU in this process",
                       "Check that CUDA_VISIBLE_DEVICES is unset or names a real GPU, and that nvidia-smi lists the GPU "
                       "(inside a container: start it with --gpus all).", ("nvidia-smi -L", "echo $CUDA_VISIBLE_DEVICES")),
    "error-803": Cause(E, "CUDA error 803: the driver's user-space libraries and its kernel module do not match",
                       "Reboot after a driver update; in a container, remove the CUDA compat libraries from the "
                       "library path so the host driver's libcuda is used.", ("cat /proc/driver/nvidia/version", "nvidia-smi")),
    "error-804": Cause(E, "CUDA error 804: forward-compatibility libraries are used on a GPU that does not support them",
                       "Do not put /usr/local/cuda/compat on the library path on GeForce/RTX cards (data-centre GPUs "
                       "only); use an image whose CUDA the host driver supports, or update the host driver.",
                       ("echo $LD_LIBRARY_PATH", "nvidia-smi"),
                       ("https://docs.nvidia.com/deploy/cuda-compatibility/",)),
    "nvml-unknown-error": Cause(E, "Failed to initialize NVML: Unknown Error: the container lost its GPU devices",
                                "systemd reloaded the container's device cgroup rules; restart the container, and for "
                                "good set the cgroup driver to cgroupfs in /etc/docker/daemon.json or pass the "
                                "/dev/nvidia* devices explicitly.",
                                ("docker restart CONTAINER",),
                                ("https://github.com/NVIDIA/nvidia-container-toolkit/issues/48",)),
    "docker-no-gpu-driver": Cause(E, "Docker has no GPU runtime (could not select device driver with capabilities [[gpu]])",
                                  "Install the NVIDIA Container Toolkit and register it with Docker, then restart Docker.",
                                  ("sudo apt-get install -y nvidia-container-toolkit",
                                   "sudo nvidia-ctk runtime configure --runtime=docker",
                                   "sudo systemctl restart docker"),
                                  ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",)),
    "invalid-device-ordinal": Cause(W, "the code asks for a GPU index this process cannot see (invalid device ordinal)",
                                    "Use an index below torch.cuda.device_count(); CUDA_VISIBLE_DEVICES renumbers the "
                                    "visible GPUs from 0.",
                                    ('python -c "import torch; print(torch.cuda.device_count())"', "echo $CUDA_VISIBLE_DEVICES")),
    "torchvision-nms": Cause(E, "torchvision was built for a different torch (operator torchvision::nms does not exist)",
                             "Install the torchvision release that pairs with the installed torch, from the same index.",
                             _REINSTALL),
    "shadowed-cuda-libs": Cause(E, "a CUDA library on LD_LIBRARY_PATH shadows the one in torch's own nvidia-* wheels "
                                   "(undefined symbol)",
                                "Remove the system CUDA folders from LD_LIBRARY_PATH for Python (torch's pip wheels "
                                "bring their own CUDA libraries).", ("echo $LD_LIBRARY_PATH", "unset LD_LIBRARY_PATH"),
                                ("https://github.com/pytorch/pytorch/issues/119989",)),
    "cudnn-missing": Cause(E, "torch cannot load its cuDNN library (libcudnn: cannot open shared object file)",
                           "Reinstall torch so that its nvidia-cudnn wheel is installed and matches; do not mix a "
                           "conda/system cuDNN with pip wheels.", ("pip list | grep -i nvidia", *_REINSTALL)),
    "cuda-lib-missing": Cause(E, "a CUDA library torch needs cannot be found (cannot open shared object file)",
                              "Reinstall torch with its nvidia-* wheels, or add the folder holding the library to "
                              "the loader path.", ("pip list | grep -i nvidia", *_REINSTALL)),
    "libcuda-missing": Cause(E, "the driver library libcuda.so is not on the loader's path",
                             "On WSL2 the driver comes from Windows and lives in /usr/lib/wsl/lib (do not install a "
                             "Linux driver inside WSL); in a container start it with --gpus all; otherwise install "
                             "the NVIDIA driver.", ("ls /usr/lib/wsl/lib", "ldconfig -p | grep libcuda")),
    "windows-dll": Cause(E, "a DLL that torch loads failed to load on Windows",
                         "Install the latest Microsoft Visual C++ Redistributable (x64), then reinstall torch in a "
                         "python.org or conda Python (not the Microsoft Store one).",
                         ("winget install Microsoft.VCRedist.2015+.x64", *_REINSTALL)),
    "device-busy": Cause(W, "the GPU is busy or unavailable (exclusive compute mode, or held by another process)",
                         "Set the compute mode to Default or stop the process holding the GPU.",
                         ("nvidia-smi -q -d COMPUTE", "sudo nvidia-smi -c DEFAULT")),
    "gpu-fell-off-the-bus": Cause(E, "the GPU stopped responding to the driver (fell off the bus / failed to initialise)",
                                  "A hardware-level fault: check power connectors and the PSU, temperatures and the "
                                  "PCIe seating, update the system BIOS and the driver; undo PCIe or clock tweaks.",
                                  ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE", "sudo dmesg | grep -i nvrm"),
                                  ("https://docs.nvidia.com/deploy/xid-errors/",)),
    "flash-attn-needs-ampere": Cause(E, "flash-attn refuses this GPU: its kernels need Ampere (sm_80) or newer "
                                        "(the torch install itself is fine)",
                                     "Turn flash attention off for this GPU (transformers: attn_implementation=\"sdpa\"; "
                                     "vLLM picks another backend on pre-Ampere GPUs, or set VLLM_ATTENTION_BACKEND=XFORMERS), "
                                     "or run on an Ampere or newer GPU.",
                                     ('python -c "import torch; print(torch.cuda.get_device_capability())"',),
                                     ("https://github.com/Dao-AILab/flash-attention#installation-and-features",)),
    "flash-attn-abi": Cause(E, "flash-attn was built against a different torch than the installed one (undefined symbol)",
                            "Reinstall flash-attn for this exact torch (a wheel matching torch, CUDA and the C++ ABI, "
                            "or a build from source).",
                            ("pip uninstall -y flash-attn", "pip install flash-attn --no-build-isolation")),
    "xformers-mismatch": Cause(W, "xformers was built for a different torch/CUDA than the installed one; its "
                                  "GPU kernels are disabled",
                               "Install the xformers release built for the installed torch from the same index, or "
                               "uninstall xformers (torch's own attention is used then).",
                               ("pip uninstall -y xformers", "pip install xformers --index-url "
                                "https://download.pytorch.org/whl/cu121")),
    "out-of-memory": Cause(NOTE, "the CUDA environment works: the GPU ran out of memory",
                           "Not an installation problem: reduce the batch size, sequence length or model size, use "
                           "mixed precision, or free memory held by other processes (nvidia-smi lists them).",
                           ("nvidia-smi",)),
    "device-side-assert": Cause(NOTE, "the CUDA environment works: a kernel assertion failed in the code",
                                "Not an installation problem: run with CUDA_LAUNCH_BLOCKING=1 to find the failing "
                                "operation (usually an index or label out of range).", ("CUDA_LAUNCH_BLOCKING=1 python train.py",)),
    "tensors-on-different-devices": Cause(NOTE, "the CUDA environment works: the code mixes CPU and GPU tensors",
                                          "Not an installation problem: move the model and every input to the same "
                                          "device.", ()),
}


def _gpu_cc_known(facts: Facts) -> bool:
    return any(g.compute_capability for g in facts.gpus) and facts.torch.arch_flags is not None


# Messages a dedicated check judges from the facts: this check stays quiet when those facts are present.
COVERED: Dict[str, Callable[[Facts], bool]] = {
    "no-driver": lambda f: True,
    "smi-no-driver": lambda f: True,
    "error-802": lambda f: True,
    "error-999": lambda f: True,
    "nvml-mismatch": lambda f: True,
    "torch-not-installed": lambda f: True,
    "no-kernel-image": _gpu_cc_known,
    "sm-incompatible": _gpu_cc_known,
    "driver-too-old": lambda f: bool(f.torch.cuda and (f.driver.version or f.driver.cuda_version)),
    "driver-insufficient": lambda f: bool(f.torch.cuda and (f.driver.version or f.driver.cuda_version)),
    "error-803": lambda f: f.driver.nvml_error == "version_mismatch",
    "windows-dll": lambda f: f.platform.system == "Windows" and "WinError" in (f.torch.import_error or ""),
    "torchvision-nms": lambda f: bool(f.torchvision.version and f.torch.version),
    "not-compiled-with-cuda": lambda f: bool(f.gpus and f.torch.version and f.torch.cuda_compiled is False),
    "gpu-fell-off-the-bus": lambda f: any(k == "paste.xid" for k, _ in f.extra),  # paste.xid says it
}


def extras(facts: Facts, key: str) -> Tuple[str, ...]:
    return tuple(dict.fromkeys(value for name, value in facts.extra if name == key))


def quoted(facts: Facts, code: str) -> Optional[str]:
    """The pasted line a signature was read from: 'line N: text'."""
    value = next((v for k, v in facts.extra if k == f"paste.line.signature.{code}"), None)
    if value is None:
        return None
    number, _, text = value.partition(": ")
    return f"line {number}: {text}"


@check("paste.errors", "Error messages in the pasted report")
def errors(facts: Facts) -> Iterator[Finding]:
    found = extras(facts, "paste.signature")
    if not found and not _cpu_only(facts):
        raise skip("no known error message in the input")
    yield from _cpu_build(facts, found)
    for code in found:
        cause = CAUSES.get(code)
        covered = COVERED.get(code)
        if cause is None or (covered is not None and covered(facts)):
            continue
        if code == "not-compiled-with-cuda" and facts.platform.system == "Darwin":
            continue  # platform.macos says it
        yield Finding(
            code=f"paste.{code}",
            severity=cause.severity,
            summary=cause.summary,
            detail=quoted(facts, code) or "",
            fix=Fix(cause.fix, cause.commands) if cause.commands or cause.fix else None,
            links=cause.links,
            evidence=("extra",),
        )


def _cpu_only(facts: Facts) -> bool:
    """A pasted CPU-only torch that no other check judges (no GPU in the paste, not macOS, not ROCm)."""
    t = facts.torch
    return (t.cuda_compiled is False and not t.hip and not facts.gpus and facts.platform.system != "Darwin"
            and facts.meta.source == "paste")


def _cpu_build(facts: Facts, found: Tuple[str, ...]) -> Iterator[Finding]:
    if not _cpu_only(facts) or "not-compiled-with-cuda" in found:
        return
    source = "xformers' warning" if "xformers-mismatch" in found else "the paste"
    label = f"torch {facts.torch.version}" if facts.torch.version else "torch"
    yield Finding(
        code="paste.cpu-build",
        severity=Severity.WARNING,
        summary=f"{label} is a CPU-only build: it cannot use any GPU",
        detail=f"Read from {source}. The paste shows no GPU, so whether this machine has one is not known; if it "
               "has an NVIDIA GPU, this build is why torch does not use it.",
        fix=Fix("Install a CUDA build of torch from the PyTorch index (with conda, pin a CUDA build, not "
                "'cpuonly').", ("pip uninstall -y torch", *_REINSTALL)),
        evidence=("torch.cuda_compiled", "torch.version"),
    )


_XID_FATAL = {48: "double-bit ECC error", 63: "row remapping pending", 64: "row remapping failed",
              74: "NVLink error", 79: "the GPU has fallen off the bus", 92: "high single-bit ECC rate",
              94: "contained ECC error", 95: "uncontained ECC error", 119: "GSP firmware timeout",
              120: "GSP firmware error"}


@check("paste.xid", "NVIDIA Xid errors in pasted kernel logs")
def xid(facts: Facts) -> Iterator[Finding]:
    found = extras(facts, "paste.xid")
    if not found:
        raise skip("no Xid lines in the input")
    codes = sorted({int(item.split(":", 1)[0]) for item in found if item.split(":", 1)[0].isdigit()})
    fatal = [c for c in codes if c in _XID_FATAL]
    listing = ", ".join(f"Xid {c}" + (f" ({_XID_FATAL[c]})" if c in _XID_FATAL else "") for c in codes)
    yield Finding(
        code="paste.xid",
        severity=Severity.ERROR if fatal else Severity.WARNING,
        summary=(f"the kernel log reports a GPU hardware or driver fault: {listing}" if fatal
                 else f"the kernel log reports Xid errors raised by applications: {listing}"),
        detail="\n".join(found[:5]),
        fix=Fix("Xid 79/48/94/95/119/120 point at the GPU, its power or its firmware: reset or reseat the GPU, "
                "update the driver, and if it recurs have the hardware checked. Other Xids are usually "
                "application faults (bad memory access).", ("nvidia-smi -q -d ECC,PAGE_RETIREMENT", "sudo dmesg | grep -i xid")),
        links=("https://docs.nvidia.com/deploy/xid-errors/",),
        evidence=("extra",),
    )


_KEY_CONFLICTS = ("torch.version", "torch.cuda", "torch.cuda_compiled", "driver.version", "packages.torch",
                  "packages.pytorch")


@check("paste.environments", "One environment in the pasted report")
def environments(facts: Facts) -> Iterator[Finding]:
    conflicts = extras(facts, "paste.conflict")
    if not conflicts and not extras(facts, "paste.framework_cpu"):
        raise skip("the input holds one environment and no framework setting that forces the CPU")
    key = [c for c in conflicts if c.split(":", 1)[0] in _KEY_CONFLICTS]
    cpu = next((c for c in key if c.startswith("torch.version:") and "+cpu" in c), None)
    if cpu is not None:
        other = next(part.strip() for part in cpu.split(":", 1)[1].split(" vs ") if "+cpu" in part)
        yield Finding(
            code="paste.cpu-build",
            severity=Severity.WARNING,
            summary=f"one of the pasted environments has a CPU-only torch: {other}",
            detail=cpu,
            fix=Fix("Install a CUDA build of torch in that environment from the PyTorch index.",
                    ("pip uninstall -y torch", *_REINSTALL)),
            evidence=("extra",),
        )
    if key:
        yield Finding(
            code="paste.two-environments",
            severity=Severity.WARNING,
            summary=f"the paste describes two environments that disagree ({key[0]}); the checks judged the first",
            detail="\n".join(conflicts),
            fix=Fix("Diagnose each environment on its own (host and container, or the working and the broken "
                    "one): run `gpudoctor facts` in each and compare.", ("gpudoctor facts -o facts.json",)),
            evidence=("extra",),
        )
    for setting in extras(facts, "paste.framework_cpu"):
        yield Finding(
            code="paste.framework-forces-cpu",
            severity=Severity.INFO,
            summary=f"a framework setting forces the CPU: {setting}",
            detail="The CUDA environment is not what keeps the GPU idle: the framework was told to use the CPU.",
            fix=Fix("Set use_cpu to false (run `accelerate config` again) or pass the device explicitly.",
                    ("accelerate config",)),
            evidence=("extra",),
        )


CHECKS = [errors, xid, environments]
