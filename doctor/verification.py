"""``gpudoctor verify``: runs the training workers on each GPU and on the CPU, shows progress, returns their facts."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from gpudoctor.facts import Facts, FactsError
from gpudoctor import fetch, launch
from gpudoctor.trainers.protocol import BENCH, FATAL, HELLO, PARITY, RUN, SMOKE, STAGE
from gpudoctor.trainers.recipes import DATASETS, DEFAULT_EPOCHS
from gpudoctor.verify_facts import FailureKind, VerifyFacts

DEFAULT_CPU_SECONDS = 3.0
_DEVICE = re.compile(r"^cuda(?::(\d+))?$")


class VerifyInputError(ValueError):
    """A bad option or missing input for ``gpudoctor verify``; the message is one line for the user (exit 2)."""


@dataclass(frozen=True)
class _Job:
    """One worker to run: its device argument and the label of what it verifies."""

    device: str  # auto | cuda:N | cpu
    label: str
    visible: Optional[str] = None  # CUDA_VISIBLE_DEVICES for this worker: one MIG instance's UUID


def run_verify(
    python: Optional[str],
    dataset: str,
    device: Optional[str],
    all_devices: bool,
    data_dir: Optional[str],
    epochs: Optional[int],
    timeout: float,
    progress: bool,
    *,
    cpu_seconds: float = DEFAULT_CPU_SECONDS,
    cpu_steps: Optional[int] = None,
    speed_batch: Optional[int] = None,
    train_size: Optional[int] = None,
    test_size: Optional[int] = None,
    bench: bool = True,
    env: Optional[Mapping[str, str]] = None,
    mig_lister: Optional[Callable[[], List[str]]] = None,
) -> VerifyFacts:
    """Verify the first GPU (or ``device``, or every GPU) and the CPU baseline; raise VerifyInputError for bad input.

    ``timeout`` limits each worker process; ``cpu_seconds`` is the CPU baseline's training time per model, or
    ``cpu_steps`` its number of training steps (then what the baseline trains does not depend on the CPU's speed).
    """
    dataset, folder = _folder(dataset)
    target = _check(dataset, device, all_devices, epochs, timeout)
    exe = _interpreter(python)
    root, cache = None, None
    if folder is not None:
        root, cache = folder, str(fetch.default_root().parent / "images")
    elif dataset not in ("synthetic", "catsdogs"):
        root = _prepare_data(dataset, data_dir, progress)
    common = ["--dataset", dataset, "--cpu-seconds", f"{cpu_seconds:g}"]
    for flag, value in (
        ("--data-dir", root),
        ("--cache-dir", cache),
        ("--epochs", epochs),
        ("--train-size", train_size),
        ("--test-size", test_size),
        ("--cpu-steps", cpu_steps),
        ("--speed-batch", speed_batch),
    ):
        if value is not None:
            common += [flag, str(value)]
    if not bench:
        common.append("--no-bench")
    from gpudoctor.progress import View

    done: List[Tuple[_Job, launch.Outcome]] = []
    with View(progress) as view:

        def start(job: _Job) -> launch.Outcome:
            argv = [exe, str(launch.WORKER), "--device", job.device] + common
            job_env = env
            if job.visible is not None:
                argv += ["--label", job.label]
                job_env = dict(os.environ if env is None else env, CUDA_VISIBLE_DEVICES=job.visible)
            outcome = launch.run(argv, timeout, view.record, job_env)
            view.finished(job.label, outcome.failure())
            done.append((job, outcome))
            return outcome

        first = start(_Job(target, "cuda:0" if target == "auto" else target))
        fatal = first.first(FATAL)
        if fatal is not None and FailureKind.parse(fatal.get("kind")) is FailureKind.DEVICE and target != "auto":
            raise VerifyInputError(f"--device {target}: {fatal.get('error')}")
        hello = first.first(HELLO)
        if all_devices and hello:
            for extra in _items(hello, "devices")[1:]:
                start(_Job(str(extra.get("device")), str(extra.get("device"))))
            for uuid in _other_mig_instances(hello, env, mig_lister):
                start(_Job("cuda:0", uuid, visible=uuid))
        # the CPU baseline, unless the first worker's failure would only repeat itself there
        if fatal is None or FailureKind.parse(fatal.get("kind")) not in (
                FailureKind.IMPORT, FailureKind.START, FailureKind.DATA):
            start(_Job("cpu", "cpu"))
    return _assemble(dataset, epochs, exe, root, cpu_seconds, done)


_MIG_LINE = re.compile(r"^\s*MIG\s.*\(UUID:\s*(MIG-[0-9A-Za-z/\-]{1,80})\)\s*$")


def list_mig_instances() -> List[str]:
    """The UUIDs of every MIG instance, from ``nvidia-smi -L``; empty when it cannot be run."""
    import subprocess

    try:
        done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return mig_uuids(done.stdout)


def mig_uuids(text: str) -> List[str]:
    """MIG UUIDs in ``nvidia-smi -L`` output ("  MIG 1g.10gb Device 0: (UUID: MIG-...)"), in order, at most 64."""
    found = [m.group(1) for m in (_MIG_LINE.match(line) for line in text[:200_000].splitlines()) if m]
    return list(dict.fromkeys(found))[:64]


def _other_mig_instances(
    hello: Dict[str, Any], env: Optional[Mapping[str, str]], lister: Optional[Callable[[], List[str]]]
) -> List[str]:
    """With MIG, CUDA shows a process one instance: the others get a worker each, by UUID (the first is done)."""
    names = [str(d.get("name") or "") for d in hello.get("devices", []) if isinstance(d, dict)]
    if not any(" MIG " in f" {n} " for n in names):
        return []
    if (os.environ if env is None else env).get("CUDA_VISIBLE_DEVICES"):
        return []  # the user chose what to show
    return (lister or list_mig_instances)()[1:]


def _folder(train: str) -> Tuple[str, Optional[str]]:
    """``folder:PATH`` as ("folder", the folder's absolute path), checked to hold two classes of files; any other
    value as itself."""
    if train == "folder" or not train.startswith("folder:"):
        if train == "folder":
            raise VerifyInputError("--train folder: give the folder as folder:PATH (PATH/<class>/<image>)")
        return train, None
    from gpudoctor.trainers.images import FolderError, scan

    path = os.path.abspath(os.path.expanduser(train[len("folder:") :].strip()))
    try:
        scan(path)
    except FolderError as exc:
        raise VerifyInputError(f"--train folder:{exc}") from None
    except OSError as exc:
        raise VerifyInputError(f"--train folder:{path}: cannot be read ({exc.strerror or exc})") from None
    return "folder", path


def _check(dataset: str, device: Optional[str], all_devices: bool, epochs: Optional[int], timeout: float) -> str:
    """Validate the options; return the worker's --device value."""
    if dataset not in DATASETS:
        choices = ", ".join(d if d != "folder" else "folder:PATH" for d in DATASETS)
        raise VerifyInputError(f"--train {dataset}: choose one of {choices}")
    if epochs is not None and epochs < 1:
        raise VerifyInputError(f"--epochs {epochs}: at least 1 epoch is needed")
    if not timeout > 0:
        raise VerifyInputError(f"--timeout {timeout:g}: the time limit must be positive")
    if device is None:
        return "auto"
    if all_devices:
        raise VerifyInputError(f"--device {device} and --all-devices exclude each other: pick one")
    match = _DEVICE.match(device.strip())
    if match is None:
        raise VerifyInputError(
            f"--device {device}: not a GPU device; use cuda:N "
            "(cuda:0 is the first GPU torch sees; the CPU side always runs)"
        )
    return f"cuda:{int(match.group(1) or 0)}"


WORKER_PYTHON = (3, 7)  # the trainers use postponed annotations


def _interpreter(python: Optional[str]) -> str:
    if not python:
        return sys.executable
    found = shutil.which(python) if os.sep not in python else (python if os.access(python, os.X_OK) else None)
    if not found or os.path.isdir(found):
        raise VerifyInputError(f"--python {python}: no such interpreter (give the path of a python executable)")
    from gpudoctor.probes.python import PythonError, validate

    try:
        version = validate(found).version
    except PythonError as exc:
        raise VerifyInputError(str(exc)) from None
    if tuple(int(part) for part in version.split(".")[:2]) < WORKER_PYTHON:
        raise VerifyInputError(
            f"--python {python}: is Python {version}; the verify worker needs Python 3.7 or newer "
            "(gpudoctor check still diagnoses this environment)"
        )
    return found


def _prepare_data(dataset: str, data_dir: Optional[str], progress: bool) -> str:
    from gpudoctor.progress import download_progress

    root = fetch.resolve_root(dataset, data_dir)
    try:
        with download_progress(progress) as report:
            fetch.ensure(dataset, root, report)
    except fetch.DataUnavailable as exc:
        raise VerifyInputError(str(exc)) from None
    return str(root)


def _items(record: Dict[str, Any], key: str) -> List[Dict[str, Any]]:
    """The objects listed under ``key`` in a worker record; a value of another type lists nothing."""
    value = record.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _valid(section: Dict[str, Any]) -> bool:
    """Whether ``section`` fits the verify schema (a worker's record may not)."""
    try:
        Facts.from_dict({"verify": section})
    except FactsError:
        return False
    return True


def _device_section(outcome: launch.Outcome, hello: Optional[Dict[str, Any]], job: _Job) -> Optional[Dict[str, Any]]:
    smoke = outcome.first(SMOKE)
    label = (smoke or {}).get("device") or next((s["device"] for s in outcome.events(STAGE) if s.get("device")), None)
    if label is None or label == "cpu":
        return None
    own = outcome.first(HELLO) if job.visible is not None else None
    wanted = job.device if own is not None else label  # a MIG instance's worker calls it cuda:0 in its hello
    info: Dict[str, Any] = next((d for d in _items(own or hello or {}, "devices") if d.get("device") == wanted), {})
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
    section["parity"] = [p for p in outcome.events(PARITY) if _valid({"devices": [{"parity": [p]}]})]
    bench = outcome.first(BENCH) or {}
    section["matmul"] = [m for m in _items(bench, "matmul") if _valid({"devices": [{"matmul": [m]}]})]
    section["copies"] = [c for c in _items(bench, "copies") if _valid({"devices": [{"copies": [c]}]})]
    if isinstance(bench.get("clocks"), dict) and _valid({"devices": [{"clocks": bench["clocks"]}]}):
        section["clocks"] = bench["clocks"]
    if not _valid({"devices": [section]}):
        if not isinstance(label, str):
            return {"device": "unknown", "error": "the worker named its device with a value that is not text"}
        bad = sorted(key for key, value in section.items() if not _valid({"devices": [{key: value}]}))
        section = {key: value for key, value in section.items() if key not in bad}
        dropped = f"the worker sent {', '.join(bad)} with the wrong type; dropped"
        section["error"] = f"{section['error']}; {dropped}" if section.get("error") else dropped
    return section


def _assemble(
    dataset: str,
    epochs: Optional[int],
    exe: str,
    root: Optional[str],
    cpu_seconds: float,
    done: List[Tuple[_Job, launch.Outcome]],
) -> VerifyFacts:
    everything = [outcome for _, outcome in done]
    hello = next((o.first(HELLO) for o in everything if o.first(HELLO)), None) or {}
    devices = [d for d in (_device_section(o, hello, job) for job, o in done if job.device != "cpu") if d is not None]
    runs = [r for o in everything for r in o.events(RUN) if _valid({"runs": [r]})]
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
