"""One reader for the JSON-lines records both children print: only an object with a text tag is a record."""

from __future__ import annotations

from typing import Optional

import pytest

from gpudoctor.probes.jsonlines import read_record


@pytest.mark.parametrize("line, tag, expected", [
    ('{"event": "done", "gpu": true}', "event", {"event": "done", "gpu": True}),
    ('  {"record": "torch"}\r', "record", {"record": "torch"}),
    ('{"record": "torch"}', "event", None),  # the other protocol's tag
    ('{"event": 3}', "event", None),
    ('[{"event": "done"}]', "event", None),
    ('{"event": "done"', "event", None),
    ("Segmentation fault (core dumped)", "event", None),
    ("[" * 100_000, "event", None),
    ('{"a": ' * 100_000, "event", None),  # nested past the recursion limit
    ("", "event", None),
])
def test_a_line_is_a_record_only_when_it_is_an_object_with_a_text_tag(line: str, tag: str,
                                                                       expected: Optional[dict]) -> None:
    assert read_record(line, tag) == expected
