"""The parts of fleet triage: hostlists, merged wording, node names, drift rules, streaming, --node-name."""

from __future__ import annotations

import dataclasses
import gc
import json
import weakref
from pathlib import Path
from typing import Iterator, List

import pytest
from click.testing import CliRunner
from fleetgen import base_node

import gpudoctor.probes as probes
from gpudoctor.cli import main
from gpudoctor.facts import Facts
from gpudoctor.fleet.hostlist import compress, natural_key
from gpudoctor.fleet.naming import NodeNameError, check_node_name, node_from_facts, node_from_path, with_node
from gpudoctor.fleet.template import Template
from gpudoctor.fleet.triage import Triage
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.redact import Identity
from gpudoctor.registry import Catalogue, check
from gpudoctor.render.fleet_markdown import render_fleet_markdown
from gpudoctor.render.fleet_terminal import render_fleet_terminal


def test_hostlists_in_slurm_syntax() -> None:
    assert compress([f"n{i:03d}" for i in (1, 2, 3, 5, 100)] + ["n007"]) == "n[001-003,005,007,100]"
    assert compress(["n9", "n10", "n11", "n13"]) == "n[9-11,13]"
    assert compress(["gpu-a1-ib", "gpu-a2-ib", "login"]) == "gpu-a[1-2]-ib,login"
    assert compress(["n01", "n1"]) == "n01,n1"
    assert compress(["x y", "a,b"]) == "a,b,x y"
    assert compress([]) == ""
    assert sorted(["n10", "n9", "m2"], key=natural_key) == ["m2", "n9", "n10"]


def test_merged_wording_keeps_shared_words() -> None:
    versions = Template("driver 535.104.05 supports CUDA 12.2; torch needs 580")
    versions.add("driver 535.129.03 supports CUDA 12.2; torch needs 580")
    assert versions.text() == "driver 535.x supports CUDA 12.2; torch needs 580"
    few = Template("GPU 0 has 2 errors;")
    few.add("GPU 3 has 5 errors;")
    assert few.text() == "GPU 0/3 has 2/5 errors;"
    many = Template("held by pid 1")
    for pid in range(2, 9):
        many.add(f"held by pid {pid}")
    assert many.text() == "held by pid …"
    ragged = Template("a b")
    ragged.add("a b c")
    assert ragged.text() == "a b (worded differently on some nodes)"


def test_node_names() -> None:
    assert node_from_path("facts/n001.json") == "n001"
    assert node_from_path("reports/n002.report.json") == "n002"
    assert node_from_path("n003.facts.md") == "n003"
    assert node_from_path("weird name\tx.json") == "weird_name_x"
    assert node_from_path(".json") == ".json"
    assert check_node_name("gpu-a01.cluster") == "gpu-a01.cluster"
    for bad in ("", "-n1", "a b", "n1;reboot", "x" * 129):
        with pytest.raises(NodeNameError):
            check_node_name(bad)
    facts = with_node(with_node(Facts(extra=(("nvidia_pci", "1"),)), "n1"), "n2")
    assert facts.extra == (("nvidia_pci", "1"), ("node", "n2"))
    assert node_from_facts(facts) == "n2" and node_from_facts(Facts()) is None


def _facts(**driver: object) -> Facts:
    data = base_node()
    data["driver"].update(driver)
    return Facts.from_dict(data)


def _no_checks() -> Catalogue:
    return Catalogue(())


def test_no_majority_singles_out_nobody() -> None:
    state = Triage(_no_checks())
    for i, version in enumerate(["580.95.05", "580.95.05", "570.1", "570.1"]):
        state.add_facts(_facts(version=version), f"n{i}.json")
    report = state.report()
    assert report.drift == ()
    assert [(s.trait.value, s.top) for s in report.spread] == [("driver", (("580.95.05", 2), ("570.1", 2)))]
    assert report.exit_code() == 0


