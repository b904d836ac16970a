"""`gpudoctor lint` end to end: output formats, selection, noqa, exit codes, bad input, notebooks, plugins."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import List

import pytest
from click.testing import CliRunner, Result

from gpudoctor.cli import main
from importlib.metadata import EntryPoint
from gpudoctor.lint import Hit, rule
from gpudoctor.lint.registry import discover
from gpudoctor.lint.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
DISCARDED = "import torch\nx = torch.randn(3)\nx.to('cuda')\n"
CLEAN = "import torch\nx = torch.randn(3)\n"
LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?P<message>.+)\. "
                  r"Fix: (?P<fix>.+)$")


def lint(*args: str) -> Result:
    return CliRunner().invoke(main, ["lint", *args])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(DISCARDED)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_findings_print_one_line_each_like_other_linters_and_exit_1(project: Path) -> None:
    result = lint("train.py", "clean.py")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout  # GD101 and GD105
    match = LINE.match(lines[0])
    assert match and match.group("path") == "train.py" and match.group("line") == "3"
    assert match.group("col") == "1" and match.group("code") == "GD101"
    assert match.group("fix") == "keep the copy: `x = x.to('cuda')`"
    assert "Found 2 problems in 1 file (2 files linted)." in result.stderr


def test_clean_files_exit_0(project: Path) -> None:
    result = lint("clean.py")
    assert result.exit_code == 0 and result.stdout == ""
    assert "No problems found (1 file linted)." in result.stderr


def test_select_and_ignore_by_code_prefix_and_all(project: Path) -> None:
    assert [ln.split()[1] for ln in lint("train.py", "--select", "GD1").stdout.splitlines()] == ["GD101", "GD105"]
    assert [ln.split()[1] for ln in lint("train.py", "--select", "GD105").stdout.splitlines()] == ["GD105"]
    assert [ln.split()[1] for ln in lint("train.py", "--ignore", "GD101,GD105").stdout.splitlines()] == []
    assert lint("train.py", "--ignore", "GD101,GD105").exit_code == 0
    assert lint("train.py", "--select", "ALL", "--ignore", "GD105").stdout.count("GD101") == 1


def test_unknown_rule_codes_are_one_line_usage_errors(project: Path) -> None:
    result = lint("train.py", "--select", "XY999")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip() == ("error: --select XY999: no lint rule has that code or code prefix "
                                     "(see `gpudoctor lint --explain ALL`)")
    assert lint("--explain", "XY999").exit_code == 2


def test_noqa_silences_the_named_code_or_all_on_its_line(project: Path) -> None:
    base = "import torch\nif torch.cuda.is_available():\n    x = torch.randn(3)\n    x.to('cuda')"
    (project / "q.py").write_text(base + "  # noqa: GD101\n")
    assert lint("q.py").exit_code == 0
    (project / "q.py").write_text(base + "  # noqa\n")
    assert lint("q.py").exit_code == 0
    (project / "q.py").write_text(base + "  # noqa: GD203, E501\n")
    assert "GD101" in lint("q.py").stdout


def test_syntax_errors_and_missing_files_are_one_line_each_exit_2_and_others_still_linted(project: Path) -> None:
    (project / "broken.py").write_text("def f(:\n    pass\n")
    (project / "latin.py").write_bytes(b"x = '\xff\xfe'\n")
    result = lint("broken.py", "latin.py", "missing.py", "train.py")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert errors[0].startswith("broken.py:1:7: error: syntax error: ")
    assert errors[1].startswith("latin.py: error: cannot decode")
    assert errors[2] == "missing.py: error: no such file or directory"
    assert len(errors) == 3
    assert "train.py:3:1: GD101" in result.stdout


def test_directories_are_walked_for_python_files_and_notebooks_skipping_environments(project: Path) -> None:
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "pkg" / "sub" / "deep.py").write_text(DISCARDED)
    (project / ".venv" / "lib").mkdir(parents=True)
    (project / ".venv" / "lib" / "torchy.py").write_text(DISCARDED)
    (project / "notes.txt").write_text(DISCARDED)
    result = lint(".", "--select", "GD101", "--format", "json")
    paths = sorted({d["path"] for d in json.loads(result.stdout)["diagnostics"]})
    assert paths == [str(Path("pkg/sub/deep.py")), "train.py"]


def test_notebook_code_cells_are_linted_with_cell_numbers_and_magics_skipped(project: Path) -> None:
    cells = [
        {"cell_type": "markdown", "source": ["# Dogs vs cats\n"]},
        {"cell_type": "code", "source": ["import torch\n", "!nvidia-smi\n", "%matplotlib inline\n", "files = !ls\n",
                                         "torch.zeros?\n", "if True:  # why?\n", "    %time x = 1\n",
                                         "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"]},
        {"cell_type": "code", "source": "%%bash\necho not python (\n"},
        {"cell_type": "code", "source": ["test_X = torch.rand(10, 50, 50)\n", "test_X.to(device)\n"]},
    ]
    (project / "nb.ipynb").write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}))
    result = lint("nb.ipynb")
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("nb.ipynb:cell 4:2:1: GD101 ")
    data = json.loads(lint("nb.ipynb", "--format", "json").stdout)
    assert data["diagnostics"][0]["cell"] == 4 and data["diagnostics"][0]["line"] == 2


def test_a_notebook_that_is_not_json_is_one_line_exit_2(project: Path) -> None:
    (project / "bad.ipynb").write_text("{not json")
    result = lint("bad.ipynb")
    assert result.exit_code == 2 and result.stderr.startswith("bad.ipynb: error: not a readable notebook")


def test_json_output_lists_findings_and_errors(project: Path) -> None:
    data = json.loads(lint("train.py", "missing.py", "--format", "json").stdout)
    assert data["files"] == 1
    assert data["diagnostics"][0] == {
        "path": "train.py", "line": 3, "column": 1, "code": "GD101",
        "message": data["diagnostics"][0]["message"], "fix": "keep the copy: `x = x.to('cuda')`",
    }
    assert data["errors"] == [{"path": "missing.py", "line": 0, "column": 0, "message": "no such file or directory"}]


def test_sarif_output_is_what_code_scanning_reads(project: Path) -> None:
    result = lint(str(project / "train.py"), "--format", "sarif", "-o", "out.sarif")
    assert result.exit_code == 1 and result.stdout == ""
    sarif = json.loads((project / "out.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in RULES if r.default]
    assert all(r["shortDescription"]["text"] and r["fullDescription"]["text"] for r in rules)
    first = run["results"][0]
    assert first["ruleId"] == "GD101" and rules[first["ruleIndex"]]["id"] == "GD101" and first["level"] == "error"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "train.py"  # relative to the checkout, forward slashes
    assert location["region"] == {"startLine": 3, "startColumn": 1}
    assert run["invocations"][0]["executionSuccessful"] is True


def test_explain_prints_the_rules_docstring_and_all_lists_every_rule() -> None:
    result = lint("--explain", "gd101")
    assert result.exit_code == 0
    assert result.stdout.startswith("GD101 (discarded-move, on by default, from torch-gpudoctor ")
    assert "move the module's parameters and buffers in place" in result.stdout
    listing = lint("--explain", "ALL").stdout.splitlines()
    assert [row.split()[0] for row in listing] == [r.code for r in RULES]
    assert "off" in next(row for row in listing if row.startswith("GD203")).split()


def test_every_rule_has_a_stable_unique_code_a_name_and_a_docstring() -> None:
    codes = [r.code for r in RULES]
    assert codes == ["GD101", "GD102", "GD103", "GD104", "GD105", "GD106", "GD201", "GD202", "GD203", "GD204", "GD205",
                     "GD206", "GD301"]
    assert all(r.name and len(r.doc) > 100 for r in RULES)


def test_the_built_in_rules_are_the_ones_the_entry_point_names() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    value = re.search(r'\[project\.entry-points\."gpudoctor\.lint"\]\nbuiltin = "([^"]+)"', text)
    assert value is not None
    assert EntryPoint("builtin", value.group(1), "gpudoctor.lint").load() is RULES


class FakeDist:
    def __init__(self, name: str) -> None:
        self.metadata, self.version = {"Name": name}, "1.0"


class FakeEntryPoint:
    def __init__(self, name: str, obj: object, dist: str = "mypkg") -> None:
        self.name, self.obj, self.dist = name, obj, FakeDist(dist)

    def load(self) -> object:
        if isinstance(self.obj, Exception):
            raise self.obj
        return self.obj


@rule("MY001", "no-sleep")
def no_sleep(script):  # type: ignore[no-untyped-def]
    """time.sleep in a training script."""
    for call in script.calls:
        if script.qualname(call.func) == "time.sleep":
            yield Hit(call, "sleeps", "do not sleep")


def test_plugins_add_rules_and_broken_ones_are_recorded_not_raised() -> None:
    found = discover(entry_points=[FakeEntryPoint("mine", [no_sleep]), FakeEntryPoint("bad", ImportError("gone")),
                                   FakeEntryPoint("dup", no_sleep, "other"),
                                   FakeEntryPoint("self", RULES, "torch-gpudoctor")])
    assert [r.code for r in found.rules][-1] == "MY001" and found.rules[-1].source == "mypkg 1.0"
    assert len(found.rules) == len(RULES) + 1
    assert [(e.name, e.error) for e in found.errors] == [
        ("bad", "ImportError: gone"), ("dup", "lint rule code 'MY001' is already taken")]
    from gpudoctor.lint.engine import lint_text

    hits = lint_text("import time\ntime.sleep(1)\n", [found.rules[-1]])
    assert [(d.line, d.code, d.message) for d in hits] == [(2, "MY001", "sleeps")]


def test_a_rule_code_must_look_like_a_lint_code() -> None:
    with pytest.raises(ValueError, match="letters then digits"):
        rule("gd-101", "bad")


def test_a_crashing_rule_is_reported_as_an_error_and_the_others_still_run(project: Path) -> None:
    @rule("MY002", "crash")
    def crash(script):  # type: ignore[no-untyped-def]
        """Always fails."""
        raise RuntimeError("boom")

    from gpudoctor.lint.engine import lint_paths

    result = lint_paths(["train.py"], [crash, RULES[0]])
    assert [d.code for d in result.diagnostics] == ["GD101"]
    assert [str(e) for e in result.errors] == ["train.py: error: lint rule MY002 failed: RuntimeError: boom"]
    assert result.exit_code == 2


def test_stdin_is_read_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(main, ["lint", "-", "--select", "GD101"], input=DISCARDED)
    assert result.exit_code == 1 and result.stdout.startswith("-:3:1: GD101 ")


def test_pre_commit_hook_runs_the_lint_command_on_python_and_notebooks() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: gpudoctor-lint" in text and "entry: gpudoctor lint" in text
    assert "types_or: [python, jupyter]" in text


def test_the_module_entry_point_runs_lint(tmp_path: Path) -> None:
    import subprocess

    (tmp_path / "t.py").write_text(DISCARDED)
    done = subprocess.run([sys.executable, "-m", "gpudoctor", "lint", str(tmp_path / "t.py"), "--select", "GD101"],
                          capture_output=True, text=True, timeout=60)
    lines: List[str] = done.stdout.splitlines()
    assert done.returncode == 1 and len(lines) == 1 and " GD101 " in lines[0]
