"""Scores the collect_env parser and the checks against a folder of real pasted reports.

The folder holds one ``.txt`` per report and an ``INDEX.md`` whose table rows read
``| file | url | maintainers' root cause | expected code(s) |`` (several expected codes may be
separated by ``/`` or ``,``; any one of them counts as a hit). For each report this prints the
expected cause, the error and warning codes gpudoctor found, hit or miss, and whether a broken
environment was summarised as healthy (no error or warning at all). The reports themselves are not
kept in this repository.

    python bench/eval_reports.py /tmp/real_reports [--verbose]
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from gpudoctor.facts import Facts
from gpudoctor.model import Report, Severity
from gpudoctor.parsers.collect_env import ParseError, parse
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


@dataclass(frozen=True)
class Case:
    """One row of the index."""

    file: str
    url: str
    cause: str
    expected: Tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """What gpudoctor made of one report."""

    case: Case
    codes: Tuple[str, ...]
    error: Optional[str]  # ParseError text, when the paste was refused
    crashed: Tuple[str, ...]

    @property
    def hit(self) -> bool:
        return any(code in self.codes for code in self.case.expected)

    @property
    def called_healthy(self) -> bool:
        """No error or warning and no crashed check: the report would read as a clean bill of health."""
        return self.error is None and not self.codes and not self.crashed


def read_index(folder: Path) -> List[Case]:
    cases = []
    for line in (folder / "INDEX.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].endswith(".txt"):
            continue
        expected = tuple(code for code in re.split(r"[\s,/]+", cells[-1]) if code)
        cases.append(Case(cells[0], cells[1], " | ".join(cells[2:-1]), expected))
    return cases


def problem_codes(report: Report) -> Tuple[str, ...]:
    found = [f.code for f in report.findings() if f.severity in (Severity.ERROR, Severity.WARNING)]
    return tuple(dict.fromkeys(found))


def evaluate(folder: Path) -> List[Outcome]:
    catalogue = discover(plugins=False)
    outcomes = []
    for case in read_index(folder):
        text = (folder / case.file).read_text(encoding="utf-8", errors="replace")
        try:
            facts: Facts = parse(text)
        except ParseError as exc:
            outcomes.append(Outcome(case, (), str(exc), ()))
            continue
        report = run_checks(catalogue, facts)
        crashed = tuple(f"{r.check}: {r.reason}" for r in report.results if r.status.value == "crash")
        outcomes.append(Outcome(case, problem_codes(report), None, crashed))
    return outcomes


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--verbose", "-v", action="store_true", help="print the maintainers' cause too")
    args = parser.parse_args(argv)
    outcomes = evaluate(args.folder)
    if not outcomes:
        print(f"no reports listed in {args.folder / 'INDEX.md'}")
        return 2
    for out in outcomes:
        mark = "HIT " if out.hit else "MISS"
        healthy = "  CALLED HEALTHY" if out.called_healthy else ""
        found = out.error and f"refused: {out.error}" or (" ".join(out.codes) or "(no problems)")
        print(f"{mark} {out.case.file:<34} expected {'/'.join(out.case.expected):<32} found {found}{healthy}")
        if args.verbose:
            print(f"     {out.case.url}\n     cause: {out.case.cause}")
        for crash in out.crashed:
            print(f"     CRASH {crash}")
    hits = sum(out.hit for out in outcomes)
    healthy = sum(out.called_healthy for out in outcomes)
    print(
        f"\n{hits}/{len(outcomes)} root causes named ({100 * hits / len(outcomes):.0f}%);"
        f" {healthy} broken environment(s) called healthy"
    )
    return 0 if hits * 10 >= 9 * len(outcomes) and healthy == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
