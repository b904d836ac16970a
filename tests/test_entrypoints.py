"""Plugins and the built-ins load through their entry points, read by importlib.metadata."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest

from gpudoctor import registry
from gpudoctor.checks.builtin import CHECKS
from gpudoctor.facts import Facts
from gpudoctor.plugins import OWN_DISTRIBUTION, entry_points
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

PLUGIN = '''
from gpudoctor.model import Finding, Severity
from gpudoctor.registry import check


@check("demo.always", "Demo plugin check")
def always(facts):
    yield Finding("demo.always", Severity.WARNING, "observed 1, required 2")


CHECKS = [always]
'''


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "demo_gpudoctor_plugin.py").write_text(PLUGIN)
    info = tmp_path / "demo_gpudoctor_plugin-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-gpudoctor-plugin\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(
        "[console_scripts]\ndemo = demo_gpudoctor_plugin:main\n\n"
        "[gpudoctor.checks]\ndemo = demo_gpudoctor_plugin:CHECKS\n"
    )
    broken = tmp_path / "broken_plugin-0.1.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (broken / "entry_points.txt").write_text("[gpudoctor.checks]\nbroken = no_such_module_here:CHECKS\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("demo_gpudoctor_plugin", None)


def test_plugins_found_on_sys_path_run_and_a_broken_one_is_a_row(plugin_site: Path) -> None:
    catalogue = discover(plugins=True)
    demo = [c for c in catalogue.checks if c.id == "demo.always"]
    assert [(c.id, c.source) for c in demo] == [("demo.always", "demo-gpudoctor-plugin 1.2.3")]
    assert [(e.name, e.source, e.error) for e in catalogue.errors] == [
        ("broken", "broken-plugin 0.1", "ModuleNotFoundError: No module named 'no_such_module_here'"),
    ]
    report = run_checks(catalogue, Facts())
    assert [r.status.value for r in report.results if r.check in ("demo.always", "plugin:broken")] == ["warn", "crash"]
    assert "demo.always" not in [c.id for c in discover(plugins=False).checks]


def test_the_built_ins_come_through_their_own_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    own = [ep for ep in metadata.distribution(OWN_DISTRIBUTION).entry_points if ep.group == registry.ENTRY_POINT_GROUP]
    assert [(ep.name, ep.value) for ep in own] == [("builtin", "gpudoctor.checks.builtin:CHECKS")]

    def no_direct_import() -> None:
        raise AssertionError("the built-ins were imported around their entry point")

    monkeypatch.setattr(registry, "builtin_checks", no_direct_import)
    assert [c.id for c in discover(plugins=False).checks] == [c.id for c in CHECKS]


def test_without_the_entry_point_an_installed_gpudoctor_has_no_built_in_checks() -> None:
    others = [ep for ep in entry_points(registry.ENTRY_POINT_GROUP) if ep.name != "builtin"]
    assert discover(plugins=True, entry_points=others).checks == ()
