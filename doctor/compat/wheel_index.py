"""The PyTorch wheel index (download.pytorch.org/whl/<package>/): which +cuXXX builds exist per platform and Python."""

from __future__ import annotations

import re
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from packaging.utils import canonicalize_name

INDEX_URL = "https://download.pytorch.org/whl/{}/"
_HREF = re.compile(r"""<a\s[^>]*href\s*=\s*["']([^"'#]+)""", re.IGNORECASE)
_WHEEL = re.compile(r"^(?P<name>[A-Za-z0-9_]+)-(?P<version>\d+(?:\.\d+)+)\+(?P<variant>cu\d+|cpu|rocm[\d.]+|xpu)"
                    r"-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^/]+)\.whl$")

# (package, version, variant, Python tags, platforms)
IndexRow = Tuple[str, str, str, Tuple[str, ...], Tuple[str, ...]]


def rows_from_listing(package: str, text: str, platform_of: Callable[[str], Optional[str]],
                      floor: Tuple[int, int]) -> List[IndexRow]:
    """Rows of one PEP 503 listing: every release at or above ``floor`` with a local variant tag."""
    import html  # here, not at import: only a refresh reads listings, and every diagnose loads this module

    found: Dict[Tuple[str, str], Tuple[Set[str], Set[str]]] = {}
    for href in _HREF.findall(text):
        name = html.unescape(href).rsplit("/", 1)[-1].replace("%2B", "+").replace("%2b", "+")
        match = _WHEEL.match(name)
        if not match or canonicalize_name(match.group("name")) != package:
            continue
        version = match.group("version")
        if tuple(int(x) for x in version.split(".")[:2]) < floor:
            continue
        plat = platform_of(match.group("plat"))
        if plat is None:
            continue
        pythons, platforms = found.setdefault((version, match.group("variant")), (set(), set()))
        abi = match.group("abi")
        pythons.add(abi if abi.startswith("cp3") else match.group("py"))
        platforms.add(plat)
    return sorted(((package, v, variant, tuple(sorted(p)), tuple(sorted(q))) for (v, variant), (p, q) in found.items()),
                  key=lambda row: (tuple(int(x) for x in row[1].split(".")), row[2]))


def variants_from_rows(rows: Iterable[IndexRow], package: str, version: str, platform: str) -> Tuple[str, ...]:
    """The CUDA variants the index holds for one release on one platform ("linux-x86_64")."""
    found = {variant for name, v, variant, _, platforms in rows
             if name == package and v == version and platform in platforms and variant.startswith("cu")}
    return tuple(sorted(found, key=lambda v: int(v[2:])))
