"""The Python API and its notebook renderings: gpudoctor.check/diagnose/verify/facts, HTML and markdown reprs."""

from __future__ import annotations

import dataclasses
import html.parser
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import gpudoctor
from gpudoctor.probes.verify.progress import QUIET
import gpudoctor.probes as probes
from gpudoctor import api
from gpudoctor.facts import CompanionFacts, EnvFacts, Facts, Gpu
from gpudoctor.parsers.report import InputError
from gpudoctor.render.markdown import render_markdown
from gpudoctor.render.terminal import render_terminal
from gpudoctor.facts.verify import VerifyFacts
from test_render import broken_facts, healthy_facts

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
HOSTILE = "<script>alert(1)</script>"
HOSTILE_ATTR = '"><img src=x onerror=alert(1)>'
ALLOWED_TAGS = {"div", "pre", "span", "details", "summary"}
STYLE = re.compile(r"^(?:(?:font-weight:bold|opacity:0\.65|color:#[0-9a-f]{6}|white-space:pre-wrap|"
                   r"font-family:monospace|line-height:1\.35|margin:0);?)+$")


class Markup(html.parser.HTMLParser):
    """Collects every tag with its attributes, and the text a browser would show."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[Tuple[str, List[Tuple[str, Optional[str]]]]] = []
        self.text: List[str] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(markup: str) -> Markup:
    parser = Markup()
    parser.feed(markup)
    parser.close()
    return parser


def assert_safe(markup: str) -> str:
    """Only the renderer's own tags and attributes occur; returns the visible text."""
    parsed = parse(markup)
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs:
            assert name in ("style", "class", "open"), name
            if name == "style":
                assert value and STYLE.match(value), value
            if name == "class":
                assert value in ("gpudoctor-report", "gpudoctor-facts"), value
    return "".join(parsed.text)


# notebook renderings


@pytest.mark.parametrize("scenario", ["rtx5090-cu126", "healthy-h100"])
def test_html_repr_golden(scenario: str, golden) -> None:
    diagnosis = gpudoctor.diagnose(SCENARIOS / f"{scenario}.json", plugins=False)
    markup = diagnosis._repr_html_()
    golden(f"notebook-{scenario}.html", markup)
    visible = assert_safe(markup)
    assert visible.startswith(render_terminal(diagnosis.report).rstrip("\n"))  # the terminal report, coloured


def test_text_and_markdown_reprs_are_the_renderers() -> None:
    diagnosis = gpudoctor.diagnose(SCENARIOS / "rtx5090-cu126.json", plugins=False)
    assert str(diagnosis) == repr(diagnosis) == render_terminal(diagnosis.report)
    assert diagnosis._repr_markdown_() == render_markdown(diagnosis.report)
    detailed = diagnosis.detailed()
    assert detailed.verbose and not diagnosis.verbose
    assert str(detailed) == render_terminal(diagnosis.report, verbose=True) != str(diagnosis)


def hostile_facts() -> Facts:
    base = broken_facts()
    return dataclasses.replace(
        base,
        gpus=(Gpu(index=0, name=HOSTILE, compute_capability=(12, 0)),),
        torch=dataclasses.replace(base.torch, import_error=HOSTILE_ATTR, init_error=HOSTILE + "\x1b[31m&amp;"),
        torchvision=CompanionFacts(installed=True, version=HOSTILE_ATTR, cuda="12.6"),
        env=EnvFacts(variables=(("CUDA_VISIBLE_DEVICES", HOSTILE_ATTR),)),
    )


def test_hostile_values_are_escaped_in_html() -> None:
    diagnosis = gpudoctor.diagnose(hostile_facts(), plugins=False)
    markup = diagnosis._repr_html_()
    assert "<script" not in markup and "<img" not in markup and "\x1b" not in markup
    visible = assert_safe(markup)
    assert HOSTILE in visible and HOSTILE_ATTR in visible  # shown literally, not dropped
    assert "&amp;amp;" in markup  # an entity in a value stays text
    facts_markup = gpudoctor.api.FactsView(hostile_facts())._repr_html_()
    assert "<script" not in facts_markup and HOSTILE in assert_safe(facts_markup)


def test_hostile_values_stay_text_in_markdown() -> None:
    text = gpudoctor.diagnose(hostile_facts(), plugins=False)._repr_markdown_()
    outside_code = re.sub(r"^(`{3,})[\s\S]*?^\1$", "", text, flags=re.M)
    assert not re.search(r"(?<!\\)<(?:script|img)", outside_code)
    assert "\\<script\\>" in outside_code


# the API


@pytest.fixture
def collected(monkeypatch: pytest.MonkeyPatch) -> List[Tuple[Optional[str], float]]:
    calls: List[Tuple[Optional[str], float]] = []

    def collect(python: Optional[str] = None, timeout: float = 60.0) -> Facts:
        calls.append((python, timeout))
        return broken_facts()

    monkeypatch.setattr(probes, "collect", collect)
    return calls


