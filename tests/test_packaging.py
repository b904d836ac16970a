"""What pyproject.toml ships: every package of the source tree, so that a non-editable install is whole."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"doctor": "gpudoctor", "checks": "gpudoctor.checks", "trainers": "gpudoctor.trainers"}


def test_every_package_folder_is_listed_in_pyproject() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^packages = \[(.*?)^\]", text, re.S | re.M)
    assert block is not None
    listed = set(re.findall(r'"([\w.]+)"', block.group(1)))
    found = set()
    for folder, name in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if folder == "doctor" and parts[:1] in (("checks",), ("trainers",)):
                continue
            found.add(".".join((name, *parts)))
    assert found - listed == set()
