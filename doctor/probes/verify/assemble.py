"""Turns the verify workers' records into the verify facts: a section per GPU, the runs, and why a worker failed.

A worker's records are untrusted JSON: a field of the wrong type is dropped and named, never passed on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from gpudoctor.facts import Facts, FactsError
from gpudoctor.probes.verify.launch import Outcome
from gpudoctor.trainers.protocol import BENCH, HELLO, PARITY, RUN, SMOKE, STAGE
from gpudoctor.trainers.recipes import DEFAULT_EPOCHS
from gpudoctor.facts.verify import VerifyFacts


@dataclass(frozen=True)
class Job:
    """One worker to run: its device argument and the label of what it verifies."""

    device: str  # auto | cuda:N | cpu
    label: str
    visible: Optional[str] = None  # CUDA_VISIBLE_DEVICES for this worker: one MIG instance's UUID


def items(record: Dict[str, Any], key: str) -> List[Dict[str, Any]]:
    """The objects listed under ``key`` in a worker record; a value of another type lists nothing."""
    value = record.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def valid(section: Dict[str, Any]) -> bool:
    """Whether ``section`` fits the verify schema (a worker's record may not)."""
    try:
        Facts.from_dict({"verify": section})
    except FactsError:
        return False
    return True


def device_section(outcome: Outcome, hello: Optional[Dict[str, Any]], job: Job) -> Optional[Dict[str, Any]]:
    smoke = outcome.first(SMOKE)
    label = (smoke or {}).get("device") or next((s["device"] for s in outcome.events(STAGE) if s.get("device")), None)
    if label is None or label == "cpu":
        return None
    own = outcome.first(HELLO) if job.visible is not None else None
    wanted = job.device if own is not None else label  # a MIG instance's worker calls it cuda:0 in its hello
    info: Dict[str, Any] = next((d for d in items(own or hello or {}, "devices") if d.get("device") == wanted), {})
    keys = ("name", "compute_capability", "total_memory_mib", "pci_bus_id", "sm_count")
    section: Dict[str, Any] = {k: info.get(k) for k in keys}
    failure = outcome.failure()
    section.update(
        device=label,
        error=f"the worker {failure}" if failure else None,
        last_stage=outcome.last_stage if failure else None,
    )
    if smoke is not None:
        section.update(smoke_ok=bool(smoke.get("ok")), smoke_error=smoke.get("error"), smoke_step=smoke.get("step"))
    section["parity"] = [p for p in outcome.events(PARITY) if valid({"devices": [{"parity": [p]}]})]
    bench = outcome.first(BENCH) or {}
    section["matmul"] = [m for m in items(bench, "matmul") if valid({"devices": [{"matmul": [m]}]})]
    section["copies"] = [c for c in items(bench, "copies") if valid({"devices": [{"copies": [c]}]})]
    if isinstance(bench.get("clocks"), dict) and valid({"devices": [{"clocks": bench["clocks"]}]}):
        section["clocks"] = bench["clocks"]
    if not valid({"devices": [section]}):
        if not isinstance(label, str):
            return {"device": "unknown", "error": "the worker named its device with a value that is not text"}
        bad = sorted(key for key, value in section.items() if not valid({"devices": [{key: value}]}))
        section = {key: value for key, value in section.items() if key not in bad}
        dropped = f"the worker sent {', '.join(bad)} with the wrong type; dropped"
        section["error"] = f"{section['error']}; {dropped}" if section.get("error") else dropped
    return section


def assemble(
    dataset: str,
    epochs: Optional[int],
    exe: str,
    root: Optional[str],
    cpu_seconds: float,
    done: List[Tuple[Job, Outcome]],
) -> VerifyFacts:
    everything = [outcome for _, outcome in done]
    hello = next((o.first(HELLO) for o in everything if o.first(HELLO)), None) or {}
    devices = [d for d in (device_section(o, hello, job) for job, o in done if job.device != "cpu") if d is not None]
    runs = [r for o in everything for r in o.events(RUN) if valid({"runs": [r]})]
    failures = []
    for job, outcome in done:
        kind, error = outcome.failure_kind(), outcome.failure()
        if kind and error:
            failures.append({"worker": job.label, "kind": kind, "error": error, "stage": outcome.last_stage})
    parity = [p for d in devices for p in d.get("parity", [])]
    diffs = [
        max(p.get("loss_rel_diff") or 0.0, p.get("logits_rel_diff") or 0.0, p.get("grad_rel_diff") or 0.0)
        for p in parity
        if not p.get("error")
    ]
    smokes = [d.get("smoke_ok") for d in devices if d.get("smoke_ok") is not None]
    section: Dict[str, Any] = {
        "dataset": dataset,
        "device": devices[0]["device"] if devices else None,
        "smoke_ok": all(smokes) if smokes else None,
        "smoke_error": next((d.get("smoke_error") for d in devices if d.get("smoke_error")), None),
        "parity_max_rel_diff": max(diffs) if diffs else None,
        "parity_tolerance": next((p.get("tolerance") for p in parity), None),
        "runs": runs,
        "worker_error": "; ".join(f"the {f['worker']} worker {f['error']}" for f in failures) or None,
        "failures": failures,
        "python": exe,
        "torch_version": hello.get("torch"),
        "cuda_build": hello.get("cuda_build"),
        "cuda_available": hello.get("cuda_available"),
        "cuda_error": hello.get("cuda_error"),
        "cuda_warnings": hello.get("warnings", []),
        "device_count": len(hello["devices"]) if isinstance(hello.get("devices"), list) else None,
        "devices": devices,
        "epochs": epochs or DEFAULT_EPOCHS[dataset],
        "cpu_seconds": cpu_seconds,
        "data_dir": root,
    }
    try:
        verify = Facts.from_dict({"verify": section}).verify
    except FactsError as exc:
        verify = VerifyFacts(
            dataset=dataset, python=exe, worker_error=f"the workers' records did not fit the facts schema: {exc}"
        )
    assert verify is not None
    return verify
