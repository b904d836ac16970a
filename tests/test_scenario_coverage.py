"""Every row of tests/scenarios/README.md names scenarios that exist and whose table rows show the code."""

from __future__ import annotations

import re
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def test_each_reference_failure_has_a_scenario_that_finds_its_code() -> None:
    rows = [line for line in (SCENARIOS / "README.md").read_text().splitlines() if re.match(r"\| \d", line)]
    numbers = set()
    table = (SCENARIOS / "table.md").read_text()
    sections = {m.group(1): m.group(2) for m in re.finditer(r"^## (\S+)\n(.*?)(?=^## |\Z)", table, re.S | re.M)}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        numbers.update(int(n) for n in re.findall(r"\d+", cells[0]))
        names = re.findall(r"`([^`]+)`", cells[2])
        code = re.findall(r"`([a-z]+\.[a-z0-9-]+)`", cells[3])
        for name in names:
            assert (SCENARIOS / f"{name}.json").exists(), name
            for c in code:
                assert re.search(rf"\s{re.escape(c)}(\s|$)", sections[name]), (name, c)
    assert numbers == set(range(1, 24))
