"""The GPU index pasted code asks for, against the CUDA_VISIBLE_DEVICES the same paste sets: CUDA numbers the visible
GPUs from 0, so an index of the machine's numbering can name a device the process does not have."""

from __future__ import annotations

from typing import Iterator, List

from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

VAR = "CUDA_VISIBLE_DEVICES"


def _entries(value: str) -> List[str]:
    return [entry.strip() for entry in value.split(",") if entry.strip()]


@check("paste.device-index", "The GPU index the code asks for, against CUDA_VISIBLE_DEVICES")
def device_index(facts: Facts) -> Iterator[Finding]:
    asked = [int(v) for v in extras(facts, "paste.device_asked") if v.isdigit()]
    if not asked:
        raise skip("the input shows no code asking for a numbered GPU (cuda:N)")
    value = facts.env.get(VAR)
    if value is None or not _entries(value):
        raise skip(f"the input sets no {VAR} list")
    entries = _entries(value)
    index = max(asked)
    if index < len(entries):
        return
    where = (f"; the machine's GPU {index} is cuda:{entries.index(str(index))} here" if str(index) in entries else "")
    last = f"cuda:0 to cuda:{len(entries) - 1}" if len(entries) > 1 else "only cuda:0"
    yield Finding(
        code="paste.device-index",
        severity=Severity.ERROR,
        summary=f"the code asks for cuda:{index}, but {VAR}={value[:60]} leaves {len(entries)} GPU(s), numbered "
                f"{last}{where}",
        detail=f"Observed: {VAR}={value[:200]} and a device cuda:{index} in the code. Required: an index below "
               f"{len(entries)}. CUDA renumbers the GPUs it is given from 0, in the order of the list, so the "
               "machine's numbers (nvidia-smi's) are not the process's.",
        fix=Fix(f"Ask for the GPU by its place in {VAR} (cuda:0 for the first entry), or list the GPU you want first; "
                "invalid device ordinal is what CUDA answers for an index beyond the list.", ()),
        evidence=("extra", "env.variables"),
    )


CHECKS = [device_index]
