"""Shared pytest options: ``--update-goldens`` rewrites golden files instead of comparing with them."""

from __future__ import annotations

from pathlib import Path

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
def golden(update_goldens: bool):
    """``golden("name.txt", text)``: compare text with tests/golden/name.txt (or rewrite it)."""

    def compare(name: str, text: str) -> None:
        path = TESTS / "golden" / name
        if update_goldens or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not update_goldens:
                pytest.fail(f"golden file {path} did not exist; written, review it and run again")
            return
        assert text == path.read_text(encoding="utf-8")

    return compare
