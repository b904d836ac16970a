"""``gpudoctor verify``: runs the training workers on each GPU and on the CPU, reports progress, returns their facts."""

from __future__ import annotations

import os
import re
import shutil
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from gpudoctor.probes.verify import fetch, launch
from gpudoctor.probes.verify.assemble import Job, assemble, items
from gpudoctor.probes.verify.progress import QUIET, Progress
from gpudoctor.trainers.protocol import FATAL, HELLO
from gpudoctor.trainers.recipes import DATASETS
from gpudoctor.facts.verify import FailureKind, VerifyFacts
from gpudoctor.errors import UserError

DEFAULT_CPU_SECONDS = 3.0
_DEVICE = re.compile(r"^cuda(?::(\d+))?$")


class VerifyInputError(UserError, ValueError):
    """A bad option or missing input for ``gpudoctor verify``; the message is one line for the user (exit 2)."""


def run_verify(
    python: Optional[str],
    dataset: str,
    device: Optional[str],
    all_devices: bool,
    data_dir: Optional[str],
    epochs: Optional[int],
    timeout: float,
    progress: Progress = QUIET,
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

    ``progress`` is shown what happens as it happens (the downloads, each worker record); ``timeout`` limits each
    worker process; ``cpu_seconds`` is the CPU baseline's training time per model, or ``cpu_steps`` its number of
    training steps (then what the baseline trains does not depend on the CPU's speed).
    """
    dataset, folder = _folder(dataset)
    target = _check(dataset, device, all_devices, epochs, timeout)
    exe = worker_interpreter(python)
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
    done: List[Tuple[Job, launch.Outcome]] = []
    with progress.workers() as view:

        def start(job: Job) -> launch.Outcome:
            argv = [exe, str(launch.WORKER), "--device", job.device] + common
            job_env = env
            if job.visible is not None:
                argv += ["--label", job.label]
                job_env = dict(os.environ if env is None else env, CUDA_VISIBLE_DEVICES=job.visible)
            outcome = launch.run(argv, timeout, view.record, job_env)
            view.finished(job.label, outcome.failure())
            done.append((job, outcome))
            return outcome

        first = start(Job(target, "cuda:0" if target == "auto" else target))
        fatal = first.first(FATAL)
        if fatal is not None and FailureKind.parse(fatal.get("kind")) is FailureKind.DEVICE and target != "auto":
            raise VerifyInputError(f"--device {target}: {fatal.get('error')}")
        hello = first.first(HELLO)
        if all_devices and hello:
            for extra in items(hello, "devices")[1:]:
                start(Job(str(extra.get("device")), str(extra.get("device"))))
            for uuid in _other_mig_instances(hello, env, mig_lister):
                start(Job("cuda:0", uuid, visible=uuid))
        # the CPU baseline, unless the first worker's failure would only repeat itself there
        if fatal is None or FailureKind.parse(fatal.get("kind")) not in (
                FailureKind.IMPORT, FailureKind.START, FailureKind.DATA):
            start(Job("cpu", "cpu"))
    return assemble(dataset, epochs, exe, root, cpu_seconds, done)


_MIG_LINE = re.compile(r"^\s*MIG\s.*\(UUID:\s*(MIG-[0-9A-Za-z/\-]{1,80})\)\s*$")


def list_mig_instances() -> List[str]:
    """The UUIDs of every MIG instance, from ``nvidia-smi -L``; empty when it cannot be run."""
    from gpudoctor.probes.command import run_command

    done = run_command(["nvidia-smi", "-L"], timeout=20)
    return [] if done.error else mig_uuids(done.stdout)


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


def worker_interpreter(python: Optional[str]) -> str:
    """The interpreter a verify worker runs under: ``python`` found and checked to be Python 3.7 or newer."""
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


def _prepare_data(dataset: str, data_dir: Optional[str], progress: Progress) -> str:
    root = fetch.resolve_root(dataset, data_dir)
    try:
        with progress.downloads() as report:
            fetch.ensure(dataset, root, report)
    except fetch.DataUnavailable as exc:
        raise VerifyInputError(str(exc)) from None
    return str(root)
