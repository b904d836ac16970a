"""Error messages found in a pasted report that no other check explains: each names its cause and fix."""

from __future__ import annotations

from typing import Callable, Dict, Iterator, Optional, Tuple

from gpudoctor.checks.driver import judges_mismatch, judges_smi_error
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks.support.driver_missing import NO_DRIVER_TEXT
from gpudoctor.checks.support.paste_causes import CAUSES, ON_AMD, REINSTALL, SHARED_CAUSE
from gpudoctor.checks.support.paste_notes import extras, inferred_why, quoted
from gpudoctor.checks.support.paste_layers import kernel_layer, torch_serves_every_gpu
from gpudoctor.checks.support.vendors import amd_gpu
from gpudoctor.checks.torch_builds import non_rocm_on_amd
from gpudoctor.facts import Facts, NvmlError, Source
from gpudoctor.facts.containers import container_runs
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip


def _driver_judges(facts: Facts) -> bool:
    """The driver check judges torch's CUDA against the driver; where torch works, the message is another library's."""
    return bool(facts.torch.cuda and (facts.driver.version or facts.driver.cuda_version)
                and facts.torch.is_available is not True)


def _driver_elsewhere(facts: Facts) -> bool:
    """The paste shows a working driver (nvidia-smi's version) and a program finding none, outside a container whose
    start the container check judges: the program runs where that driver does not reach."""
    return bool(facts.driver.version) and not facts.driver.nvml_error and not container_runs(facts)


def _gpu_cc_known(facts: Facts) -> bool:
    return any(g.compute_capability for g in facts.gpus) and facts.torch.arch_flags is not None


# Messages a dedicated check judges from the facts: this check stays quiet when those facts are present.
COVERED: Dict[str, Callable[[Facts], bool]] = {
    # the driver check judges torch's own words for it, except on a Mac, and where the paste shows a driver the
    # program did not reach; other words for it (a paraphrase, TensorFlow's) are this check's to say
    "no-driver": lambda f: (f.platform.system != "Darwin" and not _driver_elsewhere(f) and not f.driver.version
                            and not f.driver.nvml_error and NO_DRIVER_TEXT in (f.torch.init_error or "").lower()),
    # the driver check judges nvidia-smi's own errors where it can tell the driver's state; else this one says them
    "smi-no-driver": judges_smi_error,
    "error-802": lambda f: f.platform.system != "Darwin",  # a Mac in the paste is a client, not the GPU host
    "error-999": lambda f: f.platform.system in (None, "Linux") and not f.platform.wsl,  # driver.uvm judges it there
    "nvml-mismatch": judges_mismatch,  # the driver check, where its words for the mismatch are the ones pasted
    "torch-not-installed": lambda f: True,
    "no-kernel-image": lambda f: _gpu_cc_known(f) and not torch_serves_every_gpu(f),
    "sm-incompatible": _gpu_cc_known,
    "driver-too-old": _driver_judges,
    "driver-insufficient": _driver_judges,
    "error-803": lambda f: f.driver.nvml_failure is NvmlError.VERSION_MISMATCH,
    # the Windows check judges a WinError that names the DLL; one cut before the name is this check's to say
    "windows-dll": lambda f: (f.platform.system == "Windows" and "WinError" in (f.torch.import_error or "")
                              and ".dll" in (f.torch.import_error or "").lower()),
    # the torchvision check judges the pair where both versions are known; code that calls torch.ops.torchvision.*
    # without importing torchvision gets "No such operator" from a torchvision that may be fine
    "torchvision-nms": lambda f: bool(f.torchvision.version and f.torch.version)
    or "torchvision-ops-not-imported" in extras(f, "paste.signature"),
    "torchvision-cuda-mismatch": lambda f: bool(f.torchvision.version and f.torch.version),
    "not-compiled-with-cuda": lambda f: bool(f.gpus and f.torch.version and f.torch.cuda_compiled is False)
    or bool(amd_gpu(f)),  # torch.cpu-build-on-amd judges it, with the ROCm build as the fix
    "bitsandbytes-without-gpu": lambda f: f.platform.system == "Darwin",  # paste.bitsandbytes-platform names it
    "gpu-fell-off-the-bus": lambda f: any(k == "paste.xid" for k, _ in f.extra),  # paste.xid says it
    "cuda-unavailable": lambda f: _explained(f),
    "gpu-unused-unexplained": lambda f: _explained(f),
}


