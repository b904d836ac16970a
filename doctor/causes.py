"""Root causes: the problems of a report grouped so that one cause seen by several checks counts once.

Two rules group findings, in this order:

1. A finding that declares ``cause`` joins every other finding declaring the same key.
2. A finding whose code is listed in ``CONSEQUENCES`` joins the group of the first listed code present in
   the report: it is a symptom of that finding, which names the cause and carries the fix.

Every other warning or error is its own cause; a crashed check is a cause of its own too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Tuple

from gpudoctor.model import Finding, Report, Severity, Status

# symptom code -> the codes, most telling first, of findings that explain it when present
CONSEQUENCES: Mapping[str, Tuple[str, ...]] = {
    # torchvision from another release or build fails to import; "never released together" says it again
    "packages.unreleased-combination": (
        "torchvision.import-failed",
        "torchvision.version-mismatch",
        "torchvision.cuda-mismatch",
        "packages.torchaudio-mismatch",
    ),
    # a CUDA-major clash is also a version clash when the import already failed on it
    "torchvision.cuda-mismatch": ("torchvision.import-failed",),
    # verify meets on the GPU what the static checks already explained
    "verify.kernel-image-missing": ("gpu.arch-too-new", "gpu.arch-too-old"),
    "verify.driver-too-old": ("driver.too-old-for-torch",),
}


@dataclass(frozen=True)
class Cause:
    """One root cause: the finding that names it (and its fix), the symptoms it explains, and their checks."""

    lead: Finding
    checks: Tuple[str, ...]
    symptoms: Tuple[Finding, ...] = ()

    @property
    def severity(self) -> Severity:
        return max((self.lead, *self.symptoms), key=lambda f: f.severity.rank).severity


def _problems(report: Report) -> List[Tuple[str, Finding]]:
    return [(r.check, f) for r in report.results for f in r.findings if f.severity is not Severity.INFO]


def _own_key(index: int, finding: Finding) -> str:
    return f"cause:{finding.cause}" if finding.cause else f"finding:{index}"


def _key(index: int, finding: Finding, present: Dict[str, str]) -> str:
    if finding.cause:
        return _own_key(index, finding)
    for code in CONSEQUENCES.get(finding.code, ()):
        if code in present:
            return present[code]
    return _own_key(index, finding)


def causes(report: Report) -> Tuple[Cause, ...]:
    """The report's warnings and errors grouped by root cause, in report order of each cause's first finding.

    A finding that declares no ``cause`` and is no listed consequence is a cause of its own, even when another
    finding has the same code (two variables set wrong are two problems).
    """
    problems = _problems(report)
    present: Dict[str, str] = {}
    for index, (_, finding) in enumerate(problems):
        if finding.code not in CONSEQUENCES or not any(c in {f.code for _, f in problems}
                                                       for c in CONSEQUENCES[finding.code]):
            present.setdefault(finding.code, _own_key(index, finding))
    groups: Dict[str, List[Tuple[str, Finding]]] = {}
    for index, (check, finding) in enumerate(problems):
        groups.setdefault(_key(index, finding, present), []).append((check, finding))
    out: List[Cause] = []
    for members in groups.values():
        lead = next((m for m in members if m[1].code not in CONSEQUENCES), members[0])
        rest = tuple(f for c, f in members if f is not lead[1])
        checks = tuple(dict.fromkeys(c for c, _ in members))
        out.append(Cause(lead=lead[1], checks=checks, symptoms=rest))
    for result in report.results:
        if result.status is Status.CRASH:
            crash = Finding(f"crash:{result.check}", Severity.ERROR, f"check {result.title or result.check} crashed")
            out.append(Cause(lead=crash, checks=(result.check,)))
    return tuple(out)
