"""Entry-point plugins: gpudoctor's own checks and lint rules load through their groups like anyone's.

The built-ins are the entry points of gpudoctor's own distribution, loaded first; every other
distribution's follow. Only when gpudoctor runs from a source tree that is not installed (so it has no
metadata at all) are the built-ins imported directly.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Callable, Generic, Iterable, List, Optional, Sequence, Set, Tuple, Type, TypeVar

OWN_DISTRIBUTION = "torch-gpudoctor"

T = TypeVar("T")


@dataclass(frozen=True)
class PluginError:
    """An entry point that could not be loaded or did not hold what its group expects."""

    name: str
    source: str
    error: str


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """What a group's entry points held, each item with the distribution it came from, in load order."""

    items: Tuple[Tuple[T, str], ...]
    errors: Tuple[PluginError, ...]


def items_of(kind: Type[T], what: str) -> Callable[[Any], Tuple[T, ...]]:
    """A converter for ``load_group``: an entry point holds one ``kind`` or a list of them; ``what`` names them
    in the error ("a Check or a list of Checks")."""

    def convert(obj: Any) -> Tuple[T, ...]:
        if isinstance(obj, kind):
            return (obj,)
        if isinstance(obj, (list, tuple)) and all(isinstance(item, kind) for item in obj):
            return tuple(obj)
        raise TypeError(f"expected {what}, got {type(obj).__name__}")

    return convert


def dist_label(dist: Optional[Any]) -> str:
    """``"name version"`` of a distribution, or ``"unknown"`` when its metadata cannot be read."""
    if dist is None:
        return "unknown"
    try:
        return f"{dist.metadata['Name']} {dist.version}"
    except Exception:  # noqa: BLE001 - metadata of a third-party distribution can be anything
        return "unknown"


def own_label() -> str:
    from gpudoctor import __version__

    return f"{OWN_DISTRIBUTION} {__version__}"


def _is_own(entry_point: Any) -> bool:
    from packaging.utils import canonicalize_name

    name = dist_label(getattr(entry_point, "dist", None)).split(" ")[0]
    return canonicalize_name(name) == OWN_DISTRIBUTION


def installed() -> bool:
    """Whether gpudoctor's own distribution metadata is on sys.path (it is not in a bare source tree)."""
    try:
        metadata.distribution(OWN_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return False
    return True


def entry_points(group: str) -> List[Any]:
    """The group's entry points, one copy per distribution (the first on sys.path)."""
    if sys.version_info >= (3, 10):
        return list(metadata.entry_points(group=group))
    from packaging.utils import canonicalize_name  # pragma: no cover - Python 3.9: entry points lack .dist

    found: List[Any] = []
    seen: Set[str] = set()
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"] or "")
        if name in seen:
            continue
        seen.add(name)
        for ep in dist.entry_points:
            if ep.group == group:
                found.append(_WithDist(ep, dist))
    return found


@dataclass(frozen=True)
class _WithDist:  # pragma: no cover - Python 3.9 only
    entry_point: Any
    dist: Any

    @property
    def name(self) -> str:
        return str(self.entry_point.name)

    def load(self) -> Any:
        return self.entry_point.load()


def load_group(
    group: str,
    convert: Callable[[Any], Sequence[T]],
    key: Callable[[T], str],
    what: str,
    builtins: Callable[[], Sequence[T]],
    plugins: bool = True,
    found: Optional[Iterable[Any]] = None,
) -> Loaded[T]:
    """Load every entry point of ``group``: gpudoctor's own first, then the others unless ``plugins`` is off.

    ``convert`` turns what an entry point holds into items (raising TypeError when it holds something
    else), ``key`` names an item so that a second item of the same name is refused, ``what`` names the
    key in that message, and ``builtins`` imports the built-ins directly when gpudoctor is not installed.
    ``found`` replaces the installed entry points (tests).
    """
    eps = list(entry_points(group) if found is None else found)
    own = [ep for ep in eps if _is_own(ep)]
    others = [ep for ep in eps if not _is_own(ep)] if plugins else []
    items: List[Tuple[T, str]] = []
    errors: List[PluginError] = []
    seen: Set[str] = set()
    if not own and found is None and not installed():
        items = [(item, own_label()) for item in builtins()]
        seen = {key(item) for item, _ in items}
    for ep in [*own, *others]:
        label = dist_label(getattr(ep, "dist", None))
        try:
            loaded = convert(ep.load())
        except (KeyboardInterrupt, SystemExit) as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            errors.append(PluginError(ep.name, label, f"SystemExit: {exc}"))
            continue
        except BaseException as exc:  # noqa: BLE001 - a broken plugin must never stop the doctor
            errors.append(PluginError(ep.name, label, f"{type(exc).__name__}: {exc}"))
            continue
        for item in loaded:
            if key(item) in seen:
                errors.append(PluginError(ep.name, label, f"{what} {key(item)!r} is already taken"))
                continue
            seen.add(key(item))
            items.append((item, label))
    return Loaded(tuple(items), tuple(errors))
