"""Checks do not scrape text with regular expressions: error and tool texts are classified in gpudoctor.facts.

Every regular expression left in a check module is listed here with the reason it is not classifying error or
tool text; a new one fails this test until it moves to ``gpudoctor.facts.derive`` (or a sibling) or is listed.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Tuple

CHECKS_DIR = Path(__file__).resolve().parent.parent / "checks"
MATCHERS = frozenset({"search", "match", "fullmatch", "compile", "findall", "finditer"})

# (module, the pattern as written) -> why it may stay in the check.
ALLOWED: Dict[Tuple[str, str], str] = {
    ("devices.py", "'^\\\\+?(\\\\d+)'"): "parses a CUDA_VISIBLE_DEVICES entry, a setting, not error text",
    ("paste_jetson.py", "'\\\\+nv\\\\d|\\\\.nv\\\\d|a0\\\\+\\\\w+\\\\.nv'"):
        "reads the local tag of a torch version (NVIDIA's Jetson builds), not error text",
    ("devices_map.py", "'(?:([0-9a-fA-F]+):)?([0-9a-fA-F]+):([0-9a-fA-F]+)\\\\.([0-7])'"):
        "parses a PCI bus id field to compare two numberings",
    ("devices_map.py", "'^\\\\+?(\\\\d+)'"): "parses a CUDA_VISIBLE_DEVICES entry, a setting, not error text",
    ("env_vars.py", "'\\\\d+'"): "reads the number an environment variable is set to",
    ("env_vars.py", "'\\\\d*\\\\.?\\\\d+(?:[eE][-+]?\\\\d+)?'"): "reads the number an environment variable is set to",
    ("libs_shadowed.py", "'/(site|dist)-packages/(nvidia|torch|torch\\\\.libs|torchvision\\\\.libs|torchaudio\\\\.libs|triton)/'"):
        "tells a pip-wheel library path from a system one (a path, not error text)",
    ("libs_shadowed.py", "'cuda|cudnn|nccl|nvidia'"):
        "picks LD_LIBRARY_PATH entries to show (a setting, not error text)",
    ("toolkit.py", "'[\\\\\\\\/]'"): "whether a path has a folder part, to print it",
    ("toolkit.py", "f'nvidia-{re.escape(component)}(-cu\\\\d+)?'"): "matches a wheel name against a component",
    ("toolkit.py", "'nvidia-[a-z0-9-]+?-cu(\\\\d+)'"): "reads the CUDA suffix of a wheel name",
    ("toolkit.py", "'(\\\\d+)\\\\.'"): "reads a package version's major number",
    ("toolkit.py", "'^(.*?)/(lib/python[\\\\d.]+|Lib)/site-packages/torch/?$'"):
        "turns torch's install folder into its environment prefix for a fix",
    ("torch_builds.py", "'\\\\+cu\\\\d'"): "reads the local version label of torch's own version string",
    ("torchvision.py", "'^\\\\s*([A-Za-z0-9][A-Za-z0-9._-]*)\\\\s*(?:\\\\[[^\\\\]]*\\\\])?\\\\s*\\\\(?\\\\s*([^;()]*?)\\\\s*\\\\)?\\\\s*(;.*)?$'"):
        "parses a Requires-Dist requirement of package metadata",
    ("torchvision.py", "'^(===|==|!=|~=|>=|<=|>|<)\\\\s*([A-Za-z0-9.*+!_-]+)$'"): "parses one requirement clause",
    ("torchvision.py", "'^===?([0-9][0-9.]*)$'"): "reads an exact version pin",
    ("windows.py", "'CUDA[\\\\\\\\/]v(\\\\d+(?:\\\\.\\\\d+)?)[\\\\\\\\/]bin'"): "reads a CUDA Toolkit version from a PATH entry",
    ("windows.py", "'(\\\\d+)\\\\.(\\\\d+)'"): "reads a version's major and minor numbers",
    ("paste_libraries.py", "'^\\\\s*v?(\\\\d+)\\\\.(\\\\d+)'"): "reads a listed package version's major and minor numbers",
}


def _calls(path: Path) -> List[Tuple[str, str]]:
    """(module, pattern) of each call of re's matchers in ``path``, and of matchers imported from re by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "re" for alias in node.names if alias.name in MATCHERS}
    found: List[Tuple[str, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        by_module = isinstance(func, ast.Attribute) and func.attr in MATCHERS and isinstance(func.value, ast.Name) \
            and func.value.id == "re"
        if by_module or (isinstance(func, ast.Name) and func.id in imported):
            found.append((path.name, ast.unparse(node.args[0]) if node.args else "?"))
    return found


def _check_modules() -> List[Path]:
    return sorted(CHECKS_DIR.glob("*.py"))


def test_checks_call_no_regular_expression_but_the_listed_ones() -> None:
    found = [call for path in _check_modules() for call in _calls(path)]
    assert [call for call in found if call not in ALLOWED] == []


def test_every_listed_expression_is_still_in_its_check() -> None:
    found = {call for path in _check_modules() for call in _calls(path)}
    assert [key for key in ALLOWED if key not in found] == []


def test_the_scan_sees_a_regular_expression_on_error_text(tmp_path: Path) -> None:
    module = tmp_path / "scraper.py"
    module.write_text("import re\nfrom re import search as s\n\n"
                      "def f(t):\n    return re.search(r'Error 804', t) or s('busy', t) or re.compile('x')\n",
                      encoding="utf-8")
    assert _calls(module) == [("scraper.py", "'Error 804'"), ("scraper.py", "'busy'"), ("scraper.py", "'x'")]
