"""Plugin discovery from entry_points.txt files, compared with importlib.metadata's own answer."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest

from gpudoctor.entrypoints import canonical, entry_points
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks
from gpudoctor.facts import Facts

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
    return tmp_path


def test_same_entry_points_as_importlib_metadata(plugin_site: Path) -> None:
    ours = sorted((ep.name, ep.value, canonical(ep.dist.name), ep.dist.version)
                  for ep in entry_points("gpudoctor.checks"))
    theirs = sorted((ep.name, ep.value, canonical(ep.dist.metadata["Name"]), ep.dist.version)
                    for ep in metadata.entry_points(group="gpudoctor.checks"))
    assert ours == theirs
    assert ("demo", "demo_gpudoctor_plugin:CHECKS", "demo-gpudoctor-plugin", "1.2.3") in ours


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
    sys.modules.pop("demo_gpudoctor_plugin", None)


def test_unreadable_folders_and_files_are_skipped(tmp_path: Path) -> None:
    info = tmp_path / "odd-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_bytes(b"\xff\xfe not text [")
    assert entry_points("gpudoctor.checks", [str(tmp_path), str(tmp_path / "missing")]) == []
