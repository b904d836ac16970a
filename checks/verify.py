"""Judges what ``gpudoctor verify`` proved: the workers ran, kernels run, and the GPU computes what the CPU computes.

Its CHECKS list holds every verify.* check, those of verify_learning and verify_speed included.
"""

from __future__ import annotations

from typing import Iterator, List, Optional

from gpudoctor import plausible
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks.support.verify_common import (
    ARCH_ERRORS,
    CHECK_GPU,
    DRIVER_ERRORS,
    DRIVER_FIX,
    HOLDERS,
    KERNEL_FIX,
    XID,
    XID_FIX,
    gpu_name,
    kernel_fix,
    verify_facts,
)
from gpudoctor.checks.verify_learning import CHECKS as LEARNING_CHECKS
from gpudoctor.checks.verify_speed import CHECKS as SPEED_CHECKS
from gpudoctor.facts import Facts, NvmlError
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip
from gpudoctor.shell import Shell
from gpudoctor.facts.verify import DeviceResult, FailureKind, ParityResult, VerifyFacts

# What each failure looks like, for every kind but DATA (its own finding); tests keep the table complete.
_OBSERVED = {
    FailureKind.CRASHED: "it was killed by a signal",
    FailureKind.TIMEOUT: "it stopped answering",
    FailureKind.GARBAGE: "its output was not gpudoctor's protocol",
    FailureKind.EXITED: "it exited early",
    FailureKind.IMPORT: "torch did not import",
    FailureKind.START: "it could not be started",
    FailureKind.INTERNAL: "it stopped on an internal error",
    FailureKind.DEVICE: "it stopped early",
}
_UNKNOWN_OBSERVED = "it stopped early"  # a kind from another version
_CODES = {
    FailureKind.CRASHED: "verify.worker-crashed",
    FailureKind.TIMEOUT: "verify.worker-timeout",
    FailureKind.GARBAGE: "verify.worker-garbage",
    FailureKind.IMPORT: "verify.torch-import",
}  # any other kind: verify.worker-failed

_WORKER_FIXES = {
    FailureKind.CRASHED: Fix(
        "A crash inside torch usually comes from a driver/library mismatch or a GPU fault: look for Xid errors "
        "and run gpudoctor check.",
        (XID, "gpudoctor check"),
    ),
    FailureKind.TIMEOUT: Fix(
        "See whether the GPU answers and what else runs on it; a GPU that hangs at initialisation often needs "
        "its nvidia_uvm module reloaded or a reboot.",
        ("nvidia-smi", HOLDERS),
    ),
    FailureKind.IMPORT: Fix(
        "Check that torch imports in that interpreter, or point --python at the right one.", ("gpudoctor check",)
    ),
}


def _data_fix(facts: Facts, v: VerifyFacts) -> Fix:
    if v.dataset == "folder":
        return Fix("Put readable images (JPEG, PNG...) into two or more class folders, PATH/<class>/<image>.")
    folder = {"mnist": "MNIST", "cifar10": "cifar-10-batches-py"}.get(v.dataset or "", "")
    if not v.data_dir or not folder or not plausible.path(v.data_dir):
        return Fix("Move the damaged files aside and run verify again to fetch them afresh.")
    path = f"{v.data_dir.rstrip('/')}/{folder}"
    move = ["Move-Item", path, path + ".damaged"] if _cmd.shell_of(facts) is Shell.POWERSHELL else \
        ["mv", path, path + ".damaged"]
    return _cmd.fix(
        "Move the damaged copy aside; verify then fetches a fresh one (or give --data-dir a good copy).",
        (_cmd.command(facts, move), _cmd.command(facts, ["gpudoctor", "verify", "--train", v.dataset or "",
                                                         "--data-dir", v.data_dir])),
        "",
    )


@check("verify.worker", "The verify workers ran to their end")
def worker(facts: Facts) -> Iterator[Finding]:
    v = verify_facts(facts)
    for failure in v.failures:
        who = "the CPU baseline" if failure.worker == "cpu" else failure.worker
        kind = FailureKind.parse(failure.kind)
        if kind is FailureKind.DATA:
            yield Finding(
                "verify.data-failed",
                Severity.ERROR,
                f"The {v.dataset} data could not be loaded: {failure.error.replace('failed: ', '', 1)}",
                detail=f"observed: torchvision refused the files in {v.data_dir}; required: a complete, intact copy.",
                fix=_data_fix(facts, v),
                evidence=("verify.failures", "verify.data_dir"),
            )
            continue
        yield Finding(
            _CODES.get(kind, "verify.worker-failed") if kind is not None else "verify.worker-failed",
            Severity.ERROR,
            f"The verify worker for {who} {failure.error}",
            detail=f"observed: {_OBSERVED[kind] if kind is not None else _UNKNOWN_OBSERVED}; required: it runs to its end "
            f"under {v.python}. Results it sent before failing are kept.",
            fix=_WORKER_FIXES.get(kind, CHECK_GPU) if kind is not None else CHECK_GPU,
            evidence=("verify.failures",),
        )


