"""Read pytorch/test-infra's generate_binary_build_matrix.py without running it: its literal tables, per channel.

The file is someone else's code, so it is only parsed (``ast``): top-level assignments whose value is a literal
are read with ``ast.literal_eval``, and the few conditional additions the file makes to its CUDA lists
(``CUDA_ARCHES.append("12.9")`` under ``if channel != "release" and os == LINUX:``) are found by their shape and
their condition is evaluated over string constants only. Anything else is ignored, never executed.
"""

from __future__ import annotations

import ast
import enum
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

MATRIX_PATH = "tools/scripts/generate_binary_build_matrix.py"
_LIMIT = 1024 * 1024
_NAMES = (
    "PYTHON_ARCHES_DICT", "CUDA_ARCHES_DICT", "CUDA_CUDNN_VERSIONS", "STABLE_CUDA_VERSIONS", "CUDA_AARCH64_ARCHES",
    "CUDA_AARCH64_ARCHES_DICT", "CUDA_ARCHES_NO_WINDOWS", "CURRENT_STABLE_VERSION", "CURRENT_CANDIDATE_VERSION",
    "CURRENT_NIGHTLY_VERSION",
)
_LISTS = ("CUDA_ARCHES", "CUDA_AARCH64_ARCHES")
REMOVED = "removed"
_CUDA = re.compile(r"^\d+\.\d+(-aarch64)?$")
_OSES = {"linux": "linux", "aarch64": "linux-aarch64", "windows": "windows"}


class Channel(str, enum.Enum):
    """The three build channels of the file: what ships (release), the candidate (test), and nightly."""

    RELEASE = "release"
    TEST = "test"
    NIGHTLY = "nightly"

    @property
    def version_name(self) -> str:
        return {"release": "CURRENT_STABLE_VERSION", "test": "CURRENT_CANDIDATE_VERSION",
                "nightly": "CURRENT_NIGHTLY_VERSION"}[self.value]


class MatrixError(Exception):
    """The file could not be parsed; the message is one line."""


@dataclass(frozen=True)
class Extra:
    """A CUDA version the file adds to a list inside a function, with the condition it is added under."""

    target: str  # "CUDA_ARCHES", "CUDA_AARCH64_ARCHES", or REMOVED for ``arches.remove("12.8")`` on any list
    value: str  # "12.9" or "12.9-aarch64"
    conditions: Tuple[str, ...]  # ast.unparse of each enclosing if-test
    defaults: Tuple[Tuple[str, object], ...] = ()  # the function's parameters that default to a constant


@dataclass(frozen=True)
class MatrixFile:
    """The literal tables of one version of the file."""

    values: Dict[str, object]
    constants: Dict[str, str]  # module-level NAME = "string"
    extras: Tuple[Extra, ...]
    conditions: Dict[str, ast.expr]  # unparsed condition -> its node, for evaluation


@dataclass(frozen=True)
class ChannelMatrix:
    """What one channel of the file builds: the torch version and its CUDA, Python and cuDNN lists."""

    torch: str
    linux: Tuple[str, ...]  # ("cu126", "cu130")
    aarch64: Optional[Tuple[str, ...]]  # None: the file has no aarch64 CUDA list
    windows: Tuple[str, ...]  # the x86_64 list less CUDA_ARCHES_NO_WINDOWS and Linux-only additions
    python: Tuple[str, ...]
    stable: Optional[str]  # "cu130", the variant installed without --index-url
    cudnn: Tuple[Tuple[str, str], ...]  # (("cu126", "9"), ...)


