"""What an expression holds (a tensor, a module, a data loader) and where (CPU or GPU), from the data flow.

Everything here is a conservative guess from the source alone: UNKNOWN whenever the flow does not show it,
so that rules built on it stay quiet rather than wrong.
"""

from __future__ import annotations

import ast
import enum
from typing import TYPE_CHECKING, Dict, Optional, Tuple

from gpudoctor.lint.names import (CREATORS, DEVICE_NAME, DTYPES, KEEPS_KIND, MODULE_PARAM, NOT_TENSOR,
                                   TENSOR_METHODS, WRAPPERS)

if TYPE_CHECKING:
    from gpudoctor.lint.script import Binding, Script


class Kind(enum.Enum):
    """What a value is."""

    TENSOR = "tensor"
    MODULE = "module"
    LOADER = "loader"
    UNKNOWN = "unknown"


class Place(enum.Enum):
    """Where a tensor or module lives."""

    CPU = "cpu"
    GPU = "gpu"
    UNKNOWN = "unknown"


DEPTH = 12


def device_place(arg: ast.expr) -> Optional[Place]:
    """The place a ``.to(arg)``/``device=arg`` names: CPU, GPU (any device that may be a GPU), or None when
    ``arg`` is a dtype or cannot be told."""
    if isinstance(arg, ast.Constant):
        if isinstance(arg.value, str):
            text = arg.value.strip().lower()
            if text == "cpu":
                return Place.CPU
            return Place.GPU if text.startswith("cuda") else None
        if isinstance(arg.value, int) and not isinstance(arg.value, bool):
            return Place.GPU
        return None
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "torch":
        return None  # torch.float16 and other dtypes
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "device" and arg.args:
        return device_place(arg.args[0])
    if isinstance(arg, ast.IfExp):
        sides = {device_place(arg.body), device_place(arg.orelse)}
        return Place.GPU if Place.GPU in sides else (sides.pop() if len(sides) == 1 else None)
    text = ast.unparse(arg) if isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript)) else ""
    if text.split(".")[-1] in DTYPES:
        return None
    return Place.GPU if DEVICE_NAME.search(text) else None


def move_target(call: ast.Call) -> Optional[Place]:
    """Where ``x.to(...)``/``x.cuda()``/``x.cpu()`` sends ``x``; None for a dtype-only ``.to``."""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if method == "cuda":
        return Place.GPU
    if method == "cpu":
        return Place.CPU
    if method != "to":
        return None
    for kw in call.keywords:
        if kw.arg == "device":
            return device_place(kw.value)
    return device_place(call.args[0]) if call.args else None


def keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