def _not_proven_cause(facts: Facts, v: VerifyFacts) -> str:
    version = v.torch_version or facts.torch.version or "torch"
    if facts.torch.cuda_compiled is False or (v.torch_version and v.cuda_build is None):
        return f"torch {version} is a CPU-only build"
    no_nvml = facts.driver.nvml_failure in (NvmlError.LIBRARY_NOT_FOUND, NvmlError.DRIVER_NOT_LOADED)
    no_driver = no_nvml or "no NVIDIA driver" in (v.cuda_error or "")
    if no_driver and not facts.gpus and not dict(facts.extra).get("nvidia_pci"):
        return "no NVIDIA GPU or driver was found on this machine"
    if no_driver:
        return "no NVIDIA driver is loaded"
    if not facts.gpus and facts.driver.gpu_count == 0:
        return "no NVIDIA GPU is visible"
    return f"torch {version} cannot use CUDA" + (f" ({v.cuda_error})" if v.cuda_error else "")


def _smoke_problem(v: VerifyFacts, dev: DeviceResult, facts: Facts) -> Finding:
    error = dev.smoke_error or "no error text"
    name = gpu_name(dev, dev.device)
    lowered = error.lower()
    where = f" (in its {dev.smoke_step} step)" if dev.smoke_step else ""
    if any(text in lowered for text in DRIVER_ERRORS):
        return Finding(
            "verify.driver-too-old",
            Severity.ERROR,
            f"{name} cannot run torch's kernels: the NVIDIA driver is older than torch's CUDA {v.cuda_build or ''}"
            .rstrip(),
            detail=f"observed: the smoke test failed{where} with {error}; required: a driver that supports CUDA "
            f"{v.cuda_build or 'of this torch build'}, or a torch build for the installed driver.",
            fix=DRIVER_FIX,
            evidence=("verify.devices", "verify.cuda_build", "driver.version"),
        )
    if any(text in lowered for text in ARCH_ERRORS):
        arch = " ".join(facts.torch.arch_flags) if facts.torch.arch_flags else "an arch list that does not cover it"
        return Finding(
            "verify.kernel-image-missing",
            Severity.ERROR,
            f"{name} cannot run torch's kernels: no kernel image is available for this GPU",
            detail=f"observed: torch {v.torch_version} has kernels for {arch}; required: kernels for the GPU's "
            "compute capability."
            + (f" At start-up torch warned: {v.cuda_warnings[0]}" if v.cuda_warnings else "")
            + f" The smoke test then failed{where} with {error}",
            fix=KERNEL_FIX,
            evidence=("verify.devices", "torch.arch_flags"),
        )
    if "out of memory" in lowered:
        return Finding(
            "verify.out-of-memory",
            Severity.ERROR,
            f"{name} ran out of memory in the smoke test, which needs only a CUDA context (a few hundred MiB) and "
            "1 MiB of tensors",
            detail=f"observed: {error}; required: free GPU memory. Other processes hold it.",
            fix=Fix("Find the processes that hold the GPU's memory and stop them.", (HOLDERS,)),
            evidence=("verify.devices",),
        )
    if "busy or unavailable" in lowered:
        return Finding(
            "verify.device-busy",
            Severity.ERROR,
            f"{name} refused a CUDA context: it is busy or unavailable",
            detail=f"observed: {error}; required: compute mode Default, or no other process on an exclusive GPU.",
            fix=Fix(
                "See who holds the GPU; set compute mode Default (needs root).",
                (HOLDERS, "sudo nvidia-smi -c 0"),
            ),
            evidence=("verify.devices",),
        )
    return Finding(
        "verify.smoke-failed",
        Severity.ERROR,
        f"The smoke test failed on {name}{where}: {error}",
        detail="observed: allocating, running a kernel and copying back did not give the CPU's result; "
        "required: it does.",
        fix=XID_FIX,
        evidence=("verify.devices",),
    )


