"""Runs mypy on the installed package layout (gpudoctor = doctor/, gpudoctor.checks = checks/, ...).

setuptools maps the import name `gpudoctor` onto the folder `doctor/` (and its subpackages onto
`checks/` and `trainers/`), which mypy cannot follow from an editable install. This script builds a
`gpudoctor/` tree of symbolic links in a temporary directory, runs `mypy -p gpudoctor` there with the
settings of `[tool.mypy]` in pyproject.toml, maps the reported paths back to the real files and exits
with mypy's exit code. Standard library only.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Subpackages that live in their own top-level folder, as `[tool.setuptools.package-dir]` says.
SUBPACKAGES = {"checks": ROOT / "checks", "trainers": ROOT / "trainers"}
PACKAGE = ROOT / "doctor"


def build_tree(parent: Path) -> Path:
    """Creates `parent/gpudoctor` with links to every entry of doctor/ plus the subpackage folders."""
    tree = parent / "gpudoctor"
    tree.mkdir()
    for entry in sorted(PACKAGE.iterdir()):
        if entry.name == "__pycache__" or entry.name in SUBPACKAGES:
            continue
        os.symlink(entry, tree / entry.name)
    for name, folder in SUBPACKAGES.items():
        os.symlink(folder, tree / name)
    return tree


def map_back(line: str, tree: Path) -> str:
    """Rewrites `gpudoctor/...` paths in one line of mypy output to paths of the real files."""

    def real(match: re.Match[str]) -> str:
        path = (tree.parent / match.group(0)).resolve()
        try:
            return str(path.relative_to(ROOT))
        except ValueError:
            return str(path)

    return re.sub(r"(?<![\w/.])gpudoctor/[\w/.]+\.pyi?", real, line)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="gpudoctor-typecheck-") as tmp:
        tree = build_tree(Path(tmp))
        command = [
            sys.executable, "-m", "mypy",
            "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(ROOT / ".mypy_cache"),
            "-p", "gpudoctor", *argv,
        ]
        # Run from the tree's parent so that `gpudoctor` resolves to the links, not the installed copy.
        env = dict(os.environ, MYPYPATH="")
        process = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
        for line in process.stdout.splitlines():
            print(map_back(line, tree))
        if process.stderr:
            sys.stderr.write(process.stderr)
        return process.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