class Flow:
    """Kind and place of expressions in one script, memoised."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._kinds: Dict[int, Kind] = {}
        self._places: Dict[int, Place] = {}

    # -- kinds -----------------------------------------------------------------------------------------------
    def kind(self, expr: Optional[ast.AST], depth: int = 0) -> Kind:
        if expr is None or depth > DEPTH:
            return Kind.UNKNOWN
        cached = self._kinds.get(id(expr))
        if cached is None:
            cached = self._kind(expr, depth + 1)
            self._kinds[id(expr)] = cached
        return cached

    def _kind(self, expr: ast.AST, depth: int) -> Kind:
        s = self.script
        if isinstance(expr, ast.Call):
            return self._call_kind(expr, depth)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            key = _key(expr)
            if key is not None and (key in s.imports or s.qualname(expr) != key):
                return Kind.UNKNOWN  # a module or a name imported from one
            if isinstance(expr, ast.Attribute) and expr.attr in ("data", "T", "grad", "mT"):
                return Kind.TENSOR if self.kind(expr.value, depth) is Kind.TENSOR else Kind.UNKNOWN
            if key is None:
                return Kind.UNKNOWN
            return self._agree([self._binding_kind(b, depth) for b in s.lookup(key, expr)])
        if isinstance(expr, ast.Subscript):
            return Kind.TENSOR if self.kind(expr.value, depth) is Kind.TENSOR else Kind.UNKNOWN
        if isinstance(expr, ast.BinOp):
            kinds = {self.kind(expr.left, depth), self.kind(expr.right, depth)}
            return Kind.TENSOR if Kind.TENSOR in kinds else Kind.UNKNOWN
        if isinstance(expr, ast.UnaryOp):
            return self.kind(expr.operand, depth)
        if isinstance(expr, ast.IfExp):
            return self._agree([self.kind(expr.body, depth), self.kind(expr.orelse, depth)])
        return Kind.UNKNOWN

    def _call_kind(self, call: ast.Call, depth: int) -> Kind:
        s = self.script
        name = s.qualname(call.func) or ""
        parts = name.split(".")
        if name.startswith("torch.utils.data.") and parts[-1] == "DataLoader":
            return Kind.LOADER
        if name.startswith("torch.nn.functional."):
            return Kind.TENSOR
        if name.startswith("torch.nn.") and parts[-1][:1].isupper():
            return Kind.TENSOR if parts[-1] == "Parameter" else Kind.MODULE
        if name.startswith(("torchvision.models.", "torch.hub.load", "timm.create_model")):
            return Kind.MODULE
        if name in ("torch.compile", "torch.jit.script", "torch.jit.trace", "copy.deepcopy") and call.args:
            return self.kind(call.args[0], depth)
        if len(parts) == 2 and parts[0] == "torch":
            return Kind.UNKNOWN if parts[1] in NOT_TENSOR else Kind.TENSOR
        if len(parts) == 3 and parts[:2] == ["torch", "cuda"] and parts[2] in CREATORS:
            return Kind.TENSOR
        if isinstance(call.func, ast.Name) and call.func.id in s.module_classes:
            return Kind.MODULE
        method = s.method(call)
        if method is not None:
            receiver = self.kind(call.func.value, depth)  # type: ignore[attr-defined]
            if method in KEEPS_KIND and receiver is not Kind.UNKNOWN:
                return receiver
            if method in TENSOR_METHODS and receiver is Kind.TENSOR:
                return Kind.TENSOR
        if self.kind(call.func, depth) is Kind.MODULE:
            return Kind.TENSOR  # a module's output
        return Kind.UNKNOWN

    def _binding_kind(self, binding: Binding, depth: int) -> Kind:
        if binding.how == "param":
            return Kind.MODULE if MODULE_PARAM.match(binding.name.split(".")[-1]) else Kind.UNKNOWN
        if binding.how == "iter":
            source = _iterated(binding.value)
            return Kind.TENSOR if self.kind(source, depth) in (Kind.LOADER, Kind.TENSOR) else Kind.UNKNOWN
        if binding.how == "unpack":
            return Kind.TENSOR if self.kind(binding.value, depth) is Kind.TENSOR else Kind.UNKNOWN
        if binding.how == "assign":
            return self.kind(binding.value, depth)
        return Kind.UNKNOWN

    @staticmethod
    def _agree(kinds: list[Kind]) -> Kind:
        return kinds[0] if kinds and all(k is kinds[0] for k in kinds) else Kind.UNKNOWN

    # -- places ----------------------------------------------------------------------------------------------
    def place(self, expr: Optional[ast.AST], depth: int = 0) -> Place:
        if expr is None or depth > DEPTH:
            return Place.UNKNOWN
        cached = self._places.get(id(expr))
        if cached is None:
            cached = self._place(expr, depth + 1)
            self._places[id(expr)] = cached
        return cached

    def _place(self, expr: ast.AST, depth: int) -> Place:
        s = self.script
        if isinstance(expr, ast.Call):
            target = move_target(expr)
            if target is not None:
                return target
            name = s.qualname(expr.func) or ""
            parts = name.split(".")
            device = keyword(expr, "device")
            if device is not None:
                return device_place(device) or Place.UNKNOWN
            if len(parts) == 2 and parts[0] == "torch" and parts[1] in CREATORS:
                return Place.CPU
            if len(parts) == 3 and parts[:2] == ["torch", "cuda"] and parts[2] in CREATORS:
                return Place.GPU
            if name == "copy.deepcopy" and expr.args:
                return self.place(expr.args[0], depth)
            if self.kind(expr, depth) is Kind.MODULE and not s.method(expr):
                wrapped = [a for a in [*expr.args, *(k.value for k in expr.keywords)]
                           if self.kind(a, depth) is Kind.MODULE]
                if wrapped:  # DistributedDataParallel(model), torch.compile(model): where the model is
                    return self.place(wrapped[0], depth)
                if parts[-1] in WRAPPERS:
                    return Place.UNKNOWN  # wraps something the flow cannot follow
                return Place.CPU  # a freshly built module
            method = s.method(expr)
            if method in TENSOR_METHODS and method not in ("to", "cuda", "cpu"):
                return self.place(expr.func.value, depth)  # type: ignore[attr-defined]
            if self.kind(expr.func, depth) is Kind.MODULE:
                return self.place(expr.func, depth)
            return Place.UNKNOWN
        if isinstance(expr, ast.Subscript):
            return self.place(expr.value, depth)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            key = _key(expr)
            if key is None:
                return Place.UNKNOWN
            bindings = s.lookup(key, expr)
            if len(bindings) != 1:
                return Place.UNKNOWN
            base = self._binding_place(bindings[0], depth)
            kind = self.kind(expr, depth)
            return base if kind is Kind.TENSOR else self._moved_since(bindings[0], expr, base, kind is Kind.MODULE)
        if isinstance(expr, ast.BinOp):
            places = {self.place(expr.left, depth), self.place(expr.right, depth)}
            return places.pop() if len(places) == 1 else Place.UNKNOWN
        return Place.UNKNOWN

    def _binding_place(self, binding: Binding, depth: int) -> Place:
        if binding.how == "iter":
            source = _iterated(binding.value)
            return Place.CPU if self.kind(source, depth) is Kind.LOADER else self.place(source, depth)
        if binding.how in ("assign", "unpack"):
            return self.place(binding.value, depth)
        return Place.UNKNOWN

    def _moved_since(self, binding: Binding, use: ast.AST, place: Place, module: bool) -> Place:
        """A module moves in place: ``model.to(device)`` between the binding and the use; a name handed to
        another function may have been moved there, so it becomes UNKNOWN."""
        s = self.script
        scope = s.scope(binding.node)
        key = binding.name
        lo, hi = binding.pos, (getattr(use, "lineno", 0), getattr(use, "col_offset", 0))
        if scope is not s.scope(use):
            hi = (1 << 30, 0)  # a global used in a function: after every move of it at its own level
        for call in s.calls:
            at = (call.lineno, call.col_offset)
            if at < lo:
                continue
            if at >= hi:
                break
            if s.scope(call) is not scope:
                continue
            if isinstance(call.func, ast.Attribute) and _key(call.func.value) == key:
                target = move_target(call)
                if target is not None:
                    place = target if module else Place.UNKNOWN
            elif any(_key(a) == key for a in [*call.args, *(k.value for k in call.keywords)]):
                place = Place.UNKNOWN
        return place


def _key(expr: ast.AST) -> Optional[str]:
    from gpudoctor.lint.script import key_of

    return key_of(expr)


def _iterated(value: Optional[ast.expr]) -> Optional[ast.expr]:
    """The collection a for loop walks: ``enumerate(loader)`` and ``tqdm(loader)`` walk ``loader``."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args and \
            value.func.id in ("enumerate", "tqdm", "iter", "list", "reversed"):
        value = value.args[0]
    return value


def sole(values: Tuple[Place, ...]) -> Place:
    return values[0] if values and all(v is values[0] for v in values) else Place.UNKNOWN
