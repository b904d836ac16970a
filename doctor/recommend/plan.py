"""An install plan: what to install, from where and into which interpreter, as values, never as command text.

The recommender and the checks build plans; ``gpudoctor.recommend.render`` is the one place that turns a plan
into commands, for the shell of the target OS and for the installer that manages the environment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import C, Confidence

_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(.*)$", re.DOTALL)
_PIN = re.compile(r"^==([^=+<>!~,;\s]+)(?:\+([^=<>!~,;\s]+))?$")


@dataclass(frozen=True)
class Package:
    """One distribution: ``torch``, or pinned ``torch==2.14.1`` with a local tag such as ``cu128``."""

    name: str
    version: Optional[str] = None
    local: Optional[str] = None
    specifier: str = ""  # another constraint (">=9.1"), where the version is not pinned exactly

    @property
    def requirement(self) -> str:
        """ "torch==2.14.1+cu128", "torch==2.14.1", or "torch" unpinned."""
        if not self.version:
            return self.name + self.specifier
        return f"{self.name}=={self.version}" + (f"+{self.local}" if self.local else "")

    @property
    def full_version(self) -> Optional[str]:
        if not self.version:
            return None
        return self.version + (f"+{self.local}" if self.local else "")

    @classmethod
    def parse(cls, requirement: str) -> "Package":
        """``name``, ``name==version[+local]``, or a name with another specifier kept as text.

        Text that does not start with a name stays whole in ``name``: the renderer quotes it like any word.
        """
        match = _NAME.match(requirement)
        if not match:
            return cls(requirement)
        name, rest = match.group(1), match.group(2)
        pin = _PIN.match(rest)
        if pin:
            return cls(name, pin.group(1), pin.group(2))
        return cls(name, specifier=rest)


@dataclass(frozen=True)
class NewEnv:
    """A virtual environment the plan creates first, with this Python, at this (relative) path."""

    python: str  # "3.13"
    path: str = ".venv-torch"


@dataclass(frozen=True)
class InstallPlan:
    """Packages with exact versions, the variant and index they come from, and how to install them."""

    packages: Tuple[Package, ...]
    variant: Optional[str] = None  # "cu128", "cpu"; None for the plain PyPI wheel
    index_url: Optional[str] = None  # None: PyPI
    force_reinstall: bool = False
    force_reason: str = ""  # why --force-reinstall is needed, for the text around the command
    upgrade: bool = False  # --upgrade: replace whatever version is installed
    interpreter: Optional[str] = None  # the target interpreter's path; None: whatever `pip` is first on PATH
    new_env: Optional[NewEnv] = None
    confidence: Confidence = C
    notes: Tuple[str, ...] = ()

    @property
    def requirements(self) -> Tuple[str, ...]:
        return tuple(p.requirement for p in self.packages)

    def package(self, name: str) -> Optional[Package]:
        return next((p for p in self.packages if p.name == name), None)

    @property
    def cuda(self) -> Optional[str]:
        """ "12.8" for a cu128 plan; None for CPU, ROCm and PyPI plans."""
        if not self.variant or not self.variant.startswith("cu"):
            return None
        digits = self.variant[2:]
        return f"{digits[:-1]}.{digits[-1]}" if digits.isdigit() and len(digits) >= 2 else None


@dataclass(frozen=True)
class Step:
    """A command that is not an install: ``words`` quoted for the shell, an environment variable to set, or a
    fixed ``line`` from the tables.

    ``pip``: the words are pip's arguments and run through the target interpreter (``python -m pip``).
    """

    words: Tuple[str, ...] = ()
    line: str = ""
    pip: bool = False
    env: Optional[Tuple[str, str]] = None  # (name, value), set the way the target's shell sets one
