"""Checks and where they come from: the Check type, the @check decorator and entry-point discovery."""

from __future__ import annotations


from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple, TypeVar

from gpudoctor.facts import Facts
from gpudoctor.model import Finding
from gpudoctor.plugins import OWN_DISTRIBUTION, PluginError, items_of, load_group

__all__ = ["OWN_DISTRIBUTION", "Catalogue", "Check", "PluginError", "Skip", "check", "discover", "need", "skip"]

ENTRY_POINT_GROUP = "gpudoctor.checks"

T = TypeVar("T")
CheckFunc = Callable[[Facts], Iterable[Finding]]


class Skip(Exception):
    """Raised inside a check: the check cannot judge these facts. ``path`` names the missing fact."""

    def __init__(self, reason: str, path: Optional[str] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path


def need(value: Optional[T], path: str, what: Optional[str] = None) -> T:
    """Return ``value``, or skip the check because the fact at ``path`` is unknown."""
    if value is None:
        raise Skip(what or f"{path} is not known", path)
    return value


def skip(reason: str) -> Skip:
    """``raise skip("...")`` ends a check as SKIP with that reason."""
    return Skip(reason)


@dataclass(frozen=True)
class Check:
    """A named, pure function from facts to findings."""

    id: str
    title: str
    func: CheckFunc
    source: str = ""  # filled in at discovery: "torch-gpudoctor 0.1.0"

    def run(self, facts: Facts) -> Iterator[Finding]:
        return iter(self.func(facts))

    def with_source(self, source: str) -> Check:
        return Check(self.id, self.title, self.func, source)


def check(id: str, title: str) -> Callable[[CheckFunc], Check]:
    """Decorator: ``@check("gpu.arch", "GPU architecture vs the wheel's kernels")``."""

    def wrap(func: CheckFunc) -> Check:
        return Check(id=id, title=title, func=func)

    return wrap


@dataclass(frozen=True)
class Catalogue:
    """All checks found, in order, plus the plugins that failed to load."""

    checks: Tuple[Check, ...]
    errors: Tuple[PluginError, ...] = ()

    def select(self, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> Catalogue:
        """Keep checks whose id equals or starts with a selected prefix, minus ignored ones."""
        sel = [s for s in select if s]
        ign = [s for s in ignore if s]

        def matches(check_id: str, patterns: List[str]) -> bool:
            return any(check_id == p or check_id.startswith(p.rstrip(".") + ".") for p in patterns)

        kept = tuple(
            c for c in self.checks if (not sel or matches(c.id, sel)) and not matches(c.id, ign)
        )
        return Catalogue(kept, self.errors)


_as_checks = items_of(Check, "a Check or a list of Checks")


def builtin_checks() -> Tuple[Check, ...]:
    """The built-in checks, imported directly (the catalogue as the entry point names it)."""
    from gpudoctor.checks.builtin import CHECKS

    return _as_checks(CHECKS)


def discover(plugins: bool = True, entry_points: Optional[List[Any]] = None) -> Catalogue:
    """The built-in checks through their entry point, then each plugin's; a broken plugin is a row, not a raise."""
    loaded = load_group(ENTRY_POINT_GROUP, _as_checks, lambda c: c.id, "check id", builtin_checks,
                        plugins=plugins, found=entry_points)
    return Catalogue(tuple(c.with_source(source) for c, source in loaded.items), loaded.errors)
