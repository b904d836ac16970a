"""The code passes ruff with the rules pyproject.toml selects, and CI runs ruff and mypy before the tests."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing() -> None:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ci_runs_the_linter_and_the_type_checker_before_the_tests() -> None:
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    steps = [line for line in lines if line.startswith(".venv/bin/python")]
    assert steps[-3:] == [
        ".venv/bin/python -m ruff check .",
        ".venv/bin/python tools/typecheck.py",
        ".venv/bin/python -m pytest",
    ]


def _typecheck() -> Any:
    spec = importlib.util.spec_from_file_location("typecheck", ROOT / "tools" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_typecheck_tree_mirrors_the_package_layout(tmp_path: Path) -> None:
    typecheck = _typecheck()
    tree = typecheck.build_tree(tmp_path)
    assert (tree / "__init__.py").resolve() == ROOT / "doctor" / "__init__.py"
    assert (tree / "checks").resolve() == ROOT / "checks"
    assert (tree / "trainers").resolve() == ROOT / "trainers"
    assert (tree / "probes" / "nvml.py").resolve() == ROOT / "doctor" / "probes" / "nvml.py"
    line = "gpudoctor/checks/driver.py:3: error: x  [misc] (see gpudoctor/model.py)"
    assert typecheck.map_back(line, tree) == "checks/driver.py:3: error: x  [misc] (see doctor/model.py)"
