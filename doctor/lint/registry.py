"""Lint rules and where they come from: the built-ins, then each ``gpudoctor.lint`` entry point's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Set, Tuple

from gpudoctor.lint.model import Rule
from gpudoctor.plugins import PluginError, items_of, load_group
from gpudoctor.errors import UserError

ENTRY_POINT_GROUP = "gpudoctor.lint"
ALL = "ALL"


class SelectionError(UserError, ValueError):
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


_as_rules = items_of(Rule, "a lint Rule or a list of Rules")


def builtin_rules() -> Tuple[Rule, ...]:
    """The built-in rules, imported directly (the list as the entry point names it)."""
    from gpudoctor.lint.rules import RULES

    return _as_rules(RULES)


def discover(plugins: bool = True, entry_points: Optional[List[Any]] = None) -> RuleSet:
    """The built-in rules through their entry point, then each plugin's; a broken plugin is recorded, not raised."""
    loaded = load_group(ENTRY_POINT_GROUP, _as_rules, lambda r: r.code, "lint rule code", builtin_rules,
                        plugins=plugins, found=entry_points)
    return RuleSet(tuple(r.with_source(source) for r, source in loaded.items), loaded.errors)
