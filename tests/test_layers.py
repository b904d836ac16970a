"""The import-layer contract, read from the source: no import cycles, and each layer imports only what it may.

Facts and model sit at the bottom; probes, parsers and checks beside each other above them, none
importing another; runner, renderers and the commands on top. Imports inside functions count too,
except for the cycle rule, which is about what importing a module loads.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"doctor": "gpudoctor", "checks": "gpudoctor.checks", "trainers": "gpudoctor.trainers"}


def _modules() -> Dict[str, Path]:
    found: Dict[str, Path] = {}
    for folder, name in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            found[".".join([name, *parts])] = path
    return found


MODULES = _modules()


def _target(node: ast.ImportFrom, module: str, path: Path) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, top_level_only: bool) -> Set[str]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: List[ast.AST] = []
    if top_level_only:
        for node in tree.body:
            nodes += node.body if isinstance(node, ast.If) else [node]  # `if TYPE_CHECKING:` blocks
    else:
        nodes = list(ast.walk(tree))
    out: Set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _target(node, module, path)
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in out if name in MODULES and name != module}


def _layer_imports(prefix: str) -> Dict[str, Set[str]]:
    return {m: _imports(m, False) for m in MODULES if m == prefix or m.startswith(prefix + ".")}


def _cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def _outside(imports: Dict[str, Set[str]], allowed: Set[str]) -> Dict[str, List[str]]:
    def ok(name: str) -> bool:
        return any(name == a or name.startswith(a + ".") for a in allowed)

    return {m: sorted(n for n in names if not ok(n)) for m, names in imports.items() if any(not ok(n) for n in names)}


def test_importing_any_module_loads_no_cycle() -> None:
    graph = {m: _imports(m, True) for m in MODULES}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_checks_import_only_facts_model_compat_and_their_helpers() -> None:
    allowed = {"gpudoctor.checks", "gpudoctor.facts", "gpudoctor.verify_facts", "gpudoctor.distributed_facts",
               "gpudoctor.plain", "gpudoctor.model", "gpudoctor.compat", "gpudoctor.registry", "gpudoctor.shell", "gpudoctor.plausible"}
    imports = _layer_imports("gpudoctor.checks")
    imports = {m: names - {"gpudoctor"} for m, names in imports.items()}  # the package root holds the version
    assert _outside(imports, allowed) == {}


def test_probes_never_import_checks_parsers_renderers_or_commands() -> None:
    forbidden = ("gpudoctor.checks", "gpudoctor.parsers", "gpudoctor.render", "gpudoctor.runner", "gpudoctor.cli",
                 "gpudoctor.api", "gpudoctor.fleet", "gpudoctor.lint", "gpudoctor.registry")
    imports = _layer_imports("gpudoctor.probes")
    bad = {m: sorted(n for n in names if n.startswith(forbidden)) for m, names in imports.items()}
    assert {m: names for m, names in bad.items() if names} == {}


def test_renderers_never_probe_or_judge() -> None:
    forbidden = ("gpudoctor.probes", "gpudoctor.checks", "gpudoctor.runner", "gpudoctor.trainers",
                 "gpudoctor.verification")
    imports = _layer_imports("gpudoctor.render")
    bad = {m: sorted(n for n in names if n.startswith(forbidden)) for m, names in imports.items()}
    assert {m: names for m, names in bad.items() if names} == {}


def test_facts_and_model_import_nothing_above_them() -> None:
    bottom = {"gpudoctor.facts", "gpudoctor.verify_facts", "gpudoctor.distributed_facts", "gpudoctor.plain",
              "gpudoctor.model", "gpudoctor.textsafe"}
    imports = {m: _imports(m, False) for m in bottom}
    assert _outside(imports, bottom) == {}
