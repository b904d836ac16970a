"""The documented fleet recipes: the Slurm health-check script drains, resumes or leaves a node alone."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "slurm" / "gpudoctor-healthcheck.sh"
SCENARIOS = Path(__file__).parent / "scenarios"

FAKE_GPUDOCTOR = """#!/bin/sh
# facts: copy the scenario named by $FAKE_FACTS to the -o path; anything else: the real gpudoctor
if [ "$1" = facts ]; then
  [ -n "$FAKE_FACTS" ] || exit 3
  while [ "$#" -gt 0 ]; do [ "$1" = -o ] && cp "$FAKE_FACTS" "$2"; shift; done
  exit 0
fi
exec "{python}" -m gpudoctor "$@" --no-plugins
"""

FAKE_SCONTROL = """#!/bin/sh
echo "$*" >> "$SCONTROL_LOG"
[ "$1" = show ] && printf 'NodeName=x State=IDLE+DRAIN Reason=%s\\n' "$CURRENT_REASON"
exit 0
"""


def _executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _health_check(tmp_path: Path, facts: str, current_reason: str = "") -> List[str]:
    log = tmp_path / "scontrol.log"
    env = dict(os.environ,
               GPUDOCTOR=str(_executable(tmp_path / "gpudoctor", FAKE_GPUDOCTOR.replace("{python}", sys.executable))),
               SCONTROL=str(_executable(tmp_path / "scontrol", FAKE_SCONTROL)), SCONTROL_LOG=str(log),
               GPUDOCTOR_STATE=str(tmp_path / "state"), FAKE_FACTS=facts, CURRENT_REASON=current_reason)
    done = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def node() -> str:
    return socket.gethostname().split(".", 1)[0]


def test_a_broken_node_is_drained_with_the_reason(tmp_path: Path, node: str) -> None:
    calls = _health_check(tmp_path, str(SCENARIOS / "health-ecc-pending.json"))
    assert calls == [f"update NodeName={node} State=DRAIN Reason=gpudoctor: gpu.ecc"]


def test_a_healthy_node_drained_by_gpudoctor_is_resumed(tmp_path: Path, node: str) -> None:
    calls = _health_check(tmp_path, str(SCENARIOS / "healthy-h100.json"), "gpudoctor: gpu.ecc")
    assert calls == [f"show node {node} -o", f"update NodeName={node} State=RESUME"]


def test_a_node_drained_for_another_reason_is_left_alone(tmp_path: Path, node: str) -> None:
    calls = _health_check(tmp_path, str(SCENARIOS / "healthy-h100.json"), "bad DIMM (admin)")
    assert calls == [f"show node {node} -o"]


def test_facts_that_cannot_be_collected_drain_nothing(tmp_path: Path) -> None:
    assert _health_check(tmp_path, "") == []


def test_the_kubernetes_manifest_names_nodes_from_the_downward_api() -> None:
    text = (ROOT / "examples" / "kubernetes" / "gpudoctor-facts-daemonset.yaml").read_text()
    assert "fieldPath: spec.nodeName" in text
    assert 'gpudoctor facts --node-name "$NODE_NAME" --timeout 120 -o "/facts/$NODE_NAME.json"' in text
    assert "\t" not in text
