"""What a site-packages folder's path says: whose it is (user site, conda environment) and which Python owns it.

Checks read these typed values instead of matching paths themselves, so every check names a folder alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Optional

# pip's per-user folder on Linux, Windows and macOS framework builds.
_USER_SITE = re.compile(
    r"[\\/]\.local[\\/]lib[\\/]python([\d.]+)[\\/]site-packages$|AppData[\\/]Roaming[\\/]Python[\\/]Python\d+[\\/]site-packages$"
    r"|[\\/]Library[\\/]Python[\\/][\d.]+[\\/]lib[\\/]python[\\/]site-packages$",
    re.IGNORECASE,
)
_CONDA = re.compile(r"conda|mamba|miniforge", re.IGNORECASE)
_OWNED = re.compile(r"^(.*)/lib/python([\d.]+)/site-packages$")  # PREFIX/lib/pythonX.Y/site-packages (POSIX)


class SiteKind(Enum):
    """Whose a site-packages folder is, by its path; the value is how findings name it."""

    USER = "user site"
    CONDA = "conda environment"
    PLAIN = "site-packages"


@dataclass(frozen=True)
class SiteOwner:
    """The environment a POSIX site-packages folder belongs to: its prefix and its Python's version."""

    prefix: str  # "/opt/conda" of "/opt/conda/lib/python3.11/site-packages"
    python: str  # "3.11"

    @property
    def interpreter(self) -> str:
        """The Python of that environment, PREFIX/bin/pythonX.Y."""
        return f"{self.prefix}/bin/python{self.python}"


def site_kind(site: str) -> SiteKind:
    """Whose ``site`` is: pip's user folder, a conda (mamba, miniforge) environment, or plain site-packages."""
    if _USER_SITE.search(site):
        return SiteKind.USER
    return SiteKind.CONDA if _CONDA.search(site) else SiteKind.PLAIN


def site_owner(site: str) -> Optional[SiteOwner]:
    """The environment ``site`` belongs to, when it is PREFIX/lib/pythonX.Y/site-packages; None otherwise."""
    match = _OWNED.match(site)
    return SiteOwner(match.group(1), match.group(2)) if match else None
