"""verify --distributed beyond the GPU links: fix commands in the user's shell, the network between nodes
(InfiniBand/RoCE rates from sysfs), the topology between local GPUs, redaction of every rank's host, and the CNN's
DDP parity judged beside the FNN's."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict, List, Tuple

from gpudoctor.checks.verify_collective import busy_command
from gpudoctor.checks.verify_distributed import CHECKS
from gpudoctor.checks.support.verify_pairs import pair_path
from gpudoctor.facts import Facts
from gpudoctor.facts.distributed import GpuLink, NetPort, RankResult
from gpudoctor.model import Finding
from gpudoctor.registry import Catalogue
from gpudoctor.runner import run_checks
from gpudoctor.trainers import dist_ddp, dist_gather, dist_links

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


def _ports(tmp: Path, ports: Dict[str, Tuple[str, str, str]]) -> Path:
    """A fake /sys/class/infiniband: device/port -> (rate, state, link_layer)."""
    for where, (rate, state, layer) in ports.items():
        device, port = where.split("/")
        folder = tmp / device / "ports" / port
        folder.mkdir(parents=True)
        for name, text in (("rate", rate), ("state", state), ("link_layer", layer)):
            (folder / name).write_text(text + "\n", encoding="utf-8")
    return tmp


def test_infiniband_and_roce_ports_are_read_from_sysfs(tmp_path: Path) -> None:
    root = _ports(tmp_path, {"mlx5_0/1": ("100 Gb/sec (4X EDR)", "4: ACTIVE", "InfiniBand"),
                             "mlx5_1/1": ("25 Gb/sec (1X EDR)", "1: DOWN", "InfiniBand"),
                             "mlx5_2/1": ("200 Gb/sec (4X HDR)", "4: ACTIVE", "Ethernet")})
    (root / "mlx5_0" / "ports" / "lid").mkdir()  # not a port number: ignored
    (root / "stray").write_text("not a device", encoding="utf-8")
    found = dist_links.ib_ports(str(root))
    assert [(p["device"], p["port"], p["rate_gbit_s"], p["state"], p["link_layer"]) for p in found] == [
        ("mlx5_0", 1, 100.0, "4: ACTIVE", "InfiniBand"), ("mlx5_1", 1, 25.0, "1: DOWN", "InfiniBand"),
        ("mlx5_2", 1, 200.0, "4: ACTIVE", "Ethernet")]
    assert found[0]["rate"] == "100 Gb/sec (4X EDR)"
    assert dist_links.ib_ports(str(tmp_path / "absent")) == []
    assert dist_links.rate_gbit("garbage") is None and dist_links.rate_gbit("2.5 Gb/sec (1X SDR)") == 2.5
    row = dist_gather._rank_row({"rank": 0, "ib_ports": found})
    assert row["ib_ports"][2] == {"device": "mlx5_2", "port": 1, "rate": "200 Gb/sec (4X HDR)",
                                  "rate_gbit_s": 200.0, "state": "4: ACTIVE", "link_layer": "Ethernet"}


def _with_ports(facts: Facts, by_host: Dict[str, Tuple[NetPort, ...]]) -> Facts:
    assert facts.verify is not None and facts.verify.distributed is not None
    dist = facts.verify.distributed
    ranks = tuple(dataclasses.replace(r, ib_ports=by_host.get(r.host or "", ())) if r.local_rank == 0 else r
                  for r in dist.ranks)
    return dataclasses.replace(facts, verify=dataclasses.replace(
        facts.verify, distributed=dataclasses.replace(dist, ranks=ranks)))


def _port(device: str, gbit: float, state: str = "4: ACTIVE", layer: str = "InfiniBand") -> NetPort:
    return NetPort(device=device, port=1, rate=f"{gbit:g} Gb/sec (4X)", rate_gbit_s=gbit, state=state,
                   link_layer=layer)


def test_collectives_across_nodes_are_judged_against_the_slowest_nodes_ports() -> None:
    two = _load("two_nodes")  # all_reduce busbw 40 GB/s at 256 MiB over 2 nodes
    rails = tuple(_port(f"mlx5_{i}", 200) for i in range(4))
    degraded = tuple(_port(f"mlx5_{i}", 100 if i == 3 else 200) for i in range(4)) + (_port("mlx5_9", 400, "1: DOWN"),)
    facts = _with_ports(two, {"n001": rails, "n002": degraded})
    ok = next(f for f in _findings(facts) if f.code == "verify.collective-ok")
    assert "is 80% of InfiniBand (4 active ports of host n002, the slowest mlx5_3 port 1 at 100 Gb/sec (4X))'s " \
           "50 GB/s" in ok.summary
    fast = tuple(_port(f"mlx5_{i}", 400, layer="Ethernet") for i in range(8))
    slow = next(f for f in _findings(_with_ports(two, {"n001": fast, "n002": fast})) if f.code ==
                "verify.collective-slow")
    assert "10% of RoCE (8 active ports of host n001" in slow.summary and "TCP sockets" in slow.detail
    assert slow.fix is not None and "ibstat" in slow.fix.commands
    one_missing = next(f for f in _findings(_with_ports(two, {"n001": rails, "n002": (_port("mlx5_0", 200, "1: DOWN"),)}))
                       if f.code == "verify.collective-ok")
    assert "host n002 has no active InfiniBand/RoCE port: the inter-node link is unknown there (TCP sockets)" in \
        one_missing.summary
    nothing = next(f for f in _findings(two) if f.code == "verify.collective-ok")
    assert "no node has an active InfiniBand/RoCE port: the inter-node link is unknown (TCP sockets)" in nothing.summary


class FakeNvml:
    """Four GPUs: 0 and 1 joined by two NVLinks, 0-2 under one NUMA node, 0-3 across the CPU interconnect;
    the GPU at index 2 has no NVLinks at all (its link calls raise, as NVML does)."""

    LEVELS = {(0, 1): 10, (0, 2): 40, (0, 3): 50, (1, 2): 50, (1, 3): 50, (2, 3): 20}

    class Pci:
        def __init__(self, bus: bytes) -> None:
            self.busId = bus

    def nvmlDeviceGetCount(self) -> int:
        return 4

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index

    def nvmlDeviceGetUUID(self, handle: int) -> bytes:
        return f"GPU-{handle}".encode()

    def nvmlDeviceGetPciInfo(self, handle: int) -> "FakeNvml.Pci":
        return self.Pci(f"00000000:{handle + 0x17:02X}:00.0".encode())

    def nvmlDeviceGetTopologyCommonAncestor(self, a: int, b: int) -> int:
        return self.LEVELS[(min(a, b), max(a, b))]

    def nvmlDeviceGetNvLinkState(self, handle: int, link: int) -> int:
        if handle == 2 or link >= 4:
            raise RuntimeError("NVML_ERROR_NOT_SUPPORTED")
        return 1 if link < 3 else 0

    def nvmlDeviceGetNvLinkRemotePciInfo(self, handle: int, link: int) -> "FakeNvml.Pci":
        peer = {0: 1, 1: 0}.get(handle, 3) if link < 2 else 3 - handle if handle < 2 else 2
        return self.Pci(f"0000:{peer + 0x17:02X}:00.0".encode())  # the short domain NVLink reports


def test_topology_names_each_peers_path_like_nvidia_smi_topo() -> None:
    rows = dist_links.topology(FakeNvml(), "GPU-0")
    # the third link of GPU 0 goes to GPU 3: NV1 beats the SYS path between them
    assert rows == [{"peer_uuid": "GPU-1", "level": "NV2", "nvlinks": 2},
                    {"peer_uuid": "GPU-2", "level": "NODE", "nvlinks": 0},
                    {"peer_uuid": "GPU-3", "level": "NV1", "nvlinks": 1}]
    assert dist_links.topology(FakeNvml(), "GPU-2") == [
        {"peer_uuid": "GPU-0", "level": "NODE", "nvlinks": 0}, {"peer_uuid": "GPU-1", "level": "SYS", "nvlinks": 0},
        {"peer_uuid": "GPU-3", "level": "PXB", "nvlinks": 0}]
    assert dist_links.topology(FakeNvml(), "GPU-missing") == [] and dist_links.topology(object(), "GPU-0") == []
    row = dist_gather._rank_row({"rank": 0, "topology": rows})
    assert row["topology"][0] == {"peer_uuid": "GPU-1", "level": "NV2", "nvlinks": 2}


def _with_topology(facts: Facts, rank: int, links: Tuple[GpuLink, ...]) -> Facts:
    assert facts.verify is not None and facts.verify.distributed is not None
    dist = facts.verify.distributed
    ranks = tuple(dataclasses.replace(r, topology=links) if r.rank == rank else r for r in dist.ranks)
    return dataclasses.replace(facts, verify=dataclasses.replace(
        facts.verify, distributed=dataclasses.replace(dist, ranks=ranks)))


def test_a_slow_pair_names_the_path_between_its_gpus() -> None:
    base = _load("slow_pair_gpu")  # ranks 1 and 3 (cuda:1, cuda:3 on n001) are the slow pair
    uuid = "GPU-00000000-0000-0000-0000-00000000000"
    sys_path = _with_topology(base, 3, (GpuLink(peer_uuid=uuid + "1", level="SYS"),
                                        GpuLink(peer_uuid=uuid + "0", level="PIX")))
    pair = next(f for f in _findings(sys_path) if f.code == "verify.slow-pair")
    assert pair.summary.endswith("; GPU 1 <-> GPU 3: SYS (crosses the CPU interconnect between NUMA nodes)")
    assert pair.fix is not None and "nvidia-smi topo -m" in pair.fix.commands
    nvlink = _with_topology(base, 1, (GpuLink(peer_uuid=uuid + "3", level="NV4", nvlinks=4),))
    pair = next(f for f in _findings(nvlink) if f.code == "verify.slow-pair")
    assert pair.summary.endswith("GPU 1 <-> GPU 3: NV4 (4 NVLinks: it should be the fastest pair)")
    unread = next(f for f in _findings(base) if f.code == "verify.slow-pair")
    assert unread.summary.endswith("the GPU topology was not read (NVML was not available to the ranks)")
    cpu = RankResult(rank=0, device="cpu")
    assert pair_path(cpu, RankResult(rank=1, device="cpu")) == "CPU ranks: no GPU topology applies"
    other = pair_path(RankResult(rank=0, device="cuda:0", host="a1", node_rank=0),
                      RankResult(rank=9, device="cuda:1", host="b2", node_rank=1))
    assert other == "on different nodes (a1 and b2): the network joins them"


def test_the_cnns_ddp_run_is_judged_beside_the_fnns() -> None:
    facts = _load("clean_gloo")
    assert facts.verify is not None and facts.verify.distributed is not None and facts.verify.distributed.training
    fnn = facts.verify.distributed.training
    cnn = dataclasses.replace(fnn, model="cnn", steps=2, losses=(2.3, 2.0), reference_losses=(2.3, 2.2),
                              max_rel_diff=0.2 / 2.2)
    dist = dataclasses.replace(facts.verify.distributed, training_cnn=cnn)
    found = _findings(dataclasses.replace(facts, verify=dataclasses.replace(facts.verify, distributed=dist)))
    ok = [f.summary for f in found if f.code == "verify.ddp-parity-ok"]
    assert len(ok) == 1 and ok[0].startswith("DDP of the FNN over 2 ranks follows one process")
    bad = next(f for f in found if f.code == "verify.ddp-parity")
    assert bad.summary.startswith("DDP of the CNN over 2 ranks does not follow one process over the same batch")
    assert "first at step 2" in bad.summary and "mean loss 2 against 2.2 at step 2" in bad.detail
    failed = dataclasses.replace(dist, training_cnn=dataclasses.replace(cnn, error="not every rank finished"))
    found = _findings(dataclasses.replace(facts, verify=dataclasses.replace(facts.verify, distributed=failed)))
    assert any(f.summary == "The DDP training of the CNN did not finish: not every rank finished" for f in found)


def test_ddp_keys_and_the_cnns_inputs() -> None:
    import torch

    assert dist_gather.ddp_key("fnn") == "ddp" and dist_gather.ddp_key("cnn") == "ddp_cnn"
    assert dist_ddp.steps_for("cnn", 20) == dist_ddp.CNN_STEPS and dist_ddp.steps_for("fnn", 20) == 20
    ref = dist_ddp.reference(torch, torch.device("cpu"), 3, 4, 2, "cnn")
    assert len(ref["losses"]) == 3 and ref["losses"][-1] < ref["losses"][0]
    rows = [{"rank": r, "ddp": {"losses": [1.0], "seconds": 1.0, "batch": 4},
             "ddp_cnn": {"losses": [2.0], "seconds": 1.0, "batch": 4}} for r in range(2)]
    section = dist_gather.assemble(rows, 2, {}, {"fnn": {"losses": [1.0], "single_seconds": 1.0},
                                                 "cnn": {"losses": [2.0], "single_seconds": 1.0}})
    assert section["training"]["model"] == "fnn" and section["training_cnn"]["model"] == "cnn"
    assert section["training_cnn"]["max_rel_diff"] == 0.0
