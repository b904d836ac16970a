"""Judges whether the reference models learned under ``gpudoctor verify``: the loss falls, accuracy clears its bar."""

from __future__ import annotations

from typing import Iterator, List, Optional

from gpudoctor.checks.support.verify_common import HOLDERS, XID, XID_FIX, device, gpu_name, kernel_fix, verify_facts
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, skip
from gpudoctor.facts.verify import DeviceResult, ModelRun


def _run_error(run: ModelRun, dev: Optional[DeviceResult]) -> Finding:
    name = f"{run.model} on {gpu_name(dev, run.device)}"
    if "out of memory" in (run.error or "").lower():
        return Finding(
            "verify.out-of-memory",
            Severity.ERROR,
            f"Training {name} ran out of GPU memory",
            detail=f"observed: {run.error}; required: room for a model of under a million parameters and its data set.",
            fix=Fix("Find the processes that hold the GPU's memory and stop them.", (HOLDERS,)),
            evidence=("verify.runs",),
        )
    return Finding(
        "verify.run-failed",
        Severity.ERROR,
        f"Training {name} failed: {run.error}",
        detail="observed: the run stopped with this error; required: it trains to the end.",
        fix=kernel_fix(run.error) or XID_FIX,
        evidence=("verify.runs",),
    )


@check("verify.learning", "The reference models learn")
def learning(facts: Facts) -> Iterator[Finding]:
    v = verify_facts(facts)
    judged: List[ModelRun] = [r for r in v.runs if r.error or r.complete or r.samples]
    if not judged:
        raise skip("no run to judge: none trained a single step")
    for run in judged:
        dev = device(v, run.device)
        name = f"{run.model} on {gpu_name(dev, run.device)}"
        if run.error:
            yield _run_error(run, dev)
            continue
        losses = f"test loss {_loss(run.first_loss)} before training, {_loss(run.final_loss)} after {_trained(run)}"
        barred = run.accuracy_required is not None
        if (
            (barred or run.complete)
            and run.first_loss is not None
            and run.final_loss is not None
            and not run.final_loss < run.first_loss
        ):
            yield Finding(
                "verify.loss-not-falling",
                Severity.ERROR,
                f"{name} did not learn: {losses}",
                detail="observed: the loss did not fall; required: it falls. "
                "Compare with the CPU run of the same model.",
                fix=Fix(
                    "Check the parity results above, the GPU's ECC counters and the driver's Xid errors.",
                    ("nvidia-smi -q -d ECC", XID),
                ),
                evidence=("verify.runs",),
            )
        elif run.accuracy is not None and run.accuracy_required is not None and run.accuracy < run.accuracy_required:
            yield Finding(
                "verify.accuracy-low",
                Severity.ERROR,
                f"{name} reached {run.accuracy:.1%} test accuracy; required at least {run.accuracy_required:.1%}",
                detail=f"observed: {losses}; the bar: {run.accuracy_basis or 'set for this data set'}. "
                "If the CPU run of "
                "the same model learns and the GPU's does not, the GPU computes wrongly.",
                fix=Fix(
                    "Check the parity results above, the GPU's ECC counters and the driver's Xid errors.",
                    ("nvidia-smi -q -d ECC", XID),
                ),
                evidence=("verify.runs",),
            )
        elif not barred and not run.complete:
            yield Finding(
                "verify.not-judged",
                Severity.INFO,
                f"{name}: stopped after {_trained(run)}, no accuracy bar applies; {losses}",
                detail=f"the bar: {run.accuracy_basis or 'none recorded for this run'}.",
                evidence=("verify.runs",),
            )
        else:
            acc = f"{run.accuracy:.1%}" if run.accuracy is not None else "unknown"
            bar = f" (required at least {run.accuracy_required:.1%})" if barred else " (no accuracy bar)"
            yield Finding(
                "verify.learned",
                Severity.INFO,
                f"{name}: {acc} test accuracy{bar}, {losses}",
                detail=f"the bar: {run.accuracy_basis}." if run.accuracy_basis else "",
                evidence=("verify.runs",),
            )


def _trained(run: ModelRun) -> str:
    """How much a run trained: epochs completed, and the samples seen when it stopped inside an epoch."""
    epochs = f"{run.epochs} epoch{'s' if run.epochs != 1 else ''}"
    if run.complete or not run.samples:
        return epochs
    return f"{run.samples:,} samples ({epochs} complete)"


def _loss(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


CHECKS: List[Check] = [learning]