# Messages that only say CUDA is missing: on a Mac that is the platform, not a broken install.
# on an Apple-silicon Mac, these say only that there is no CUDA there; Intel Macs of macOS 10.13 and before could
# have an NVIDIA GPU and NVIDIA's CUDA driver for macOS, which can be too old
_NO_NVIDIA_ON_MAC = frozenset({"driver-insufficient", "no-device", "driver-too-old", "cuda-lib-missing"})


def _older_than_any_build(facts: Facts) -> bool:
    """A GPU of compute capability below 3.0 (Fermi and older), which no torch release of CUDA 9 or later builds for."""
    return any(g.compute_capability is not None and g.compute_capability < (3, 0) for g in facts.gpus)


def _apple_silicon(facts: Facts) -> bool:
    """A Mac without NVIDIA's CUDA driver: Apple silicon, or one whose GPU the paste names as Intel's."""
    return (facts.platform.machine == "arm64" or bool(extras(facts, "paste.mac.chip"))
            or bool(extras(facts, "paste.intel_gpu")))
_CUDA_ONLY = frozenset({"library-cpu-build", "not-compiled-with-cuda", "xformers-mismatch", "cuda-unavailable", "no-driver",
                        "bitsandbytes-without-gpu", "conda-no-cudatoolkit", "extension-build-without-cuda",
                        "gpu-unused-unexplained", "nccl-not-built"})


_UNAVAILABLE_SAID = ("cuda-unavailable", "gpu-unused-unexplained")  # messages that say CUDA is unavailable, not why


def _other_messages(facts: Facts) -> bool:
    """The paste holds a message besides those that only say CUDA is unavailable."""
    return any(k == "paste.signature" and v not in _UNAVAILABLE_SAID for k, v in facts.extra)


def _mac_symptom(facts: Facts, code: str) -> bool:
    """CUDA said to be unavailable on a Mac, with no other message: the Mac is the answer, even where torch there is
    known to be a build without CUDA (which otherwise explains the symptom)."""
    return (facts.platform.system == "Darwin" and code in _UNAVAILABLE_SAID and not _other_messages(facts)
            and Source.parse(facts.meta.source) is Source.PASTE)  # collect_env on a Mac says False as a matter of course


def _explained(facts: Facts) -> bool:
    """Another message or fact in the paste already says why CUDA is unavailable."""
    return (_other_messages(facts) or facts.torch.cuda_compiled is False
            or bool(facts.torch.init_error or facts.torch.import_error))


def _float16_on_the_cpu(facts: Facts) -> Optional[Finding]:
    """float16 refused beside a GPU that has fast float16 (7.0 and later): the device that refused it is the CPU."""
    for gpu in facts.gpus:
        cc = gpu.compute_capability
        if cc is None or cc < (7, 0):
            continue
        return Finding(
            code="paste.cuda-unavailable",
            severity=Severity.WARNING,
            summary=f"the program runs on the CPU: {gpu.name} has fast float16, so the device that refused float16 is "
                    "the CPU (CUDA unavailable to the program)",
            detail=(quoted(facts, "float16-not-efficient") or "") + f"\nObserved: {gpu.name}, compute capability "
                   f"{cc[0]}.{cc[1]} (float16 is fast from 7.0). Required: the program's CUDA backend (CTranslate2 "
                   "with CUDA for faster-whisper, or a CUDA build of torch) finding the GPU.",
            fix=Fix("Check that the program's backend sees the GPU; for faster-whisper and CTranslate2 on Windows, "
                    "install the cuBLAS and cuDNN versions its release needs; for torch, a CUDA build.",
                    ('python -c "import ctranslate2; print(ctranslate2.get_cuda_device_count())"',
                     'python -c "import torch; print(torch.__version__, torch.cuda.is_available())"')),
            evidence=("extra", "gpus"),
            cause=SHARED_CAUSE["cuda-unavailable"],
        )
    return None


