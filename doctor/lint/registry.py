"""Lint rules and where they come from: the built-ins, then each ``gpudoctor.lint`` entry point's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Set, Tuple

from gpudoctor.lint.model import Rule
from gpudoctor.registry import OWN_DISTRIBUTION, PluginError, _dist_label, _own_label

ENTRY_POINT_GROUP = "gpudoctor.lint"
ALL = "ALL"


class SelectionError(ValueError):
    """--select, --ignore or --explain named no rule."""


@dataclass(frozen=True)
class RuleSet:
    """Every rule found, in order, plus the plugins that failed to load."""

    rules: Tuple[Rule, ...]
    errors: Tuple[PluginError, ...] = ()

    def find(self, code: str) -> Optional[Rule]:
        wanted = code.strip().upper()
        return next((r for r in self.rules if r.code == wanted or r.name == code.strip().lower()), None)

    def matching(self, pattern: str) -> Tuple[Rule, ...]:
        """Rules whose code starts with ``pattern`` (``GD1``, ``GD101``), or every rule for ``ALL``."""
        wanted = pattern.strip().upper()
        if wanted == ALL:
            return self.rules
        return tuple(r for r in self.rules if r.code.startswith(wanted) or r.name == pattern.strip().lower())

    def select(self, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> Tuple[Rule, ...]:
        """The default rules, or those ``select`` names, minus those ``ignore`` names."""
        chosen: List[Rule] = []
        patterns = [p for p in select if p.strip()]
        for pattern in patterns:
            found = self.matching(pattern)
            if not found:
                raise SelectionError(f"--select {pattern}: no lint rule has that code or code prefix "
                                     "(see `gpudoctor lint --explain ALL`)")
            chosen += [r for r in found if r not in chosen]
        if not patterns:
            chosen = [r for r in self.rules if r.default]
        dropped: Set[str] = set()
        for pattern in ignore:
            found = self.matching(pattern)
            if not found:
                raise SelectionError(f"--ignore {pattern}: no lint rule has that code or code prefix")
            dropped.update(r.code for r in found)
        return tuple(r for r in chosen if r.code not in dropped)


def _as_rules(obj: Any) -> Tuple[Rule, ...]:
    if isinstance(obj, Rule):
        return (obj,)
    if isinstance(obj, (list, tuple)) and all(isinstance(r, Rule) for r in obj):
        return tuple(obj)
    raise TypeError(f"expected a lint Rule or a list of Rules, got {type(obj).__name__}")


def builtin_rules() -> Tuple[Rule, ...]:
    from gpudoctor.lint.rules import RULES

    source = _own_label()
    return tuple(r.with_source(source) for r in RULES)


def discover(plugins: bool = True, entry_points: Optional[List[Any]] = None) -> RuleSet:
    """Built-in rules first, then each plugin's; a plugin that fails to load is recorded, not raised."""
    rules: List[Rule] = list(builtin_rules())
    errors: List[PluginError] = []
    if not plugins:
        return RuleSet(tuple(rules))
    if entry_points is None:
        from gpudoctor.entrypoints import entry_points as read

        entry_points = list(read(ENTRY_POINT_GROUP))
    seen = {r.code for r in rules}
    for ep in entry_points:
        dist = getattr(ep, "dist", None)
        label = _dist_label(dist)
        if dist is not None and label.split(" ")[0].lower().replace("_", "-") == OWN_DISTRIBUTION:
            continue  # the built-ins, already loaded
        try:
            loaded = _as_rules(ep.load())
        except Exception as exc:  # noqa: BLE001 - a broken plugin must never stop the linter
            errors.append(PluginError(ep.name, label, f"{type(exc).__name__}: {exc}"))
            continue
        for found in loaded:
            if found.code in seen:
                errors.append(PluginError(ep.name, label, f"lint rule code {found.code!r} is already taken"))
                continue
            seen.add(found.code)
            rules.append(found.with_source(label))
    return RuleSet(tuple(rules), tuple(errors))
