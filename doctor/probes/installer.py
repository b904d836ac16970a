"""What manages the target environment, read from files: its prefix, pyvenv.cfg, conda-meta/ and project files.

Nothing is run and torch is not imported. Every read is bounded (file sizes, directory entries, how far up
the working directory is searched) and the probe never raises: what it cannot read, it does not claim.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, Optional, Tuple

from gpudoctor.installers import Installer

READ_CAP = 64 * 1024  # bytes read of any one file
ENTRY_CAP = 20000  # conda-meta/ entries looked at
UP_CAP = 32  # directories searched upward from the working directory
_PYTORCH_RECORD = re.compile(r"^pytorch-\d[^-]*-.*\.json$")  # conda-meta/pytorch-2.5.1-cuda126_....json
_POETRY_CACHE = ("pypoetry/virtualenvs", "pypoetry\\virtualenvs", "pypoetry/Cache/virtualenvs",
                 "pypoetry\\Cache\\virtualenvs")


@dataclass(frozen=True)
class InstallerResult:
    """The installer, what showed it, and whether conda itself installed torch (None: not a conda prefix)."""

    installer: Optional[Installer] = None
    evidence: Optional[str] = None
    torch_from_conda: Optional[bool] = None


def _read(path: Path) -> Optional[str]:
    try:
        with path.open("rb") as handle:
            return handle.read(READ_CAP).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def prefix_of(executable: str) -> Optional[Path]:
    """The environment prefix of an interpreter path, without resolving the venv's link to its base Python.

    The directory with pyvenv.cfg or conda-meta/ next to or above the interpreter; else the parent of its
    ``bin``/``Scripts`` directory; else the interpreter's own directory (a Windows base install).
    """
    exe = Path(executable)
    here, up = exe.parent, exe.parent.parent
    for candidate in (here, up):
        if _is_file(candidate / "pyvenv.cfg") or _is_dir(candidate / "conda-meta"):
            return candidate
    return up if here.name.lower() in ("bin", "scripts") else here


def pyvenv_cfg(prefix: Path) -> Optional[Dict[str, str]]:
    """The keys of ``pyvenv.cfg`` (lower-cased), or None when the prefix is no virtual environment."""
    text = _read(prefix / "pyvenv.cfg")
    if text is None:
        return None
    keys: Dict[str, str] = {}
    for line in text.splitlines()[:200]:
        key, sep, value = line.partition("=")
        if sep:
            keys[key.strip().lower()] = value.strip()
    return keys


def conda_torch(prefix: Path) -> bool:
    """Whether conda-meta/ records a ``pytorch`` package: then conda, not pip, installed torch."""
    try:
        with os.scandir(prefix / "conda-meta") as entries:
            for count, entry in enumerate(entries):
                if count >= ENTRY_CAP:
                    return False
                if _PYTORCH_RECORD.match(entry.name):
                    return True
    except (OSError, ValueError):
        return False
    return False


def _upward(cwd: Path) -> Iterator[Path]:
    current = cwd
    for _ in range(UP_CAP):
        yield current
        if current.parent == current:
            return
        current = current.parent


def _project(cwd: Path) -> Optional[Tuple[Path, str]]:
    """The nearest directory from ``cwd`` upward with a pyproject.toml (or pixi.toml), and its text."""
    for folder in _upward(cwd):
        for name in ("pyproject.toml", "pixi.toml"):
            text = _read(folder / name)
            if text is not None:
                return folder, (f"[tool.pixi]\n{text}" if name == "pixi.toml" else text)
    return None


def _has_table(text: str, table: str) -> bool:
    return re.search(rf"^\s*\[{re.escape(table)}(\.[^\]]*)?\]", text, re.MULTILINE) is not None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError, ValueError):
        return str(a) == str(b)


def externally_managed(prefix: Path, python_version: Optional[str], windows: bool) -> Optional[Path]:
    """The PEP 668 marker in the base interpreter's stdlib directory, when it is there."""
    match = re.match(r"^(\d+)\.(\d+)", python_version or "")
    stdlib = [prefix / "Lib"] if windows else ([prefix / "lib" / f"python{match.group(1)}.{match.group(2)}"]
                                               if match else [])
    for folder in stdlib:
        if _is_file(folder / "EXTERNALLY-MANAGED"):
            return folder / "EXTERNALLY-MANAGED"
    return None


def _detect(executable: str, python_version: Optional[str], cwd: Optional[Path], windows: bool) -> InstallerResult:
    prefix = prefix_of(executable)
    if prefix is None:
        return InstallerResult()
    where = str(prefix)
    project = _project(cwd) if cwd is not None else None
    if _is_dir(prefix / "conda-meta"):
        posix = where.replace("\\", "/")
        if "/.pixi/envs/" in posix + "/":
            manifest = ""
            if project is not None and _has_table(project[1], "tool.pixi"):
                manifest = f" of the workspace {project[0]}"
            return InstallerResult(Installer.PIXI, f"{where} is a pixi environment (.pixi/envs/){manifest}",
                                   conda_torch(prefix))
        from_conda = conda_torch(prefix)
        said = "conda installed torch (conda-meta/pytorch-*.json)" if from_conda else "torch is not a conda package"
        return InstallerResult(Installer.CONDA, f"conda-meta/ in {where}; {said}", from_conda)
    cfg = pyvenv_cfg(prefix)
    if cfg is not None:
        if project is not None:
            folder, text = project
            in_project = _same(prefix, folder / ".venv")
            if in_project and _is_file(folder / "uv.lock"):
                return InstallerResult(Installer.UV_PROJECT, f"{where} is the .venv of a uv project ({folder / 'uv.lock'})")
            if in_project and (_is_file(folder / "poetry.lock") or _has_table(text, "tool.poetry")):
                return InstallerResult(Installer.POETRY, f"{where} is the .venv of a Poetry project ({folder})")
        if any(mark in where for mark in _POETRY_CACHE):
            return InstallerResult(Installer.POETRY, f"{where} is in Poetry's virtualenvs cache")
        if "uv" in cfg:
            return InstallerResult(Installer.UV_VENV, f"pyvenv.cfg in {where} was written by uv {cfg['uv']}")
        return InstallerResult(Installer.VENV, f"pyvenv.cfg in {where}: a virtual environment")
    marker = externally_managed(prefix, python_version, windows)
    if marker is not None:
        return InstallerResult(Installer.EXTERNALLY_MANAGED, f"{marker} (PEP 668)")
    return InstallerResult(Installer.SYSTEM, f"{executable} is not in a virtual environment")


def probe_installer(executable: Optional[str], python_version: Optional[str], cwd: Optional[Path] = None,
                    system: Optional[str] = None) -> InstallerResult:
    """What manages the environment of ``executable``; an empty result when that cannot be told. Never raises."""
    if not executable or "\x00" in executable:
        return InstallerResult()
    try:
        here = cwd if cwd is not None else Path.cwd()
        return _detect(executable, python_version, here, (system or "").lower() == "windows")
    except Exception:  # noqa: BLE001 - a probe reports what it can and never takes the run down
        return InstallerResult()