@check("paste.errors", "Error messages in the pasted report")
def errors(facts: Facts) -> Iterator[Finding]:
    found = extras(facts, "paste.signature")
    without_rocm = non_rocm_on_amd(facts)  # a torch without ROCm on an AMD GPU: the ROCm build is the fix
    if not found and not _cpu_only(facts) and without_rocm is None and not extras(facts, "paste.ldd.not_found"):
        raise skip("no known error message in the input")
    if without_rocm is not None:
        yield without_rocm
    yield from _cpu_build(facts, found)
    missing = extras(facts, "paste.ldd.not_found")
    driver_libs = [name for name in missing if name.startswith("libcuda.so")]
    if driver_libs and "libcuda-missing" not in found:
        libcuda = CAUSES["libcuda-missing"]
        yield Finding(
            code="paste.libcuda-missing",
            severity=libcuda.severity,
            summary=f"ldd finds no {driver_libs[0]}: " + libcuda.summary,
            detail="\n".join(f"{name} => not found" for name in driver_libs) + "\nRequired: the driver's libcuda on the "
                   "loader's path of the process (a container started with the GPUs, WSL's /usr/lib/wsl/lib, or the "
                   "host's library folder for a Nix or other sandboxed environment).",
            fix=Fix(libcuda.fix, libcuda.commands),
            links=libcuda.links,
            evidence=("extra",),
        )
    missing = tuple(name for name in missing if name not in driver_libs)
    if missing and not found:
        yield Finding(
            code="paste.cuda-lib-missing",
            severity=Severity.ERROR,
            summary=f"ldd finds no {', '.join(missing[:4])}: a CUDA library torch links against is missing",
            detail="\n".join(f"{name} => not found" for name in missing),
            fix=Fix("Reinstall torch so that its nvidia-* wheels come with it, or add the folder that holds the "
                    "library to the loader path.", ("pip list | grep -i nvidia", *REINSTALL)),
            evidence=("extra",),
        )
    mac_said = False
    amd = bool(amd_gpu(facts))
    for code in found:
        cause = (ON_AMD.get(code) if amd else None) or CAUSES.get(code)
        covered = COVERED.get(code)
        if cause is None or (covered is not None and covered(facts) and not _mac_symptom(facts, code)):
            continue
        refused = _float16_on_the_cpu(facts) if code == "float16-not-efficient" else None
        if refused is not None:
            yield refused
            continue
        if code == "no-driver" and _driver_elsewhere(facts):
            yield Finding(
                code="paste.no-driver",
                severity=Severity.ERROR,
                summary=f"the program finds no NVIDIA driver, though the paste shows driver {facts.driver.version}: it "
                        "runs where that driver does not reach",
                detail=(quoted(facts, code) or "") + "\nRequired: the program running where nvidia-smi works: a "
                       "container started with the GPUs, the same machine and user, or (under a compatibility layer "
                       "such as FreeBSD's Linux emulation, or a virtual machine) the driver's libraries provided there.",
                fix=Fix("Run nvidia-smi and the program in the same place (same container, machine and user) and "
                        "compare; where nvidia-smi works and torch does not, torch cannot reach libcuda there.",
                        ("nvidia-smi", 'python -c "import torch; print(torch.__version__, torch.cuda.is_available())"')),
                evidence=("extra", "driver.version"),
                cause="driver.not-loaded",
            )
            continue
        if code == "no-kernel-image" and _older_than_any_build(facts):
            code, cause = "gpu-too-old", CAUSES["gpu-too-old"]  # Fermi and older: no torch build has kernels for it
        elif code == "no-kernel-image" and torch_serves_every_gpu(facts):
            yield kernel_layer(facts, quoted(facts, code))
            continue
        if facts.platform.system == "Darwin" and (code in _CUDA_ONLY or code in _NO_NVIDIA_ON_MAC and _apple_silicon(facts)
                                                  and not (facts.gpus or extras(facts, "paste.nvidia_named"))):
            if mac_said:
                continue
            mac_said = True
            yield Finding(
                code="paste.macos-no-cuda",
                severity=Severity.WARNING,
                summary="the code asks for CUDA on a Mac, which has no CUDA"
                        + (" (Torch not compiled with CUDA enabled)" if code == "not-compiled-with-cuda" else ""),
                detail=quoted(facts, code) or "",
                fix=Fix("Use the Mac's GPU through MPS (torch.device(\"mps\")) or the CPU where the code says "
                        "\"cuda\"; most projects have a --device option.",
                        ('python -c "import torch; print(torch.backends.mps.is_available())"',)),
                links=("https://pytorch.org/docs/stable/notes/mps.html",),
                evidence=("extra", "platform.system"),
            )
            continue
        yield Finding(
            code=f"paste.{code}",
            severity=cause.severity,
            summary=cause.summary,
            detail=quoted(facts, code) or "",
            fix=Fix(cause.fix, cause.commands) if cause.commands or cause.fix else None,
            links=cause.links,
            evidence=("extra",),
            cause=SHARED_CAUSE.get(code, ""),
        )


