"""Questions answered from what PyPI publishes (published.py): does this release have a wheel for this Python?"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from gpudoctor.compat.base import python_tuple
from gpudoctor.compat.published import PYPI_REQUIRES, PYPI_WHEELS
from gpudoctor.compat.releases import split_local_version

_WHEELS: Dict[Tuple[str, str], Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    (package, version): (pythons, platforms) for package, version, _, pythons, platforms in PYPI_WHEELS
}


def pypi_release(package: str, version: Optional[str]) -> Optional[Tuple[Tuple[str, ...], Tuple[str, ...]]]:
    """(Python tags, platforms) of a PyPI release ("torch", "2.15.0+cu132" reads 2.15.0); None when not recorded."""
    if not version:
        return None
    return _WHEELS.get((package, split_local_version(version)[0]))


def has_python(package: str, version: Optional[str], python_version: Optional[str]) -> Optional[bool]:
    """Whether the release has wheels for this Python ("3.15.0" needs cp315 or a py3 wheel); None when unknown."""
    found = pypi_release(package, version)
    py = python_tuple(python_version)
    if found is None or py is None:
        return None
    tag = f"cp{py[0]}{py[1]}"
    return any(t in (tag, tag + "t", "py3", f"py{py[0]}") for t in found[0])


def python_tags(package: str, version: Optional[str]) -> Tuple[str, ...]:
    """The Python tags of a release's PyPI wheels, () when not recorded."""
    found = pypi_release(package, version)
    return found[0] if found else ()


def newest_requires(package: str) -> Tuple[str, Tuple[str, ...]]:
    """(newest version, its recorded Requires-Dist lines) of a package."""
    for name, version, lines in PYPI_REQUIRES:
        if name == package:
            return version, lines
    return "", ()


def last_on_platform(package: str, platform: str) -> Optional[str]:
    """The newest release with a PyPI wheel for a platform ("torch", "macos-x86_64" -> "2.2.2")."""
    found = [version for name, version, _, _, platforms in PYPI_WHEELS if name == package and platform in platforms]
    return max(found, key=lambda v: tuple(int(x) for x in v.split(".")), default=None)
