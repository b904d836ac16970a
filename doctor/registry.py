"""Checks and where they come from: the Check type, the @check decorator and entry-point discovery."""

from __future__ import annotations


from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple, TypeVar

from gpudoctor.facts import Facts
from gpudoctor.model import Finding

ENTRY_POINT_GROUP = "gpudoctor.checks"
OWN_DISTRIBUTION = "torch-gpudoctor"

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
class PluginError:
    """An entry point that could not be loaded or did not hold checks."""

    name: str
    source: str
    error: str


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


def _dist_label(dist: Optional[Any]) -> str:
    if dist is None:
        return "unknown"
    try:
        return f"{dist.metadata['Name']} {dist.version}"
    except Exception:  # noqa: BLE001 - metadata of a third-party dist can be anything
        return "unknown"


def _own_label() -> str:
    from gpudoctor import __version__

    return f"{OWN_DISTRIBUTION} {__version__}"


def _as_checks(obj: Any) -> Tuple[Check, ...]:
    if isinstance(obj, Check):
        return (obj,)
    if isinstance(obj, (list, tuple)) and all(isinstance(c, Check) for c in obj):
        return tuple(obj)
    raise TypeError(f"expected a Check or a list of Checks, got {type(obj).__name__}")


def builtin_checks() -> Tuple[Check, ...]:
    from gpudoctor.checks import CHECKS

    source = _own_label()
    return tuple(c.with_source(source) for c in CHECKS)


def _entry_points() -> List[Any]:
    from gpudoctor.entrypoints import entry_points

    return list(entry_points(ENTRY_POINT_GROUP))


def discover(plugins: bool = True, entry_points: Optional[List[Any]] = None) -> Catalogue:
    """Built-in checks first, then each plugin's; a plugin that fails to load is recorded, not raised."""
    checks: List[Check] = list(builtin_checks())
    errors: List[PluginError] = []
    if not plugins:
        return Catalogue(tuple(checks))
    seen = {c.id for c in checks}
    for ep in entry_points if entry_points is not None else _entry_points():
        dist = getattr(ep, "dist", None)
        label = _dist_label(dist)
        if dist is not None and _dist_label(dist).split(" ")[0].lower().replace("_", "-") == OWN_DISTRIBUTION:
            continue  # the built-ins, already loaded
        try:
            loaded = _as_checks(ep.load())
        except BaseException as exc:  # noqa: BLE001 - a broken plugin must never stop the doctor
            if isinstance(exc, (KeyboardInterrupt, SystemExit)) and not isinstance(exc, SystemExit):
                raise
            errors.append(PluginError(ep.name, label, f"{type(exc).__name__}: {exc}"))
            continue
        for c in loaded:
            if c.id in seen:
                errors.append(PluginError(ep.name, label, f"check id {c.id!r} is already taken"))
                continue
            seen.add(c.id)
            checks.append(c.with_source(label))
    return Catalogue(tuple(checks), tuple(errors))


