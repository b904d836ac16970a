"""The corpus of real reports (tests/fixtures/reports) holds the bar: every report diagnosed, none refused,
no broken environment called healthy, no healthy one given an error, and the root cause named for at
least 90% of them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from eval_reports import CORPUS, evaluate, read_index  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")


def test_the_index_lists_every_fixture_with_a_url_and_a_cause() -> None:
    cases = read_index(CORPUS)
    files = sorted(p.name for p in CORPUS.glob("*.txt"))
    assert sorted(case.file for case in cases) == files
    assert all(case.url.startswith("https://github.com/") and case.cause and case.expected for case in cases)


def test_the_corpus_meets_the_bar() -> None:
    outcomes = evaluate(CORPUS)
    assert [o.case.file for o in outcomes if o.error is not None] == []
    assert [o.case.file for o in outcomes if o.called_healthy] == []
    assert [o.case.file for o in outcomes if o.false_error] == []
    assert [o.case.file for o in outcomes if o.crashed] == []
    hits = sum(o.hit for o in outcomes)
    assert hits * 10 >= 9 * len(outcomes), [o.case.file for o in outcomes if not o.hit]