def parse(text: str, where: str = MATRIX_PATH) -> MatrixFile:
    """The literal tables of the file's text; MatrixError (one line) when it is not Python."""
    if len(text) > _LIMIT:
        raise MatrixError(f"{where} is larger than {_LIMIT} bytes")
    try:
        tree = ast.parse(text, filename=where)
    except (SyntaxError, ValueError) as error:
        raise MatrixError(f"{where} is not Python ({error.__class__.__name__}: {getattr(error, 'msg', error)})") from None
    values: Dict[str, object] = {}
    constants: Dict[str, str] = {}
    for node in tree.body:
        target, value = _assignment(node)
        if target is None or value is None:
            continue
        try:
            literal = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(literal, str):
            constants[target] = literal
        if target in _NAMES:
            values[target] = literal
    extras: List[Extra] = []
    conditions: Dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            _collect(node.body, (), extras, conditions, _defaults(node))
    return MatrixFile(values, constants, tuple(extras), conditions)


def _assignment(node: ast.stmt) -> Tuple[Optional[str], Optional[ast.expr]]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    return None, None


def _defaults(function: ast.FunctionDef) -> Tuple[Tuple[str, object], ...]:
    """(parameter, default) for the parameters whose default is a constant: ``getting_started: bool = False``."""
    args = function.args.args
    pairs = zip(args[len(args) - len(function.args.defaults):], function.args.defaults)
    return tuple((arg.arg, value.value) for arg, value in pairs if isinstance(value, ast.Constant))


def _collect(body: Sequence[ast.stmt], tests: Tuple[ast.expr, ...], out: List[Extra],
             conditions: Dict[str, ast.expr], defaults: Tuple[Tuple[str, object], ...] = ()) -> None:
    for node in body:
        if isinstance(node, ast.If):
            _collect(node.body, tests + (node.test,), out, conditions, defaults)
            continue
        for target, value in _additions(node):
            texts = tuple(ast.unparse(test) for test in tests)
            conditions.update(zip(texts, tests))
            out.append(Extra(target, value, texts, defaults))


def _additions(node: ast.stmt) -> List[Tuple[str, str]]:
    """``X.append("v")`` and ``X = X + ["v", ...]`` for the CUDA lists; ``arches.remove("12.8")`` as REMOVED."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and len(call.args) == 1
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
            literal = call.args[0].value
            if func.attr == "append" and func.value.id in _LISTS:
                return [(func.value.id, literal)]
            if func.attr == "remove" and "arch" in func.value.id.lower() and _CUDA.match(literal):
                return [(REMOVED, literal)]
    target, value = _assignment(node)
    if (target in _LISTS and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)
            and isinstance(value.left, ast.Name) and value.left.id == target and isinstance(value.right, ast.List)):
        found = [item.value for item in value.right.elts if isinstance(item, ast.Constant)]
        if all(isinstance(item, str) for item in found):
            return [(str(target), str(item)) for item in found]
    return []


def _evaluate(node: ast.expr, names: Dict[str, object]) -> Optional[object]:
    """A condition over string names and constants: True/False, a string or tuple; None when it is anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bool)):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_evaluate(item, names) for item in node.elts]
        return None if any(item is None for item in items) else tuple(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _evaluate(node.operand, names)
        return None if not isinstance(inner, bool) else not inner
    if isinstance(node, ast.BoolOp):
        parts = [_evaluate(value, names) for value in node.values]
        if any(not isinstance(part, bool) for part in parts):
            return None
        return all(parts) if isinstance(node.op, ast.And) else any(parts)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _evaluate(node.left, names), _evaluate(node.comparators[0], names)
        if left is None or right is None:
            return None
        op = node.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)):
            return (left == right) == isinstance(op, ast.Eq)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, tuple):
            return (left in right) == isinstance(op, ast.In)
    return None


def _applies(matrix: MatrixFile, extra: Extra, channel: Channel, os_names: Sequence[str]) -> bool:
    """Whether every condition of an addition holds for the channel and one of the OS names; unknown is no."""
    for os_name in os_names:
        names: Dict[str, object] = dict(matrix.constants)
        names.update(extra.defaults)
        names.update(channel=channel.value, os=os_name)
        if all(_evaluate(matrix.conditions[text], names) is True for text in extra.conditions):
            return True
    return False


