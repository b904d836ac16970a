"""What the verify.* checks share: the verify section or SKIP, device names, and the diagnostic commands they print."""

from __future__ import annotations

from typing import Optional

from gpudoctor.facts import Facts
from gpudoctor.model import Fix
from gpudoctor.registry import need, skip
from gpudoctor.facts.verify import DeviceResult, VerifyFacts

CHECK_GPU = Fix("The other rows of this report name the root cause and its fix; gpudoctor check prints them on their own.",
                ("gpudoctor check",))
XID = "sudo dmesg | grep -i -E 'NVRM|Xid'"
XID_FIX = Fix("Look for Xid errors from the driver and run gpudoctor check.", (XID, "gpudoctor check"))
HOLDERS = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"


# Error texts that mean the wheel has no code this GPU can run (CUDA runtime, cuBLAS, cuDNN wordings) ...
ARCH_ERRORS = (
    "no kernel image",
    "nokernelimage",
    "invalid device function",
    "cublas_status_arch_mismatch",
    "cudnn_status_arch_mismatch",
    "is not compatible with the current pytorch installation",
)
# ... and texts that mean the driver is older than the CUDA the wheel was built with.
DRIVER_ERRORS = (
    "driver version is insufficient",
    "insufficientdriver",
    "ptx was compiled with an unsupported toolchain",
    "unsupported ptx version",
    "unsupportedptxversion",
    "forward compatibility was attempted on non supported hw",
    "unsupported display driver / cuda driver combination",
)


KERNEL_FIX = Fix(
    "Install a torch build whose kernels cover this GPU; gpudoctor check prints the command.", ("gpudoctor check",)
)
DRIVER_FIX = Fix(
    "Update the NVIDIA driver, or install a torch build for an older CUDA; gpudoctor check prints both.",
    ("gpudoctor check",),
)


def kernel_fix(error: Optional[str]) -> Optional[Fix]:
    """The fix for an error text that names missing kernels or a too-old driver, else None."""
    lowered = (error or "").lower()
    if any(text in lowered for text in DRIVER_ERRORS):
        return DRIVER_FIX
    if any(text in lowered for text in ARCH_ERRORS):
        return KERNEL_FIX
    return None


def verify_facts(facts: Facts) -> VerifyFacts:
    """The verify section, or SKIP: ``gpudoctor check`` trains nothing, ``verify --distributed`` only ranks."""
    v = need(facts.verify, "verify", "gpudoctor verify was not run (only it trains models)")
    if v.distributed is not None and not v.devices and not v.runs and not v.failures:
        raise skip("only verify --distributed ran: the verify.rank-*, collective, straggler and ddp-parity checks "
                   "judge it")
    return v


def gpu_name(dev: Optional[DeviceResult], label: str) -> str:
    if dev is None or not dev.name:
        return label
    cc = f", sm_{dev.compute_capability[0]}{dev.compute_capability[1]}" if dev.compute_capability else ""
    return f"{label} ({dev.name}{cc})"


def device(v: VerifyFacts, label: str) -> Optional[DeviceResult]:
    return next((d for d in v.devices if d.device == label), None)
