"""A batch job in the pasted report that asked the scheduler for no GPU, where the paste shows CUDA finding none."""

from __future__ import annotations

from typing import Iterator

from gpudoctor.checks.support.containers import FAILING
from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

_SLURM_GPUS = "https://slurm.schedmd.com/gres.html"


def _gpu_missing(facts: Facts) -> bool:
    """The paste shows this process without a GPU: CUDA unavailable, nvidia-smi or NVML failing, or no device."""
    signs = set(extras(facts, "paste.signature")) & set(FAILING)
    d = facts.driver
    return (bool(signs) or facts.torch.is_available is False or bool(d.smi_error_text or d.nvml_error)
            or bool(extras(facts, "paste.cuda_flips")))


@check("paste.job-without-gpu", "A batch job that asked for a GPU")
def job_without_gpu(facts: Facts) -> Iterator[Finding]:
    jobs = extras(facts, "paste.slurm_job")
    if not jobs:
        raise skip("the input shows no batch job")
    if not _gpu_missing(facts):
        return
    asked = extras(facts, "paste.slurm_gpus")
    if asked:
        yield Finding(
            code="paste.job-without-gpu",
            severity=Severity.WARNING,
            summary="CUDA finds no GPU inside a Slurm job that asks for one: the partition may have none, or the "
                    "cluster honours another form of the request (--gpus=N, a GPU partition)",
            detail="Observed: " + asked[0] + "\nRequired: a request the cluster grants; the job's own view of its "
                   "GPUs (nvidia-smi -L, CUDA_VISIBLE_DEVICES) shows whether it got any.",
            fix=Fix("Check what the job was given, and try the cluster's documented form of the GPU request.",
                    ("srun --gpus=1 nvidia-smi -L", "scontrol show job \"$SLURM_JOB_ID\"", "sinfo -o '%P %G'")),
            links=(_SLURM_GPUS,),
            evidence=("extra",),
        )
        return
    yield Finding(
        code="paste.job-without-gpu",
        severity=Severity.WARNING,
        summary="CUDA finds no GPU inside a Slurm job, and the paste shows no GPU request for it: Slurm gives a job no "
                "GPU unless it asks (--gres=gpu:N or --gpus=N)",
        detail="Observed: " + jobs[0] + "\nRequired: a GPU request in the job (#SBATCH --gres=gpu:1 or --gpus=1); "
               "without one, Slurm hides the node's GPUs from the job (its cgroup holds no /dev/nvidia* device), "
               "so nvidia-smi and torch see none even on a GPU node.",
        fix=Fix("Request the GPUs in the job script or on the command line, on a partition that has them, and check "
                "inside the job.", ("srun --gres=gpu:1 nvidia-smi -L", "sinfo -o '%P %G'")),
        links=(_SLURM_GPUS,),
        evidence=("extra",),
    )


CHECKS = [job_without_gpu]
