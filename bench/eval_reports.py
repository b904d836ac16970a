"""Scores ``diagnose``'s reading of pasted reports and the checks against a folder of real reports.

The folder holds one ``.txt`` per report and an ``INDEX.md`` whose table rows read
``| file | url | maintainers' root cause | expected code(s) |`` (several expected codes may be
separated by ``/`` or ``,``; any one of them counts as a hit). The expected code ``healthy`` marks
a working install whose reported problem lay elsewhere: such a report is a hit only when gpudoctor
finds no error there. For each report this prints the expected cause, the error and warning codes
gpudoctor found, hit or miss, whether a broken environment was summarised as healthy (no error or
warning at all), and whether a healthy one was given an error; then per cause (the first expected
code of each report) recall and precision, and the refusals. The corpus kept in the repository is
``tests/fixtures/reports``, the default folder.

    python bench/eval_reports.py [FOLDER] [--verbose]
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from gpudoctor.checks.support.paste_causes import SHARED_CAUSE
from gpudoctor.facts import Facts
from gpudoctor.model import Report, Severity
from gpudoctor.parsers.report import InputError, load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


HEALTHY = "healthy"  # the expected code of a report whose install works
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "reports"


# A pasted message whose cause a structural check judges from the facts is reported under that check's code (the
# paste finding joins it, or stays quiet when a dedicated check covers the message): the two codes name one cause.
DEDICATED = {"paste.no-driver": "driver.not-loaded", "paste.smi-no-driver": "driver.not-loaded",
             "paste.error-802": "driver.fabric-manager", "paste.error-999": "driver.uvm",
             "paste.nvml-mismatch": "driver.nvml-mismatch", "paste.torch-not-installed": "torch.not-installed",
             "paste.macos-no-cuda": "platform.macos", "paste.flash-attn-abi": "paste.extension-abi",
             "paste.install-cuda": "driver.too-old-for-torch", "paste.install-arch": "gpu.arch-too-new",
             "paste.device-index": "devices.visible"}
SAME_CAUSE = {**{f"paste.{key}": code for key, code in SHARED_CAUSE.items()}, **DEDICATED}


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
    errors: Tuple[str, ...]  # the codes of error severity among ``codes``
    error: Optional[str]  # ParseError text, when the paste was refused
    crashed: Tuple[str, ...]
    partial: bool = False  # nothing readable: the diagnosis asks for collect_env or gpudoctor facts

    @property
    def expects_healthy(self) -> bool:
        return HEALTHY in self.case.expected

    @property
    def hit(self) -> bool:
        if self.expects_healthy:
            return self.error is None and not self.errors and not self.crashed
        named = set(self.codes) | {SAME_CAUSE[code] for code in self.codes if code in SAME_CAUSE}
        return any(code in named or SAME_CAUSE.get(code) in named for code in self.case.expected)

    @property
    def called_healthy(self) -> bool:
        """A broken environment read as a clean bill of health: no error, warning or crashed check."""
        if self.expects_healthy or self.partial:
            return False
        return self.error is None and not self.codes and not self.crashed

    @property
    def false_error(self) -> bool:
        """A healthy environment given an error finding."""
        return self.expects_healthy and bool(self.errors)


def read_index(folder: Path) -> List[Case]:
    cases = []
    for line in (folder / "INDEX.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].endswith(".txt"):
            continue
        expected = tuple(code for code in re.split(r"[\s,/]+", cells[-1]) if code)
        cases.append(Case(cells[0], cells[1], " | ".join(cells[2:-1]), expected))
    return cases


def problem_codes(report: Report, severities: Tuple[Severity, ...]) -> Tuple[str, ...]:
    found = [f.code for f in report.findings() if f.severity in severities]
    return tuple(dict.fromkeys(found))


def evaluate(folder: Path) -> List[Outcome]:
    catalogue = discover(plugins=False)
    outcomes = []
    for case in read_index(folder):
        text = (folder / case.file).read_text(encoding="utf-8", errors="replace")
        try:
            facts: Facts = load_facts(text, case.file)
        except InputError as exc:
            outcomes.append(Outcome(case, (), (), str(exc), ()))
            continue
        report = run_checks(catalogue, facts)
        crashed = tuple(f"{r.check}: {r.reason}" for r in report.results if r.status.value == "crash")
        codes = problem_codes(report, (Severity.ERROR, Severity.WARNING))
        partial = any(key == "paste.partial" for key, _ in facts.extra)
        outcomes.append(Outcome(case, codes, problem_codes(report, (Severity.ERROR,)), None, crashed, partial))
    return outcomes


def per_cause(outcomes: List[Outcome]) -> str:
    """A Markdown table: per cause (a report's first expected code), its reports, how many were named, and the
    precision of that code: of all reports given it as an error or warning, the share that expected it."""
    causes = sorted({out.case.expected[0] for out in outcomes})
    rows = ["| cause (first expected code) | reports | named | recall | precision |", "|---|---:|---:|---:|---:|"]
    for cause in causes:
        mine = [out for out in outcomes if out.case.expected[0] == cause]
        named = sum(out.hit for out in mine)
        if cause == HEALTHY:
            rows.append(f"| {cause} | {len(mine)} | {named} | {named / len(mine):.0%} | n/a |")
            continue
        flagged = [out for out in outcomes if cause in out.codes]  # every report where this code was given
        right = sum(1 for out in flagged if cause in out.case.expected)
        precision = f"{right / len(flagged):.0%}" if flagged else "n/a"
        rows.append(f"| {cause} | {len(mine)} | {named} | {named / len(mine):.0%} | {precision} |")
    return "\n".join(rows)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", default=CORPUS)
    parser.add_argument("--verbose", "-v", action="store_true", help="print the maintainers' cause too")
    args = parser.parse_args(argv)
    outcomes = evaluate(args.folder)
    if not outcomes:
        print(f"no reports listed in {args.folder / 'INDEX.md'}")
        return 2
    for out in outcomes:
        mark = "HIT " if out.hit else "MISS"
        healthy = "  CALLED HEALTHY" if out.called_healthy else "  NOTHING READ (asked for facts)" if out.partial else ""
        healthy += "  ERROR ON A HEALTHY INSTALL" if out.false_error else ""
        found = out.error and f"refused: {out.error}" or (" ".join(out.codes) or "(no problems)")
        print(f"{mark} {out.case.file:<34} expected {'/'.join(out.case.expected):<32} found {found}{healthy}")
        if args.verbose:
            print(f"     {out.case.url}\n     cause: {out.case.cause}")
        for crash in out.crashed:
            print(f"     CRASH {crash}")
    print()
    print(per_cause(outcomes))
    hits = sum(out.hit for out in outcomes)
    refused = sum(out.error is not None for out in outcomes)
    healthy = sum(out.called_healthy for out in outcomes)
    false_errors = sum(out.false_error for out in outcomes)
    partial = sum(out.partial and not out.hit for out in outcomes)
    print(
        f"\n{hits}/{len(outcomes)} root causes named ({100 * hits / len(outcomes):.0f}%);"
        f" {healthy} broken environment(s) called healthy;"
        f" {false_errors} healthy environment(s) given an error; {refused} refused;"
        f" {partial} with nothing read (asked for facts);"
        f" {len({out.case.url.split('/issues/')[0].split('/pull/')[0] for out in outcomes})} projects"
    )
    return 0 if hits * 10 >= 9 * len(outcomes) and healthy == 0 and false_errors == 0 and refused + partial == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