@check("verify.smoke", "Kernels run on the GPU and agree with the CPU")
def smoke(facts: Facts) -> Iterator[Finding]:
    v = verify_facts(facts)
    if v.cuda_available is False:
        cause = _not_proven_cause(facts, v)
        cpu = [r for r in v.runs if r.device == "cpu" and r.samples_per_s]
        ran = ", ".join(f"{r.model} at {r.samples_per_s:,.0f} samples/s" for r in cpu) or "nothing"
        yield Finding(
            "verify.not-proven",
            Severity.ERROR,
            f"GPU acceleration could not be proven: {cause}",
            detail=f"observed: torch.cuda.is_available() is False under {v.python}; required: a usable CUDA GPU. "
            f"Only the CPU side ran ({ran})."
            + (f" CUDA said: {v.cuda_error}" if v.cuda_error and v.cuda_error not in cause else ""),
            fix=CHECK_GPU,
            evidence=("verify.cuda_available", "verify.cuda_error", "torch.cuda_compiled", "driver.nvml_error"),
        )
        return
    tested = [d for d in v.devices if d.smoke_ok is not None]
    if not tested:
        raise skip("no smoke test result: the GPU worker stopped first (see verify.worker)")
    for dev in tested:
        if not dev.smoke_ok:
            yield _smoke_problem(v, dev, facts)
        else:
            yield Finding(
                "verify.smoke-ok",
                Severity.INFO,
                f"{gpu_name(dev, dev.device)}: kernels ran, and the results copied back match the CPU's",
                evidence=("verify.devices",),
            )


@check("verify.parity", "The GPU computes the same loss and gradients as the CPU")
def parity(facts: Facts) -> Iterator[Finding]:
    v = verify_facts(facts)
    results = [(d, p) for d in v.devices for p in d.parity]
    if not results:
        raise skip("no parity result: no GPU got that far (see verify.smoke and verify.worker)")
    for dev, p in results:
        name = f"{p.model} on {gpu_name(dev, dev.device)}"
        if p.error:
            yield Finding(
                "verify.parity-error",
                Severity.ERROR,
                f"Forward and backward of {name} failed: {p.error}",
                detail="observed: an error instead of a loss and gradients; "
                "required: the step runs on the GPU as on the CPU.",
                fix=kernel_fix(p.error) or XID_FIX,
                evidence=("verify.devices",),
            )
        elif not p.ok:
            forward = max(p.loss_rel_diff or 0.0, p.logits_rel_diff or 0.0)
            grad_tol = p.grad_tolerance if p.grad_tolerance is not None else p.tolerance or 0.0
            if p.grad_rel_diff is None or p.loss_rel_diff is None:
                observed = "non-finite values"
            elif forward > (p.tolerance or 0.0):
                observed = f"logits and loss differ by {forward:.3g}, tolerance {p.tolerance or 0:g}"
            else:
                observed = f"gradients differ by {p.grad_rel_diff:.3g}, tolerance {grad_tol:g}"
            yield Finding(
                "verify.parity-failed",
                Severity.ERROR,
                f"{name} computes different numbers from the CPU: {observed}",
                detail=f"observed: logits differ by {_g(p.logits_rel_diff)} and the loss by {_g(p.loss_rel_diff)} "
                f"in fp32 (tolerance {p.tolerance or 0:g}), gradients by {_g(p.grad_rel_diff)} "
                f"{_grad_precision(p)} (tolerance {grad_tol:g}; worst: {p.worst or 'unknown'}), identical weights "
                "and batch, TF32 off. Rounding alone stays orders of magnitude under these tolerances; a GPU that "
                "computes wrongly has failing memory or a broken driver/library.",
                fix=Fix("Check the GPU's ECC counters and the driver's Xid errors.", ("nvidia-smi -q -d ECC", XID)),
                evidence=("verify.devices",),
            )
        else:
            forward = max(p.loss_rel_diff or 0.0, p.logits_rel_diff or 0.0)
            grads = f"gradients within {_g(p.grad_rel_diff)} {_grad_precision(p)}"
            if p.grad_tolerance is None:
                grads += f" (tolerance {p.tolerance or 0:g})"
            else:
                grads += f" (tolerance {p.grad_tolerance:g})"
            yield Finding(
                "verify.parity-ok",
                Severity.INFO,
                f"{name}: logits and loss match the CPU within {_g(forward)} (tolerance {p.tolerance or 0:g}), "
                + grads,
                evidence=("verify.devices",),
            )


def _grad_precision(p: ParityResult) -> str:
    return "in fp32" if p.grad_tolerance is None else "in float64"


def _g(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.2g}"


CHECKS: List[Check] = [worker, smoke, parity] + LEARNING_CHECKS + SPEED_CHECKS