def test_hardware_is_compared_within_one_gpu_model() -> None:
    state = Triage(_no_checks(), Severity.WARNING)
    for i in range(3):
        state.add_facts(_facts(), f"h{i}.json")
    small = base_node()
    small["gpus"] = [dict(g, name="NVIDIA L40S") for g in small["gpus"][:4]]
    state.add_facts(Facts.from_dict(small), "l0.json")
    short = base_node()
    short["gpus"] = short["gpus"][:7]
    state.add_facts(Facts.from_dict(short), "h3.json")
    report = state.report()
    assert [(d.trait.value, d.value, d.majority, d.model, d.nodes) for d in report.drift] == [
        ("gpu_count", "7", "8", "NVIDIA H100 80GB HBM3", ("h3",))]
    assert [(g.reason, g.nodes) for g in report.drain] == [("gpudoctor: drift gpu_count=7", ("h3",))]


@check("fake.crash", "a check that crashes")
def _crash(facts: Facts) -> Iterator[Finding]:
    raise RuntimeError("boom")
    yield  # pragma: no cover


def test_a_crashing_check_is_an_error_group_naming_the_check() -> None:
    state = Triage(Catalogue((_crash.with_source("fake 1.0"),)))
    state.add_facts(_facts(), "n1.json")
    report = state.report()
    assert [(g.code, g.severity, g.nodes) for g in report.groups] == [("crash:fake.crash", Severity.ERROR, ("n1",))]
    assert report.groups[0].summary.startswith("check fake.crash crashed: RuntimeError: boom at ")
    assert report.exit_code() == 1


def test_no_facts_are_kept_after_their_node_is_judged() -> None:
    state = Triage(_no_checks())
    refs: List[weakref.ref[Facts]] = []
    for i in range(3):
        facts = _facts()
        refs.append(weakref.ref(facts))
        state.add_facts(facts, f"n{i}.json")
        del facts
    gc.collect()
    assert [r() for r in refs] == [None, None, None]
    assert len(state.report().nodes) == 3


def test_facts_records_the_node_name_as_given_under_redaction(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    collected: List[object] = []

    def collect(python: object = None, timeout: float = 60.0) -> Facts:
        collected.append(python)
        return dataclasses.replace(_facts(), extra=(("note", "built on n017"),))

    monkeypatch.setattr(probes, "collect", collect, raising=False)
    monkeypatch.setattr("gpudoctor.redact.local_identity", lambda: Identity((), (), ("n017",)))
    result = CliRunner().invoke(main, ["facts", "--node-name", "n017"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["extra"] == [["note", "built on <host>"], ["node", "n017"]]
    bad = CliRunner().invoke(main, ["facts", "--node-name", "n 017"])
    assert bad.exit_code == 2 and len(collected) == 1
    assert bad.stderr == ("error: --node-name 'n 017': use a host name (letters, digits, '.', '_' and '-', at most "
                          "128 characters, starting with a letter or digit)\n")


@check("fake.held", "a check whose fix names something of each node")
def _held(facts: Facts) -> Iterator[Finding]:
    yield Finding("fake.held", Severity.WARNING, "memory held", fix=Fix("Stop it.", (f"kill {facts.driver.version}",)))


def test_groups_past_forty_are_summed_up_by_code() -> None:
    state = Triage(Catalogue((_held.with_source("fake 1.0"),)))
    for i in range(45):
        state.add_facts(_facts(version=str(1000 + i)), f"n{i:02d}.json")
    report = state.report()
    assert len(report.groups) == 45
    text = render_fleet_terminal(report)
    assert text.count("[!] 1 node: memory held [fake.held]") == 40
    assert "[…] 5 more groups, each with its own fix (--format json lists them): fake.held (5 nodes)\n" in text
    markdown = render_fleet_markdown(report)
    assert markdown.count("#### ! 1 node: memory held") == 40
    assert "5 more groups, each with its own fix (--format json lists them): fake.held (5 nodes)" in markdown


def test_hostlists_expand_in_slurm_syntax() -> None:
    from gpudoctor.fleet.hostlist import expand

    assert expand("n[001-003,007],login, r[1-2]-n[01-02]") == [
        "n001", "n002", "n003", "n007", "login", "r1-n01", "r1-n02", "r2-n01", "r2-n02"]
    assert expand("n[9-11]") == ["n9", "n10", "n11"]
    assert compress(expand("n[0001-0100,0200]")) == "n[0001-0100,0200]"
    assert expand("") == []
    for bad in ("n[1-", "n]1[", "n[a-b]", "n[3-1]", "n[1-2000000]"):
        with pytest.raises(ValueError):
            expand(bad)
