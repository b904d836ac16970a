"""Requires-Dist lines (PEP 508) parsed and evaluated without the machine-probing parts of `packaging`.

`packaging.requirements` and `packaging.specifiers` import `subprocess` (for platform tags), and checks must
not, so this module keeps to `packaging.version`: names, extras, version specifiers and environment markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Mapping, Optional, Tuple, Union

from packaging.version import InvalidVersion, Version


class InvalidRequirement(ValueError):
    """A requirement line this parser cannot read."""


_OPS = ("===", "~=", "==", "!=", "<=", ">=", "<", ">")
_SPEC = re.compile(r"\s*(===|~=|==|!=|<=|>=|<|>)\s*([A-Za-z0-9_.*+!-]+)\s*")
_HEAD = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*(.*)$")


def _public(version: Version) -> Version:
    return Version(version.public)


def _match_one(op: str, spec: str, have: Version) -> bool:
    if op == "===":
        return str(have) == spec
    if spec.endswith(".*"):
        prefix = spec[:-2]
        head = ".".join(str(p) for p in _public(have).release[: len(prefix.split("."))])
        equal = head == ".".join(str(int(p)) for p in prefix.split(".") if p.isdigit())
        return equal if op == "==" else not equal
    want = Version(spec)
    ours = have if want.local else _public(have)
    if op == "==":
        return ours == want
    if op == "!=":
        return ours != want
    if op == "~=":
        release = want.release[:-1]
        upper = Version(".".join(str(p) for p in (*release[:-1], release[-1] + 1)))
        return _public(have) >= want and _public(have) < upper
    compare: Dict[str, Callable[[Version, Version], bool]] = {
        "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b,
        "<": lambda a, b: a < b,
        ">": lambda a, b: a > b,
    }
    return compare[op](_public(have), want)


@dataclass(frozen=True)
class Specifier:
    """A comma-separated set of version clauses such as ``>=2.1,<3``."""

    clauses: Tuple[Tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return ",".join(f"{op}{v}" for op, v in self.clauses)

    def __bool__(self) -> bool:
        return bool(self.clauses)

    def contains(self, version: str, prereleases: bool = True) -> bool:
        try:
            have = Version(version)
        except InvalidVersion:
            return False
        if have.is_prerelease and not prereleases:
            return False
        try:
            return all(_match_one(op, v, have) for op, v in self.clauses)
        except InvalidVersion:
            return False


def parse_specifier(text: str) -> Specifier:
    clauses: List[Tuple[str, str]] = []
    for part in text.split(","):
        if not part.strip():
            continue
        m = _SPEC.fullmatch(part)
        if not m:
            raise InvalidRequirement(f"bad version clause {part.strip()!r}")
        clauses.append((m.group(1), m.group(2)))
    return Specifier(tuple(clauses))


_TOKEN = re.compile(r"\s*(\(|\)|===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b|and\b|or\b|'[^']*'|\"[^\"]*\"|[A-Za-z_.]+)")
Node = Union[Tuple[str, "Node", "Node"], Tuple[str, str, str, str]]


def _tokens(text: str) -> List[str]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise InvalidRequirement(f"bad marker near {text[pos:pos + 20]!r}")
        out.append(re.sub(r"\s+", " ", m.group(1)))
        pos = m.end()
    return out


class _MarkerParser:
    def __init__(self, tokens: List[str]) -> None:
        self.tokens, self.i = tokens, 0

    def take(self) -> str:
        if self.i >= len(self.tokens):
            raise InvalidRequirement("marker ends too early")
        self.i += 1
        return self.tokens[self.i - 1]

    def expr(self) -> Node:
        node = self.conj()
        while self.i < len(self.tokens) and self.tokens[self.i] == "or":
            self.i += 1
            node = ("or", node, self.conj())
        return node

    def conj(self) -> Node:
        node = self.atom()
        while self.i < len(self.tokens) and self.tokens[self.i] == "and":
            self.i += 1
            node = ("and", node, self.atom())
        return node

    def atom(self) -> Node:
        if self.tokens[self.i:self.i + 1] == ["("]:
            self.i += 1
            node = self.expr()
            if self.take() != ")":
                raise InvalidRequirement("unbalanced parentheses in marker")
            return node
        left, op, right = self.take(), self.take(), self.take()
        if op not in (*_OPS, "in", "not in"):
            raise InvalidRequirement(f"bad marker operator {op!r}")
        return ("cmp", left, op, right)


def _value(token: str, env: Mapping[str, str]) -> str:
    if token[:1] in "'\"":
        return token[1:-1]
    return env.get(token, "")


def _compare(left: str, op: str, right: str) -> bool:
    if op == "in":
        return left in right
    if op == "not in":
        return left not in right
    if op == "===":
        return left == right
    try:
        Version(left)
        Version(right)
    except InvalidVersion:
        return {"==": left == right, "!=": left != right}.get(op, False)
    return Specifier(((op, right),)).contains(left)


def _evaluate(node: Node, env: Mapping[str, str]) -> bool:
    if node[0] == "cmp":
        _, left, op, right = node  # type: ignore[misc]
        lv, rv = _value(left, env), _value(right, env)
        if left == "extra" or right == "extra":
            lv, rv = lv.lower().replace("_", "-"), rv.lower().replace("_", "-")
        return _compare(lv, op, rv)
    op, a, b = node  # type: ignore[misc]
    if op == "and":
        return _evaluate(a, env) and _evaluate(b, env)
    return _evaluate(a, env) or _evaluate(b, env)


@dataclass(frozen=True)
class Marker:
    """An environment marker such as ``platform_system == "Linux" and extra == "cuda"``."""

    text: str
    tree: Node

    def evaluate(self, env: Mapping[str, str]) -> bool:
        return _evaluate(self.tree, env)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Requirement:
    """One Requires-Dist line."""

    name: str
    extras: FrozenSet[str] = frozenset()
    specifier: Specifier = Specifier()
    marker: Optional[Marker] = None

    def __str__(self) -> str:
        extras = f"[{','.join(sorted(self.extras))}]" if self.extras else ""
        marker = f"; {self.marker}" if self.marker else ""
        return f"{self.name}{extras}{self.specifier}{marker}"


def parse_requirement(line: str) -> Requirement:
    """``Requirement`` from a Requires-Dist line; raises InvalidRequirement (URL requirements included)."""
    body, _, marker_text = line.partition(";")
    m = _HEAD.match(body)
    if not m:
        raise InvalidRequirement(f"bad requirement {line!r}")
    name, extras_text, rest = m.group(1), m.group(2) or "", m.group(3).strip()
    if rest.startswith("@"):
        raise InvalidRequirement(f"URL requirement {line!r}")
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    extras = frozenset(e.strip() for e in extras_text.split(",") if e.strip())
    marker = None
    if marker_text.strip():
        parser = _MarkerParser(_tokens(marker_text.strip()))
        tree = parser.expr()
        if parser.i != len(parser.tokens):
            raise InvalidRequirement(f"bad marker {marker_text.strip()!r}")
        marker = Marker(marker_text.strip(), tree)
    return Requirement(name, extras, parse_specifier(rest), marker)
