"""verify --distributed beyond the GPU links: fix commands in the user's shell, the network between nodes
(InfiniBand/RoCE rates from sysfs), the topology between local GPUs, and redaction of every rank's host."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List

from gpudoctor.checks.verify_collective import busy_command
from gpudoctor.checks.verify_distributed import CHECKS
from gpudoctor.facts import Facts
from gpudoctor.model import Finding
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "distributed"


def _load(name: str) -> Facts:
    return Facts.from_json((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def _findings(facts: Facts) -> List[Finding]:
    return [f for r in run_checks(Catalogue(tuple(CHECKS)), facts).results for f in r.findings]


def _windows(facts: Facts) -> Facts:
    return dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, system="Windows"))


def test_fix_commands_are_written_for_the_targets_shell() -> None:
    hung = _load("rank_hung")
    posix = next(f for f in _findings(hung) if f.code == "verify.rank-failed")
    assert posix.fix is not None and posix.fix.commands[0].endswith("=DETAIL gpudoctor verify --distributed")
    assert posix.fix.commands[0] == "TORCH_DISTRIBUTED_DEBUG=DETAIL gpudoctor verify --distributed"
    windows = next(f for f in _findings(_windows(hung)) if f.code == "verify.rank-failed")
    assert windows.fix is not None
    assert windows.fix.commands[0] == "$env:TORCH_DISTRIBUTED_DEBUG = 'DETAIL'; gpudoctor verify --distributed"
    slow = next(f for f in _findings(_windows(_load("nvlink_slow"))) if f.code == "verify.collective-slow")
    assert slow.fix is not None and slow.fix.commands[0] == \
        "$env:NCCL_DEBUG = 'INFO'; $env:NCCL_DEBUG_SUBSYS = 'INIT,GRAPH'; gpudoctor verify --distributed"
    ddp = next(f for f in _findings(_windows(_load("ddp_mismatch"))) if f.code == "verify.ddp-parity")
    assert ddp.fix is not None and ddp.fix.commands == ("$env:NCCL_DEBUG = 'INFO'; gpudoctor verify --distributed",)
    assert busy_command(_windows(hung)).startswith("Get-Process") and busy_command(hung).startswith("top -b")
    for f in _findings(_windows(_load("rank_lost"))) + _findings(_windows(_load("straggler_gpu"))):
        for command in f.fix.commands if f.fix else ():
            assert "top -b" not in command and not command.startswith(("NCCL_", "TORCH_DISTRIBUTED"))


def test_redaction_names_every_ranks_host_as_a_node() -> None:
    from gpudoctor.redact import Identity, redact

    facts = _load("two_nodes")
    assert facts.verify is not None and facts.verify.distributed is not None
    ranks = list(facts.verify.distributed.ranks)
    ranks[8] = dataclasses.replace(ranks[8], host="N002.cluster.example.org",
                                   error="connection to n002.cluster.example.org:29500 and n001 was reset")
    ranks[0] = dataclasses.replace(ranks[0], host="vm")  # too short to replace in text, but the field is a host
    dist = dataclasses.replace(facts.verify.distributed, ranks=tuple(ranks))
    facts = dataclasses.replace(facts, verify=dataclasses.replace(facts.verify, distributed=dist))
    out = redact(facts, Identity(hosts=("n001",)))
    assert out.verify is not None and out.verify.distributed is not None
    hosts = [r.host for r in out.verify.distributed.ranks]
    assert hosts == ["node-1"] + ["node-2"] * 7 + ["node-3"] * 8
    assert out.verify.distributed.ranks[8].error == "connection to node-3:29500 and node-2 was reset"
    text = out.to_json()
    assert "n001" not in text and "n002" not in text.lower() and "example.org" not in text
    findings = _findings(out)
    drift_free = [f for f in findings if f.severity.value in ("warning", "error")]
    assert not drift_free, [f.summary for f in drift_free]
