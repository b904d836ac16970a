"""Checks are pure: importing them loads no torch, NVML, ctypes or probe code, and their source imports none of those, nor subprocess."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

CHECKS_DIR = Path(__file__).resolve().parent.parent / "checks"
FORBIDDEN = ("torch", "torchvision", "pynvml", "subprocess", "ctypes", "gpudoctor.probes", "multiprocessing")


def _forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


# What importing the checks may not load; packaging's own imports (subprocess among them) are its business.
LOADED_FORBIDDEN = ("torch", "torchvision", "pynvml", "ctypes", "gpudoctor.probes")


def test_importing_checks_loads_nothing_that_touches_the_machine() -> None:
    code = (
        "import json, sys\n"
        "import gpudoctor.checks.builtin\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = [name for name in json.loads(out.stdout)
              if any(name == bad or name.startswith(bad + ".") for bad in LOADED_FORBIDDEN)]
    assert loaded == []


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            found += [arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            found += [arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    return found


def test_no_check_module_imports_machine_touching_code() -> None:
    files = sorted(CHECKS_DIR.glob("*.py"))
    assert files
    offenders = {path.name: bad for path in files if (bad := [m for m in _imports(path) if _forbidden(m)])}
    assert offenders == {}


def test_the_scan_catches_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import os\nfrom gpudoctor.probes import nvml\nimport ctypes.util\n__import__('torch')\n")
    assert [m for m in _imports(sample) if _forbidden(m)] == ["gpudoctor.probes", "gpudoctor.probes.nvml", "ctypes.util", "torch"]
