"""Writes scenario fixtures for libraries with kernels of their own and for distributed verify runs, on top of the
healthy H100 machine: run it, review, commit the JSON."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Dict

from gpudoctor.facts import Distribution, Facts, PlatformFacts

HERE = Path(__file__).resolve().parent
DISTRIBUTED = HERE.parent / "fixtures" / "distributed"


def healthy() -> Facts:
    return Facts.from_json((HERE / "healthy-h100.json").read_text(encoding="utf-8"))


def with_packages(facts: Facts, *extra: Distribution) -> Facts:
    return replace(facts, packages=facts.packages + extra)


def vllm_for_other_torch() -> Facts:
    """vLLM 0.6.3 requires torch==2.4.0; the environment has torch 2.14.1: its compiled ops cannot load."""
    return with_packages(healthy(), Distribution(name="vllm", version="0.6.3"))


def flash_attn_on_turing() -> Facts:
    """flash-attn 2.x needs sm_80; a Tesla T4 is sm_75."""
    facts = healthy()
    gpus = tuple(replace(g, name="Tesla T4", compute_capability=(7, 5), memory_total_mib=15360) for g in facts.gpus)
    devices = tuple(replace(d, name="Tesla T4", compute_capability=(7, 5), total_memory_mib=15095,
                            multi_processor_count=40) for d in facts.torch.devices)
    facts = replace(facts, gpus=gpus, torch=replace(facts.torch, devices=devices))
    return with_packages(facts, Distribution(name="flash-attn", version="2.7.4.post1"))


def bitsandbytes_old_on_windows() -> Facts:
    """bitsandbytes before 0.43.0 ships no CUDA binaries for Windows."""
    facts = healthy()
    platform = PlatformFacts(system="Windows", release="10", machine="AMD64", python_version="3.12.7",
                             python_executable="C:\\Users\\ana\\venv\\Scripts\\python.exe", virtualenv=True)
    return with_packages(replace(facts, platform=platform), Distribution(name="bitsandbytes", version="0.41.1"))


def distributed(fixture: str) -> Facts:
    """The healthy machine with the verify section of a recorded distributed run."""
    run = Facts.from_json((DISTRIBUTED / f"{fixture}.json").read_text(encoding="utf-8"))
    return replace(healthy(), verify=run.verify)


def build() -> Dict[str, Facts]:
    return {
        "lib-vllm-other-torch": vllm_for_other_torch(),
        "lib-flash-attn-t4": flash_attn_on_turing(),
        "lib-bitsandbytes-windows": bitsandbytes_old_on_windows(),
        "dist-straggler": distributed("straggler_gpu"),
        "dist-rank-hung": distributed("rank_hung"),
        "dist-drift-nccl": distributed("drift_nccl"),
        "dist-ddp-mismatch": distributed("ddp_mismatch"),
        "dist-wrong-collective": distributed("wrong_collective"),
    }


def main() -> int:
    for name, facts in build().items():
        (HERE / f"{name}.json").write_text(facts.to_json() + "\n", encoding="utf-8")
        print(f"wrote {name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