def _variant(cuda: str) -> str:
    return "cu" + cuda.replace("-aarch64", "").replace(".", "")


def _strings(value: object) -> Optional[List[str]]:
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _channel_list(matrix: MatrixFile, name: str, channel: Channel) -> Optional[List[str]]:
    table = matrix.values.get(name)
    return _strings(table.get(channel.value)) if isinstance(table, dict) else None


def channel_matrix(matrix: MatrixFile, channel: Channel) -> Optional[ChannelMatrix]:
    """The build matrix of one channel; None when the file lacks its version or CUDA list."""
    torch = matrix.values.get(channel.version_name)
    base = _channel_list(matrix, "CUDA_ARCHES_DICT", channel)
    if not isinstance(torch, str) or base is None:
        return None
    linux = _changed(matrix, base, "CUDA_ARCHES", channel, [_OSES["linux"]])
    arm = _channel_list(matrix, "CUDA_AARCH64_ARCHES_DICT", channel)
    if arm is None:
        arm = _strings(matrix.values.get("CUDA_AARCH64_ARCHES"))
    if arm is not None:
        arm = _changed(matrix, arm, "CUDA_AARCH64_ARCHES", channel, [_OSES["linux"], _OSES["aarch64"]])
    excluded = _strings(matrix.values.get("CUDA_ARCHES_NO_WINDOWS")) or []
    windows = [c for c in _changed(matrix, base, "CUDA_ARCHES", channel, [_OSES["windows"]]) if c not in excluded]
    stable_table = matrix.values.get("STABLE_CUDA_VERSIONS")
    stable = stable_table.get(channel.value) if isinstance(stable_table, dict) else None
    cudnn_table = matrix.values.get("CUDA_CUDNN_VERSIONS")
    cudnn = []
    for cuda in sorted(set(linux + [a.replace("-aarch64", "") for a in arm or []]), key=_cuda_key):
        entry = cudnn_table.get(cuda) if isinstance(cudnn_table, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("cudnn"), str):
            cudnn.append((_variant(cuda), entry["cudnn"]))
    return ChannelMatrix(
        torch, _variants(linux), None if arm is None else _variants(arm), _variants(windows),
        tuple(_channel_list(matrix, "PYTHON_ARCHES_DICT", channel) or ()),
        _variant(stable) if isinstance(stable, str) else None, tuple(cudnn))


def _changed(matrix: MatrixFile, base: List[str], target: str, channel: Channel, os_names: Sequence[str]) -> List[str]:
    """A list with the additions and removals whose conditions hold for the channel and OS applied."""
    added = base + [e.value for e in matrix.extras if e.target == target and _applies(matrix, e, channel, os_names)]
    gone = {e.value for e in matrix.extras if e.target == REMOVED and _applies(matrix, e, channel, os_names)}
    return [cuda for cuda in added if cuda not in gone]


def _cuda_key(cuda: str) -> Tuple[int, ...]:
    digits = cuda.replace("-aarch64", "").split(".")
    return tuple(int(d) for d in digits if d.isdigit())


def _variants(cudas: Sequence[str]) -> Tuple[str, ...]:
    return tuple(sorted({_variant(c) for c in cudas}, key=lambda v: int(v[2:])))


def trimmed(text: str) -> str:
    """Only what ``parse`` reads (the named assignments and the functions that add to the CUDA lists)."""
    tree = ast.parse(text)
    kept = []
    for node in tree.body:
        target, _ = _assignment(node)
        found: List[Extra] = []
        if isinstance(node, ast.FunctionDef):
            _collect(node.body, (), found, {})
        if (target is not None and (target in _NAMES or target.isupper() and isinstance(
                getattr(node, "value", None), ast.Constant))) or found:
            kept.append(ast.get_source_segment(text, node) or "")
    return "\n\n".join(kept) + "\n"