def test_check_runs_the_probes_and_every_check(collected: List[Any]) -> None:
    diagnosis = gpudoctor.check("/opt/py/bin/python", timeout=5.0, plugins=False)
    assert collected == [("/opt/py/bin/python", 5.0)]
    assert isinstance(diagnosis, api.Diagnosis)
    assert not diagnosis.ok and diagnosis.exit_code() == 1 and diagnosis.exit_code("never") == 0
    assert any(f.code == "gpu.arch-too-new" for f in diagnosis.problems)
    assert len(diagnosis.causes) < len(diagnosis.problems)  # torchvision's mismatch is also "never released together"
    assert diagnosis.summary.startswith(f"{len(diagnosis.causes)} problem")
    assert diagnosis.to_dict()["results"][0]["check"] == diagnosis.results[0].check


def test_check_selection_fails_before_probing(collected: List[Any]) -> None:
    with pytest.raises(api.SelectionError, match="'nothing.here': no check has that id"):
        gpudoctor.check(select=["nothing.here"])
    assert collected == []
    only = gpudoctor.check(select=["gpu"], plugins=False)
    assert only.results and all(r.check.startswith("gpu.") for r in only.results)
    with pytest.raises(TypeError, match="list of check ids"):
        gpudoctor.check(select="gpu")  # type: ignore[arg-type]


def test_healthy_report_is_ok() -> None:
    diagnosis = gpudoctor.diagnose(healthy_facts(), plugins=False)
    assert diagnosis.ok and diagnosis.problems == () and diagnosis.exit_code("warning") == 0


def test_facts_collects_and_redacts(collected: List[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor import api

    view = api.facts()
    assert view.facts.meta.redacted and collected == [(None, 60.0)]
    assert not api.facts(redact=False).facts.meta.redacted
    assert Facts.from_json(view.to_json()) == view.facts
    assert view._repr_markdown_().startswith("```json\n{")


def test_verify_runs_the_workers_and_the_checks(collected: List[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    seen: List[Dict[str, Any]] = []

    def run_verify(**kwargs: Any) -> VerifyFacts:
        seen.append(kwargs)
        return VerifyFacts(dataset="synthetic", device=None, cuda_available=False)

    monkeypatch.setattr("gpudoctor.probes.verify.runner.run_verify", run_verify)
    diagnosis = gpudoctor.verify(epochs=1, plugins=False)
    assert seen == [dict(python=None, dataset="synthetic", device=None, all_devices=False, data_dir=None,
                         epochs=1, timeout=1800.0, progress=QUIET)]
    assert diagnosis.facts.verify == VerifyFacts(dataset="synthetic", device=None, cuda_available=False)
    with pytest.raises(ValueError, match="cannot be used together"):
        gpudoctor.verify(device="cuda:0", all_devices=True)


def test_diagnose_takes_text_a_path_or_facts(tmp_path: Path) -> None:
    text = (SCENARIOS / "rtx5090-cu126.json").read_text(encoding="utf-8")
    by_path = gpudoctor.diagnose(str(SCENARIOS / "rtx5090-cu126.json"), plugins=False)
    by_text = gpudoctor.diagnose(text, plugins=False)
    by_facts = gpudoctor.diagnose(Facts.from_json(text), plugins=False)
    assert by_path.report == by_text.report
    assert by_facts.report.results == by_path.report.results
    markdown = tmp_path / "report.md"
    markdown.write_text(by_path.markdown(), encoding="utf-8")
    again = gpudoctor.diagnose(markdown, plugins=False)
    assert [r.status for r in again.results] == [r.status for r in by_path.results]


def test_diagnose_bad_input_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        gpudoctor.diagnose(str(tmp_path / "missing.json"))
    with pytest.raises(InputError):
        gpudoctor.diagnose("{ not json\nat all")
    with pytest.raises(TypeError, match="not int"):
        gpudoctor.diagnose(3)  # type: ignore[arg-type]


def test_example_and_examples() -> None:
    from gpudoctor import api

    names = [e.name for e in api.examples()]
    assert "rtx5090-cu126" in names and "healthy-h100" in names
    assert gpudoctor.example("healthy-h100").ok
    assert any(f.code == "torch.cpu-build-on-gpu" for f in gpudoctor.example("cpu-wheel").problems)


def test_the_package_serves_the_api_lazily_and_its_modules_stay_modules() -> None:
    import types

    from gpudoctor import api
    from gpudoctor.facts import Facts as FactsClass

    assert gpudoctor.verify is api.verify and gpudoctor.check is api.check and gpudoctor.diagnose is api.diagnose
    assert FactsClass is Facts and isinstance(gpudoctor.facts, types.ModuleType)
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        gpudoctor.nonsense  # type: ignore[attr-defined]  # noqa: B018


def test_import_gpudoctor_is_cheap() -> None:
    code = (
        "import sys, gpudoctor\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'rich', 'pynvml', 'click', 'mcp')"
        " or (m.startswith('gpudoctor.') and m != 'gpudoctor'))\n"
        "print(heavy, callable(gpudoctor.check))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout == "[] True\n", out.stderr

