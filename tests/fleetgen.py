"""Generated fleets for fleet triage: copies of a healthy 8-GPU H100 node with faults planted on chosen nodes."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Tuple

BASE = Path(__file__).parent / "scenarios" / "healthy-h100.json"
GPUS = 8
NCCL = "2.28.9"


@dataclass(frozen=True)
class Planted:
    """Which nodes carry which fault (node names), for the assertions of a test or the bench's report."""

    old_driver: Tuple[str, ...]
    torch_drift: Tuple[str, ...]
    ecc: str
    missing_gpu: str
    throttled: str
    corrupt: str
    json_report: str
    markdown_report: str
    named: str  # a node whose name comes from --node-name, not from its file name


def base_node() -> Dict[str, Any]:
    """The healthy H100 scenario grown to 8 GPUs, with NCCL, as `gpudoctor facts` writes it (redacted)."""
    data: Dict[str, Any] = json.loads(BASE.read_text(encoding="utf-8"))
    gpu, device = data["gpus"][0], data["torch"]["devices"][0]
    data["gpus"] = [dict(gpu, index=i, uuid=f"GPU-<uuid-{i + 1}>", pci_bus_id=f"00000000:{0x18 + i:02X}:00.0")
                    for i in range(GPUS)]
    data["torch"]["devices"] = [dict(device, index=i, uuid=f"GPU-<uuid-{i + 1}>") for i in range(GPUS)]
    data["torch"]["device_count"] = data["driver"]["gpu_count"] = GPUS
    data["packages"].append({"name": "nvidia-nccl-cu13", "version": NCCL, "location": data["packages"][0]["location"],
                             "requires": []})
    data["meta"]["redacted"] = True
    return data


def node_name(index: int, count: int) -> str:
    return f"n{index + 1:0{4 if count >= 1000 else 3}d}"


def plan(count: int) -> Planted:
    """Where the faults go in a fleet of ``count`` nodes (at least 40): fixed, so outputs are stable."""
    if count < 40:
        raise ValueError("a generated fleet has at least 40 nodes")
    name = lambda i: node_name(i, count)  # noqa: E731
    old = max(2, count // 800)
    drift_at, drift = count // 2, max(2, count // 500)
    return Planted(
        old_driver=tuple(name(i) for i in range(old)),
        torch_drift=tuple(name(i) for i in range(drift_at, drift_at + drift)),
        ecc=name(count - 3), missing_gpu=name(count // 3), throttled=name(count // 4), corrupt=name(count - 1),
        json_report=name(old + 1), markdown_report=name(old + 2), named=name(old + 3),
    )


def _fault(data: Dict[str, Any], name: str, planted: Planted) -> None:
    if name in planted.old_driver:  # two builds of the 535 branch: one root cause, two drift values
        version = "535.104.05" if planted.old_driver.index(name) % 2 == 0 else "535.129.03"
        data["driver"].update(version=version, kernel_module_version=version, cuda_version="12.2")
    if name in planted.torch_drift:
        data["torch"]["version"] = "2.13.0+cu130"
        data["torchvision"]["version"] = "0.28.0+cu130"
        for dist in data["packages"]:
            if dist["name"] == "torch":
                dist["version"] = "2.13.0"
            if dist["name"] == "torchvision":
                dist["version"] = "0.28.0"
                dist["requires"] = ["numpy", "torch>=2.13.0", "pillow!=8.3.*,>=5.3.0"]
    if name == planted.ecc:
        data["gpus"][3].update(ecc_uncorrected_volatile=2, ecc_uncorrected_aggregate=2)
    if name == planted.missing_gpu:
        data["gpus"] = data["gpus"][:-1]
        data["torch"]["devices"] = data["torch"]["devices"][:-1]
        data["torch"]["device_count"] = data["driver"]["gpu_count"] = GPUS - 1
    if name == planted.throttled:
        data["gpus"][5].update(throttle_reasons=["hw_thermal_slowdown"], temperature_c=91)
    if name == planted.named:
        data["extra"] = [["node", name]]


def node_facts(base: Dict[str, Any], index: int, count: int, planted: Planted) -> Dict[str, Any]:
    data = copy.deepcopy(base)
    for gpu in data["gpus"]:
        gpu["temperature_c"] = 30 + (index * 7 + gpu["index"]) % 15
    _fault(data, node_name(index, count), planted)
    return data


def _text(data: Dict[str, Any], name: str, planted: Planted) -> Tuple[str, str]:
    """The file name and text of one node: facts JSON, a JSON report, a markdown report or a cut-off file."""
    facts = json.dumps(data, indent=2)
    if name == planted.json_report:
        return f"{name}.report.json", json.dumps({"schema": 1, "facts": data, "results": []}, indent=2)
    if name == planted.markdown_report:
        body = f"## gpudoctor report\n\n<details>\n\n<!-- gpudoctor-facts -->\n```json\n{facts}\n```\n\n</details>\n"
        return f"{name}.md", body
    if name == planted.corrupt:
        return f"{name}.json", facts[: len(facts) // 2]
    if name == planted.named:
        return "facts-from-pod-7f9c.json", facts
    return f"{name}.json", facts


def write_fleet(dest: Path, count: int) -> Planted:
    """Write ``count`` nodes' files into ``dest``, one at a time; the plan of what was planted where."""
    dest.mkdir(parents=True, exist_ok=True)
    planted = plan(count)
    base = base_node()
    for index in range(count):
        name = node_name(index, count)
        file_name, text = _text(node_facts(base, index, count, planted), name, planted)
        (dest / file_name).write_text(text, encoding="utf-8")
    return planted


def all_planted(planted: Planted) -> List[str]:
    return [*planted.old_driver, *planted.torch_drift, planted.ecc, planted.missing_gpu, planted.throttled,
            planted.corrupt]
