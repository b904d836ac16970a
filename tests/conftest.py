"""Shared pytest options: ``--update-goldens`` rewrites golden files instead of comparing with them."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Union

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite golden files (tests/golden, tests/scenarios/table.md) from the current output",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def golden(update_goldens: bool) -> Callable[[Union[str, Path], str], None]:
    """``golden(name, text)``: compare text with tests/golden/NAME, or with the file at a Path (or rewrite it).

    The one golden-file helper: tests/golden, tests/scenarios/table.md and the verify fixtures all go through it.
    """

    def compare(name: Union[str, Path], text: str) -> None:
        path = name if isinstance(name, Path) else TESTS / "golden" / name
        if update_goldens or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not update_goldens:
                pytest.fail(f"golden file {path} did not exist; written, review it and run again")
            return
        assert text == path.read_text(encoding="utf-8")

    return compare
