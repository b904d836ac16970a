"""One parsed script, indexed once for every rule: imports, scopes, name bindings, calls and loops."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

Pos = Tuple[int, int]
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPE_TYPES = frozenset(SCOPES)
LOOP_TYPES = frozenset({ast.For, ast.AsyncFor})
BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr})


@dataclass(frozen=True)
class Binding:
    """``name`` gets a value at ``pos`` (visible after it): an expression, a loop item, or a parameter."""

    name: str
    pos: Pos
    value: Optional[ast.expr]
    how: str  # "assign", "iter" (an item of value), "param", "unpack" (an element of value), "other"
    node: ast.AST


@dataclass
class Scope:
    """A function body (or the module): its bindings by name, in source order."""

    node: ast.AST
    bindings: Dict[str, List[Binding]] = field(default_factory=dict)

    def add(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)


def key_of(expr: ast.AST) -> Optional[str]:
    """``x`` -> "x", ``self.model`` -> "self.model"; None for anything else."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}"
    return None


def end_pos(node: ast.AST) -> Pos:
    line = getattr(node, "end_lineno", None) or getattr(node, "lineno", 0)
    col = getattr(node, "end_col_offset", None) or 0
    return (int(line), int(col))  # type: ignore[arg-type]


def start_pos(node: ast.AST) -> Pos:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