def _cpu_only(facts: Facts) -> bool:
    """A pasted CPU-only torch that no other check judges (no GPU in the paste, not macOS, not ROCm)."""
    t = facts.torch
    tag = (t.version or "").partition("+")[2].lower()
    if tag and tag != "cpu" and not tag.startswith("cpu."):  # +xpu, +rocm: another accelerator's build
        return False
    if (facts.meta.source == Source.COLLECT_ENV.value and tag != "cpu" and not _conda_cpu(facts)
            and facts.platform.system not in ("Linux", "Windows")):
        return False  # collect_env says "CUDA used to build: None" for XPU and MPS builds too (MPS: macOS)
    return (t.cuda_compiled is False and not t.hip and not facts.gpus and facts.platform.system != "Darwin"
            and not amd_gpu(facts) and Source.parse(facts.meta.source) in (Source.PASTE, Source.COLLECT_ENV))


def _conda_cpu(facts: Facts) -> bool:
    """collect_env's "[conda] pytorch 1.4.0 py3.7_cpu_0" names the CPU build as plainly as "+cpu" does."""
    return any(k == "conda.pytorch.cuda" and v == "cpu" for k, v in facts.extra)


def _cpu_build(facts: Facts, found: Tuple[str, ...]) -> Iterator[Finding]:
    if not _cpu_only(facts) or "not-compiled-with-cuda" in found:
        return
    inferred = inferred_why(facts, "torch.cuda_compiled")
    source = ("xformers' warning" if "xformers-mismatch" in found else
              f"the paste ({inferred})" if inferred else "the paste")
    label = f"torch {facts.torch.version}" if facts.torch.version else "torch"
    yield Finding(
        code="paste.cpu-build",
        severity=Severity.WARNING,
        summary=f"{label} is a CPU-only build: it cannot use any GPU",
        detail=f"Read from {source}. The paste shows no GPU, so whether this machine has one is not known; if it "
               "has an NVIDIA GPU, this build is why torch does not use it.",
        fix=Fix("Install a CUDA build of torch from the PyTorch index (with conda, pin a CUDA build, not "
                "'cpuonly').", ("pip uninstall -y torch", *REINSTALL)),
        evidence=("torch.cuda_compiled", "torch.version"),
        inferred=facts.is_inferred("torch.cuda_compiled"),
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


_WHICH = "import sys, torch; print(sys.executable, torch.__version__, torch.cuda.is_available())"


@check("paste.environments", "One environment in the pasted report")
def environments(facts: Facts) -> Iterator[Finding]:
    conflicts = extras(facts, "paste.conflict")
    flips = extras(facts, "paste.cuda_flips")
    if not conflicts and not extras(facts, "paste.framework_cpu") and not flips:
        raise skip("the input holds one environment and no framework setting that forces the CPU")
    interpreters = list(dict.fromkeys(extras(facts, "paste.python_command")))
    if flips and len(interpreters) > 1:
        yield Finding(
            code="paste.two-environments",
            severity=Severity.WARNING,
            summary=f"torch sees the GPU under one Python and not under another ({', '.join(interpreters[:3])}): they "
                    "are two environments, each with its own torch",
            detail=f"Observed: torch.cuda.is_available() {flips[0]}; the commands run {', '.join(interpreters[:3])}. "
                   "Required: the CUDA build of torch in the environment that runs the program.",
            fix=Fix("See which Python and which torch each command runs; use the one that sees the GPU, or install the "
                    "CUDA build of torch into the other with its own pip (python -m pip).",
                    tuple(c for c in (_cmd.command(facts, [i, "-c", _WHICH]) for i in interpreters[:2]) if c)),
            evidence=("extra",),
            cause=SHARED_CAUSE["two-environments"],
        )
    elif flips and not extras(facts, "paste.slurm_job") and facts.torch.cuda_compiled is not False:
        # in a batch job the job check names what differs; a CPU build answering False is paste.cpu-build's
        yield Finding(
            code="paste.gpu-hidden-in-one-run",
            severity=Severity.WARNING,
            summary="torch sees the GPU in one run and not in another: the install and the driver work; what differs "
                    "between the runs hides the GPU",
            detail=f"Observed: torch.cuda.is_available() {flips[0]}. Required: the same answer in every run. Usual "
                   "causes: the script, one of its imports or a launcher sets CUDA_VISIBLE_DEVICES (to an empty or "
                   "missing index) before torch starts CUDA; a job scheduler gives the second run no GPU; or the "
                   "second run uses another Python environment.",
            fix=Fix("Print what each run sees, at the point where it asks for the GPU, and compare.",
                    ('python -c "import os, sys, torch; print(sys.executable, os.environ.get(\'CUDA_VISIBLE_DEVICES\'), '
                     'torch.cuda.is_available())"',)),
            evidence=("extra",),
        )
    key = [c for c in conflicts if c.split(":", 1)[0] in _KEY_CONFLICTS]
    judged_cpu = "+cpu" in (facts.torch.version or "")  # then the install checks judge it already
    cpu = None if judged_cpu else next((c for c in key if c.startswith("torch.version:") and "+cpu" in c), None)
    if cpu is not None:
        other = next(part.strip() for part in cpu.split(":", 1)[1].split(" vs ") if "+cpu" in part)
        yield Finding(
            code="paste.cpu-build",
            severity=Severity.WARNING,
            summary=f"one of the pasted environments has a CPU-only torch: {other}",
            detail=cpu,
            fix=Fix("Install a CUDA build of torch in that environment from the PyTorch index.",
                    ("pip uninstall -y torch", *REINSTALL)),
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
            cause=SHARED_CAUSE["two-environments"],
        )
    for setting in extras(facts, "paste.framework_cpu"):
        yield Finding(
            code="paste.framework-forces-cpu",
            severity=Severity.INFO,
            summary=f"a framework setting forces the CPU: {setting}",
            detail="The CUDA environment is not what keeps the GPU idle: the framework was told to use the CPU.",
            fix=Fix("Tell the framework to use the GPU: for accelerate set use_cpu to false (run `accelerate config` "
                    "again); for Lightning pass Trainer(accelerator=\"gpu\", devices=1) or the script's own GPU "
                    "option; a transformers pipeline: pipeline(..., device=0); elsewhere pass the device explicitly.", ("accelerate config",) if "accelerate" in setting
                    else ()),
            evidence=("extra",),
        )


CHECKS = [errors, xid, environments]
