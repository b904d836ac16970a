"""The corpora of real reports hold the bar: every report diagnosed, none refused, no broken environment
called healthy, no healthy one given an error, and the root cause named for at least 90% of them.
tests/fixtures/reports is the corpus the diagnosis grew on; tests/fixtures/reports-holdout and
tests/fixtures/reports-holdout-2 to -6 were each scored blind before any change was made for them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from eval_reports import CORPUS, evaluate, read_index  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")
HOLDOUT = CORPUS.parent / "reports-holdout"
HOLDOUT_2 = CORPUS.parent / "reports-holdout-2"
HOLDOUT_3 = CORPUS.parent / "reports-holdout-3"
ROUNDS = [CORPUS.parent / f"reports-holdout-{n}" for n in range(4, 15)]
CORPORA = pytest.mark.parametrize("corpus", [CORPUS, HOLDOUT, HOLDOUT_2, HOLDOUT_3, *ROUNDS],
                                  ids=["reports", "holdout", "holdout-2", "holdout-3", "holdout-4", "holdout-5",
                                       "holdout-6", "holdout-7", "holdout-8", "holdout-9", "holdout-10",
                                       "holdout-11", "holdout-12", "holdout-13", "holdout-14"])


@CORPORA
def test_the_index_lists_every_fixture_with_a_url_and_a_cause(corpus: Path) -> None:
    cases = read_index(corpus)
    files = sorted(p.name for p in corpus.glob("*.txt"))
    assert sorted(case.file for case in cases) == files
    assert all(case.url.startswith("https://github.com/") and case.cause and case.expected for case in cases)


def test_no_report_is_in_two_corpora() -> None:
    urls = [{case.url for case in read_index(corpus)} for corpus in (CORPUS, HOLDOUT, HOLDOUT_2, HOLDOUT_3, *ROUNDS)]
    assert all(not (urls[i] & urls[j]) for i in range(len(urls)) for j in range(i + 1, len(urls)))


@CORPORA
def test_the_corpus_meets_the_bar(corpus: Path) -> None:
    outcomes = evaluate(corpus)
    assert [o.case.file for o in outcomes if o.error is not None] == []
    assert [o.case.file for o in outcomes if o.called_healthy] == []
    assert [o.case.file for o in outcomes if o.partial] == []  # nothing read is no better than refused
    assert [o.case.file for o in outcomes if o.false_error] == []
    assert [o.case.file for o in outcomes if o.crashed] == []
    hits = sum(o.hit for o in outcomes)
    assert hits * 10 >= 9 * len(outcomes), [o.case.file for o in outcomes if not o.hit]