class Script:
    """The tree of one script and the indexes rules share; never imports or runs the script."""

    def __init__(self, tree: ast.Module, path: str = "<script>") -> None:
        self.tree = tree
        self.path = path
        self.imports: Dict[str, str] = {}
        self.parents: Dict[int, ast.AST] = {}
        self.scope_of: Dict[int, Scope] = {}
        self.module_scope = Scope(tree)
        self.scopes: List[Scope] = [self.module_scope]
        self.calls: List[ast.Call] = []
        self.loops: List[ast.stmt] = []
        self.classes: Dict[str, ast.ClassDef] = {}
        self.strings: List[ast.Constant] = []
        self.attrs: Dict[str, List[Binding]] = {}  # self.x bindings, file-wide
        self.cache: Dict[str, Any] = {}  # what rules compute once and share
        self._qualnames: Dict[int, Optional[str]] = {}
        self._loops_around: Dict[int, List[ast.stmt]] = {}
        self._index(tree, self.module_scope)
        self.module_classes: Set[str] = self._module_classes()
        from gpudoctor.lint.flow import Flow

        self.flow = Flow(self)

    # -- indexing --------------------------------------------------------------------------------------------
    def _index(self, node: ast.AST, scope: Scope) -> None:
        """One pass over the tree: parents, scopes, calls, loops, strings, imports and bindings."""
        stack: List[Tuple[ast.AST, Scope]] = [(node, scope)]
        parents, scope_of = self.parents, self.scope_of
        while stack:
            current, sc = stack.pop()
            scope_of[id(current)] = sc
            inner = sc
            kind = type(current)
            if kind is ast.Call:
                self.calls.append(current)  # type: ignore[arg-type]
            elif kind is ast.Constant:
                if isinstance(current.value, str):  # type: ignore[attr-defined]
                    self.strings.append(current)  # type: ignore[arg-type]
            elif kind in BINDERS:
                self._bind(current, sc)
                if kind in LOOP_TYPES:
                    self.loops.append(current)  # type: ignore[arg-type]
            elif kind is ast.While:
                self.loops.append(current)  # type: ignore[arg-type]
            elif kind in SCOPE_TYPES:
                inner = Scope(current)
                self.scopes.append(inner)
                self._params(current, inner)
            elif kind is ast.ClassDef:
                self.classes[current.name] = current  # type: ignore[attr-defined,assignment]
            elif kind is ast.Import or kind is ast.ImportFrom:
                self._import(current)  # type: ignore[arg-type]
            for name in current._fields:
                value = getattr(current, name, None)
                if type(value) is list:
                    for child in value:
                        if isinstance(child, ast.AST):
                            parents[id(child)] = current
                            stack.append((child, inner))
                elif isinstance(value, ast.AST) and name != "ctx":
                    parents[id(value)] = current
                    stack.append((value, inner))
        self.calls.sort(key=start_pos)
        self.loops.sort(key=start_pos)
        self.strings.sort(key=start_pos)
        for table in [sc.bindings for sc in self.scopes] + [self.attrs]:
            for bindings in table.values():
                bindings.sort(key=lambda b: b.pos)

    def _import(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.imports[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _params(self, func: ast.AST, scope: Scope) -> None:
        args = func.args  # type: ignore[attr-defined]
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                scope.add(Binding(arg.arg, start_pos(func), None, "param", arg))

    def _bind(self, node: ast.AST, scope: Scope) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._target(target, node.value, "assign", end_pos(node), scope, node)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            how = "assign" if isinstance(node, ast.AnnAssign) else "other"
            self._target(node.target, node.value, how, end_pos(node), scope, node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._loop_target(node.target, node.iter, end_pos(node.iter), scope, node)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._target(node.optional_vars, None, "other", end_pos(node.context_expr), scope, node)
        elif isinstance(node, ast.NamedExpr):
            self._target(node.target, node.value, "assign", end_pos(node), scope, node)

    def _loop_target(self, target: ast.AST, items: ast.expr, pos: Pos, scope: Scope, node: ast.AST) -> None:
        """``for i, (x, y) in enumerate(loader)``: ``i`` is a counter; ``zip(a, b)`` pairs its arguments."""
        if isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.args \
                and isinstance(target, (ast.Tuple, ast.List)):
            if items.func.id == "enumerate" and len(target.elts) == 2:
                self._target(target.elts[0], None, "other", pos, scope, node)
                self._loop_target(target.elts[1], items.args[0], pos, scope, node)
                return
            if items.func.id == "zip" and len(target.elts) == len(items.args):
                for element, source in zip(target.elts, items.args):
                    self._loop_target(element, source, pos, scope, node)
                return
        self._target(target, items, "iter", pos, scope, node)

    def _target(self, target: ast.AST, value: Optional[ast.expr], how: str, pos: Pos, scope: Scope,
                node: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and how == "assign" else None
            for index, element in enumerate(target.elts):
                if values is not None and len(values) == len(target.elts):
                    self._target(element, values[index], how, pos, scope, node)
                else:
                    self._target(element, value, "unpack" if how == "assign" else how, pos, scope, node)
            return
        if isinstance(target, ast.Starred):
            self._target(target.value, value, "other", pos, scope, node)
            return
        key = key_of(target)
        if key is None:
            return
        binding = Binding(key, pos, value, how, node)
        if isinstance(target, ast.Attribute):
            self.attrs.setdefault(key, []).append(binding)
        else:
            scope.add(binding)

    def _module_classes(self) -> Set[str]:
        found: Set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, cls in self.classes.items():
                if name not in found and any(self._is_module_base(b, found) for b in cls.bases):
                    found.add(name)
                    changed = True
        return found

    def _is_module_base(self, base: ast.expr, known: Set[str]) -> bool:
        if isinstance(base, ast.Name) and base.id in known:
            return True
        name = self.qualname(base) or ""
        return name.startswith("torch.nn.") or name.endswith(("Module", "LightningModule"))

    # -- queries ---------------------------------------------------------------------------------------------
    def qualname(self, expr: ast.AST) -> Optional[str]:
        """``nn.Linear`` -> "torch.nn.Linear" through the script's imports; None when not a dotted name."""
        key = id(expr)
        if key not in self._qualnames:
            self._qualnames[key] = self._qualname(expr)
        return self._qualnames[key]

    def _qualname(self, expr: ast.AST) -> Optional[str]:
        parts: List[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        head = self.imports.get(expr.id, expr.id)
        return ".".join([head, *reversed(parts)])

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(id(node))

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parents.get(id(node))
        while current is not None:
            yield current
            current = self.parents.get(id(current))

    def scope(self, node: ast.AST) -> Scope:
        return self.scope_of.get(id(node), self.module_scope)

    def lookup(self, key: str, node: ast.AST) -> List[Binding]:
        """The bindings of ``key`` that can reach ``node``: the latest one in its scope before it, else all of
        the module's (or, for ``self.x``, all of the file's)."""
        if "." in key:
            return list(self.attrs.get(key, []))
        scope = self.scope(node)
        at = start_pos(node)
        own = scope.bindings.get(key)
        if own:
            before = [b for b in own if b.pos <= at]
            return before[-1:] if before else []
        if scope is not self.module_scope:
            return list(self.module_scope.bindings.get(key, []))
        return []

    def method(self, call: ast.Call) -> Optional[str]:
        return call.func.attr if isinstance(call.func, ast.Attribute) else None

    def loops_around(self, node: ast.AST) -> List[ast.stmt]:
        """Enclosing loops of ``node`` in its own function, innermost first."""
        cached = self._loops_around.get(id(node))
        if cached is not None:
            return cached
        found: List[ast.stmt] = []
        for anc in self.ancestors(node):
            if isinstance(anc, SCOPES + (ast.Lambda, ast.ClassDef)):
                break
            if isinstance(anc, LOOPS):
                found.append(anc)
        self._loops_around[id(node)] = found
        return found

    def walk_local(self, nodes: List[ast.stmt]) -> Iterator[ast.AST]:
        """Every node under ``nodes``, not descending into nested functions, lambdas or classes."""
        stack: List[ast.AST] = list(reversed(nodes))
        while stack:
            current = stack.pop()
            yield current
            if isinstance(current, SCOPES + (ast.Lambda, ast.ClassDef)):
                continue
            stack.extend(reversed(list(ast.iter_child_nodes(current))))
