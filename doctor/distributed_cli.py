"""The ``--distributed`` options of ``gpudoctor verify`` and what they run: torchrun over the local ranks, or this
process as one rank of a job launched by the user's own torchrun or srun (``--worker-only``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, TypeVar

import click

if TYPE_CHECKING:
    from gpudoctor.facts import Facts

F = TypeVar("F", bound=Callable[..., Any])
Finish = Callable[["Facts"], int]
_OPTIONS = ("distributed", "nproc_per_node", "worker_only", "backend", "max_bytes", "step_timeout")


def distributed_options(func: F) -> F:
    """The click options of ``verify --distributed``."""
    options = [
        click.option("--distributed", is_flag=True,
                     help="Verify every local GPU as one rank under torchrun (gloo ranks on CPUs): collectives, "
                          "stragglers, rank drift and DDP."),
        click.option("--nproc-per-node", type=int, metavar="N",
                     help="Ranks to start with --distributed [default: one per GPU, 2 on CPUs]."),
        click.option("--worker-only", is_flag=True,
                     help="With --distributed: be one rank of a job started by your own torchrun or srun; rank 0 "
                          "writes the report."),
        click.option("--backend", type=click.Choice(("auto", "nccl", "gloo")), default="auto", show_default=True,
                     help="With --distributed: the process group backend (auto: nccl with CUDA, else gloo)."),
        click.option("--max-bytes", type=int, metavar="BYTES",
                     help="With --distributed: the largest collective payload [default: 256 MiB]."),
        click.option("--step-timeout", type=float, default=120.0, show_default=True, metavar="SECONDS",
                     help="With --distributed: the time limit of each step and collective; a rank past it is "
                          "named as hung."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def take(opts: Dict[str, Any]) -> Dict[str, Any]:
    """Remove the distributed options from ``opts`` (the other options go on to the report); refuse those that
    mean nothing without --distributed."""
    from gpudoctor.probes.verify.distributed import DistributedInputError

    chosen = {name: opts.pop(name, None) for name in _OPTIONS}
    if not chosen["distributed"]:
        flags = {"nproc_per_node": "--nproc-per-node", "worker_only": "--worker-only", "max_bytes": "--max-bytes"}
        used = [flag for name, flag in flags.items() if chosen.get(name) is not None and chosen.get(name) is not False]
        if used:
            raise DistributedInputError(f"{', '.join(used)} only apply with --distributed")
    return chosen


def run(chosen: Dict[str, Any], python: Optional[str], timeout: float,
        collect: Callable[[], Facts], finish: Finish) -> int:
    """The exit status of ``verify --distributed``."""
    from gpudoctor.probes.verify.distributed import DistributedInputError, local_ranks, run_distributed, worker_args

    args = worker_args(chosen.get("backend") or "auto", chosen.get("max_bytes"),
                       120.0 if chosen.get("step_timeout") is None else float(chosen["step_timeout"]))
    if chosen.get("worker_only"):
        if chosen.get("nproc_per_node") is not None:
            raise DistributedInputError("--nproc-per-node and --worker-only exclude each other: your launcher "
                                        "starts the ranks")
        return worker_only(args, collect, finish)
    facts = collect()
    nproc = local_ranks(facts, chosen.get("nproc_per_node"))
    from gpudoctor.render.console import spinner

    with spinner(f"Running {nproc} ranks under torchrun…"):
        result = run_distributed(python, nproc, args, timeout)
    import dataclasses

    return finish(dataclasses.replace(facts, verify=result))


def worker_only(args: List[str], collect: Callable[[], Facts], finish: Finish) -> int:
    """This process is one rank; on rank 0 the gathered results are checked and reported like any verify."""
    from gpudoctor.probes.verify.distributed import verify_facts
    from gpudoctor.trainers.distributed import run as run_rank

    def deliver(section: Dict[str, Any]) -> int:
        import dataclasses

        return finish(dataclasses.replace(collect(), verify=verify_facts(section, sys.executable)))

    return run_rank(args, deliver)
