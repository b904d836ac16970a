"""``gpudoctor verify --distributed``: starts torchrun over the local GPUs (or CPU ranks) and reads rank 0's result.

The worker also runs under a user's own torchrun or srun across nodes (``python -m gpudoctor.trainers.distributed``
or ``gpudoctor verify --distributed --worker-only``); then rank 0 of that job writes the report.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional

import gpudoctor.trainers as _trainers
from gpudoctor.errors import UserError
from gpudoctor.probes.verify import launch
from gpudoctor.probes.verify.runner import worker_interpreter
from gpudoctor.facts.distributed import DistributedFacts
from gpudoctor.facts import Facts
from gpudoctor.facts.codec import FactsError
from gpudoctor.facts.verify import VerifyFacts

ENTRY = Path(_trainers.__file__).resolve().parent / "dist_entry.py"
DISTRIBUTED = "distributed"  # the record rank 0 prints (gpudoctor.trainers.distributed.DISTRIBUTED)
CPU_RANKS = 2  # ranks on a machine without GPUs (gloo)
MAX_RANKS = 64


class DistributedInputError(UserError, ValueError):
    """A bad option for ``verify --distributed``; one line for the user (exit 2)."""


def worker_args(backend: str, max_bytes: Optional[int], step_timeout: float) -> List[str]:
    """The worker's options, shared by the torchrun gpudoctor starts and the worker-only mode."""
    if backend not in ("auto", "nccl", "gloo"):
        raise DistributedInputError(f"--backend {backend}: choose auto, nccl or gloo")
    if not step_timeout > 0:
        raise DistributedInputError(f"--step-timeout {step_timeout:g}: the time limit must be positive")
    args = ["--backend", backend, "--timeout", f"{step_timeout:g}"]
    if max_bytes is not None:
        if max_bytes < 1024:
            raise DistributedInputError(f"--max-bytes {max_bytes}: at least 1024 (the smallest payload is 1 KiB)")
        args += ["--max-bytes", str(max_bytes)]
    return args


def torchrun_argv(python: str, nproc: int, args: List[str]) -> List[str]:
    """torchrun as a module of the target interpreter, one node, the worker run by path."""
    return [python, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
            "--max-restarts=0", str(ENTRY), *args]


def local_ranks(facts: Facts, nproc: Optional[int]) -> int:
    """``--nproc-per-node``, else one rank per GPU torch (or NVML) sees, else CPU_RANKS gloo ranks."""
    if nproc is not None:
        if not 1 <= nproc <= MAX_RANKS:
            raise DistributedInputError(f"--nproc-per-node {nproc}: give 1 to {MAX_RANKS}")
        return nproc
    count = facts.torch.device_count if facts.torch.is_available else None
    return count or len(facts.gpus) or CPU_RANKS


def run_distributed(python: Optional[str], nproc: int, args: List[str], timeout: float,
                    env: Optional[Mapping[str, str]] = None,
                    on_record: Callable[[Dict[str, Any]], None] = lambda record: None) -> VerifyFacts:
    """Run torchrun with ``nproc`` local ranks under ``timeout`` seconds; the verify facts from rank 0's record."""
    exe = worker_interpreter(python)
    outcome = launch.run(torchrun_argv(exe, nproc, args), timeout, on_record, env)
    record = outcome.first(DISTRIBUTED)
    if record is None:
        why = outcome.failure() or "ended without rank 0's result"
        return verify_facts(None, exe, f"torchrun with {nproc} ranks {why}")
    section = {k: v for k, v in record.items() if k != "event"}
    _exit_codes(section, list(outcome.stderr_tail))
    return verify_facts(section, exe)


_ROOT = re.compile(r"^\s*rank\s*:\s*(\d+)\s*\(local_rank")
_CODE = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)")


def _exit_codes(section: Dict[str, Any], stderr: List[str]) -> None:
    """Add the exit status torchrun's failure summary gives for a rank that ended without a result."""
    codes: Dict[int, int] = {}
    rank: Optional[int] = None
    for line in stderr:
        found = _ROOT.match(line)
        if found:
            rank = int(found.group(1))
        status = _CODE.match(line)
        if status and rank is not None:
            codes[rank] = int(status.group(1))
            rank = None
    for row in section.get("ranks") or []:
        if isinstance(row, dict) and row.get("status") == "lost" and row.get("rank") in codes:
            code = codes[row["rank"]]
            how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
            row["error"] = f"its process {how} without reporting a result (torchrun's summary)"


def verify_facts(section: Optional[Dict[str, Any]], python: Optional[str],
                 error: Optional[str] = None) -> VerifyFacts:
    """The verify facts of a distributed run: rank 0's gathered section, checked against the schema."""
    dist = DistributedFacts(error=error)
    if section is not None:
        try:
            found = Facts.from_dict({"verify": {"distributed": section}}).verify
            assert found is not None and found.distributed is not None
            dist = found.distributed
        except FactsError as exc:
            dist = DistributedFacts(error=f"rank 0's result did not fit the facts schema: {exc}")
    first = dist.ranks[0] if dist.ranks else None
    return VerifyFacts(dataset="synthetic", python=python, torch_version=first.torch_version if first else None,
                       cuda_build=first.cuda_build if first else None, distributed=dist)


def with_distributed(facts: Facts, verify: VerifyFacts) -> Facts:
    return dataclasses.replace(facts, verify=verify)
