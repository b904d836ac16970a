"""The answer to a pasted report: the most likely root cause with its confidence, the quoted evidence with
line numbers, the fix, the other candidates ranked, and what to run and paste next when the paste cannot
settle it."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

from gpudoctor.causes import Cause, causes
from gpudoctor.facts import Facts, Source
from gpudoctor.model import Finding, Report, Severity
from gpudoctor.render.markdown import fence, md_escape

PASTED = (Source.PASTE, Source.COLLECT_ENV)
_FACT_LINES = {  # a finding's evidence path -> the paste.line.* keys that can show it
    "torch.cuda": ("torch.cuda", "torch.version"),
    "torch.version": ("torch.version",),
    "torch.cuda_compiled": ("torch.cuda_compiled", "torch.version", "torch.init_error"),
    "torch.arch_flags": ("torch.arch_flags", "torch.warnings"),
    "gpus": ("gpus.0", "gpus.1"),
    "driver.version": ("driver.version",),
    "driver.cuda_version": ("driver.cuda_version",),
    "driver.nvml_error": ("driver.nvml_error_text",),
    "torch.init_error": ("torch.init_error",),
    "torch.import_error": ("torch.import_error",),
    "torch.warnings": ("torch.warnings",),
    "torchvision.import_error": ("torchvision.import_error",),
    "libraries.ld_library_path_cuda": ("libraries.ld_library_path",),
    "libraries.ld_library_path": ("libraries.ld_library_path",),
    "toolkit.nvcc_version": ("toolkit.nvcc_version",),
    "env.variables": ("env.CUDA_VISIBLE_DEVICES", "libraries.ld_library_path"),
    "env.cuda-vars": ("env.CUDA_VISIBLE_DEVICES",),
    "paste.container.run": ("container.run.",),  # a key ending in "." stands for every line key it starts
    "paste.container.no_gpu": ("container.no_gpu.", "signature.no-driver", "signature.no-device",
                               "signature.libcuda-missing", "signature.cuda-unavailable", "signature.smi-no-driver"),
    "platform.wsl": ("platform.wsl", "wsl.windows_build.", "wsl.distro.", "wsl.mentioned."),
}


_SIGNATURE_LINES = {  # a paste.* finding -> the other pasted facts that bear on it
    "shadowed-cuda-libs": ("libraries.ld_library_path", "torch.loaded_libraries"),
    "cudnn-missing": ("libraries.ld_library_path", "torch.version"),
    "driver-too-old": ("driver.version", "driver.cuda_version", "torch.version"),
    "driver-insufficient": ("driver.version", "driver.cuda_version", "torch.version"),
    "no-kernel-image": ("gpus.0", "torch.version", "torch.arch_flags"),
    "sm-incompatible": ("gpus.0", "torch.version", "torch.arch_flags"),
    "not-compiled-with-cuda": ("torch.version", "gpus.0"),
    "libcuda-missing": ("platform.wsl",),
    "error-804": ("driver.version", "driver.cuda_version", "platform.container"),
    "docker-no-gpu-driver": ("platform.container", "driver.version"),
    "bitsandbytes-platform": ("signature.bitsandbytes-without-gpu", "platform.system", "packages.bitsandbytes"),
    "macos-no-cuda": ("signature.not-compiled-with-cuda", "signature.cuda-unavailable", "signature.no-driver",
                      "signature.xformers-mismatch", "signature.nccl-not-built", "platform.system"),
}
# findings that restate the symptom ("CUDA is unavailable", "the GPU is not used") where nothing says why
_SYMPTOMS = frozenset({"paste.gpu-unused-unexplained", "paste.cuda-unavailable", "torch.cuda-unavailable"})
_NOTE_LINES = ("amd_gpu", "intel_gpu", "ascend_npu", "rocm_index", "torch_index")  # paste notes kept one per value: every line of one is evidence


class Confidence(enum.Enum):
    """How sure the answer is of its lead cause."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True)
class Answer:
    """The diagnosis of one paste."""

    lead: Optional[Finding]
    confidence: Optional[Confidence]
    evidence: Tuple[str, ...]  # "line N: text", of the lead and of every finding of the same cause
    others: Tuple[Finding, ...]  # the leads of the other causes, most likely first
    healthy: Tuple[Finding, ...]  # notes that the environment works and the problem lies elsewhere
    conflicts: Tuple[str, ...]
    next_steps: Tuple[Tuple[str, str], ...]  # (command, why)
    same_cause: Tuple[Finding, ...] = ()  # the other findings of the lead's cause: more evidence, no other fix


def _lines(facts: Facts) -> List[Tuple[str, str]]:
    return [(key[len("paste.line."):], value) for key, value in facts.extra if key.startswith("paste.line.")]


def _quote(value: str) -> str:
    number, _, text = value.partition(": ")
    return f"line {number}: {text}"


_GPU_FIELD = re.compile(r"^gpus\[(\d+)\]\.(\w+)$")


def evidence_for(finding: Finding, facts: Facts) -> Tuple[str, ...]:
    """The pasted lines a finding rests on, in paste order."""
    lines = dict(_lines(facts))
    keys: List[str] = []
    if finding.code.startswith("paste."):
        name = finding.code[len("paste."):]
        keys += [f"signature.{name}", *_SIGNATURE_LINES.get(name, ())]
    for path in finding.evidence:
        gpu = _GPU_FIELD.match(path)  # "gpus[0].compute_mode": the line that showed that GPU's value
        if gpu:
            keys.append(f"gpus.{gpu.group(1)}.{gpu.group(2)}")
        if path in _NOTE_LINES:
            keys.extend(key for key in lines if key.startswith(f"{path}."))
        for key in _FACT_LINES.get(path, (path,)):
            keys.extend([k for k in lines if k.startswith(key)] if key.endswith(".") else [key])
    found = list(dict.fromkeys(lines[key] for key in dict.fromkeys(keys) if key in lines))
    found.sort(key=lambda value: int(value.partition(":")[0]) if value.partition(":")[0].isdigit() else 0)
    return tuple(_quote(value) for value in found)


def _members(cause: Cause) -> Tuple[Finding, ...]:
    return (cause.lead, *cause.symptoms)


def _cause_evidence(cause: Cause, facts: Facts) -> Tuple[str, ...]:
    """The pasted lines every finding of one cause rests on, in paste order."""
    found = list(dict.fromkeys(line for f in _members(cause) for line in evidence_for(f, facts)))
    return tuple(sorted(found, key=_line_number))


def _line_number(quoted: str) -> int:
    number = quoted[len("line "):].partition(":")[0]
    return int(number) if number.isdigit() else 0


def _rank(found: List[Cause], facts: Facts) -> List[Cause]:
    order = {id(c): i for i, c in enumerate(found)}
    return sorted(found, key=lambda c: (-c.severity.rank, c.lead.code in _BARE_SYMPTOMS, not _cause_evidence(c, facts),
                                        all(f.inferred for f in _members(c)), order[id(c)]))


# symptoms that every cause of an unusable GPU shows: observing them does not confirm an inferred cause
_BARE_SYMPTOMS = frozenset({"torch.cuda-unavailable", "paste.cuda-unavailable", "paste.gpu-unused-unexplained"})


def _confidence(cause: Cause, evidence: Tuple[str, ...]) -> Confidence:
    support = [f for f in _members(cause) if f is cause.lead or f.code not in _BARE_SYMPTOMS]
    if cause.severity is Severity.ERROR and evidence and not all(f.inferred for f in support):
        return Confidence.HIGH
    if cause.severity is Severity.ERROR:
        return Confidence.MEDIUM
    return Confidence.LOW


def _next_steps(facts: Facts, settled: bool) -> Tuple[Tuple[str, str], ...]:
    steps: List[Tuple[str, str]] = []
    if (facts.torch.version is None or facts.platform.system is None) and not facts.torch.import_error:
        steps.append(("python -m torch.utils.collect_env",
                      "the paste does not say which torch build, operating system and GPU are involved"))
    amd = {key for key, _ in facts.extra if key in ("paste.amd_gpu", "paste.nvidia_named")} == {"paste.amd_gpu"}
    if facts.driver.version is None and not facts.gpus and amd:
        steps.append(('python -c "import torch; print(torch.__version__, torch.version.hip, torch.cuda.is_available())"',
                      "the paste shows an AMD GPU: torch.version.hip says whether torch is a ROCm build"))
        steps.append(("rocminfo", "lists the GPUs that ROCm sees"))
    elif facts.driver.version is None and not facts.gpus and facts.platform.system != "Darwin":
        steps.append(("nvidia-smi", "the paste shows neither the NVIDIA driver nor the GPU"))
    if not settled or steps:
        steps.append(("gpudoctor facts -o facts.json",
                      "collects all of the above in one file; `gpudoctor diagnose facts.json` then judges it fully"))
    return tuple(steps)


# Notes on one library beside torch: they say nothing of whether the CUDA environment works.
_LIBRARY_NOTES = frozenset({"paste.flash-attn-gpu", "paste.bitsandbytes-platform", "paste.bitsandbytes-gpu",
                            "paste.system-cudnn"})


def answer(report: Report) -> Answer:
    facts = report.facts
    found = [c for c in causes(report) if not c.lead.code.startswith("crash:")]
    healthy = tuple(f for f in report.findings() if f.severity is Severity.INFO and f.code.startswith("paste.")
                    and f.code not in _LIBRARY_NOTES)
    conflicts = tuple(value for key, value in facts.extra if key == "paste.conflict")
    ranked = _rank(found, facts)
    if not ranked:
        steps = () if healthy else _next_steps(facts, False)  # a working GPU needs no more environment facts
        return Answer(None, None, (), (), healthy, conflicts, steps)
    lead = ranked[0]
    evidence = _cause_evidence(lead, facts)
    confidence = _confidence(lead, evidence)
    return Answer(lead.lead, confidence, evidence, tuple(c.lead for c in ranked[1:]), healthy, conflicts,
                  _next_steps(facts, confidence is Confidence.HIGH), lead.symptoms)


def render_answer(report: Report, markdown: bool = False) -> str:
    """The answer as text (terminal) or Markdown, ending with a blank line; '' when the input was not a paste.

    Pasted lines are hostile: in Markdown they go into fenced blocks that no line can close, and every
    other value is escaped."""
    if Source.parse(report.facts.meta.source) not in PASTED:
        return ""
    a = answer(report)
    md = _Markdown() if markdown else _Plain()
    out: List[str] = [md.title()]
    if a.lead is not None:
        confidence = a.confidence.value if a.confidence else "low"
        symptom = a.lead.code in _SYMPTOMS
        label = "The symptom, with no cause in the paste yet:" if symptom else f"Most likely cause ({confidence} confidence):"
        out.append(md.lead(label, f"{a.lead.summary} [{a.lead.code}]"))
        if a.same_cause:
            out += ["", "The same cause, also seen as:"]
            out += [md.item(f"{f.summary} [{f.code}]") for f in a.same_cause]
        if a.evidence:
            out += ["", "Evidence:", *md.block(a.evidence)]
        if a.lead.fix is not None:
            out += ["", f"{'Next' if symptom else 'Fix'}: {md.text(a.lead.fix.text)}", *md.block(a.lead.fix.commands, "sh")]
        if a.others:
            out += ["", "Other candidates, most likely first:"]
            out += [md.item(f"{i}. {f.summary} [{f.code}]") for i, f in enumerate(a.others[:5], start=2)]
    elif a.healthy:
        out.append("The CUDA environment itself works; the problem lies elsewhere:")
        for f in a.healthy:
            out.append(md.item(f.summary + (f" ({f.fix.text})" if f.fix else "")))
            out += md.block(evidence_for(f, report.facts))
    elif any(key == "paste.partial" for key, _ in report.facts.extra):  # parsers.partial's note
        said = next(value for key, value in report.facts.extra if key == "paste.partial")
        out.append(md.text(f"The paste cannot be judged yet: {said}. Paste the output of the commands below "
                           "(the whole output, not a summary)."))
    else:
        out.append("Nothing in the paste shows a broken GPU environment, and it does not hold enough to be sure.")
    unread = [value for key, value in report.facts.extra if key == "paste.unread"]
    if unread:
        out += ["", md.text(f"Part of the paste was not read: {unread[0]}.")]
    if a.conflicts:
        out += ["", "The paste holds values that disagree (two machines, or a host and a container); "
                    "the first of each was judged:", *md.block(a.conflicts)]
    if a.next_steps:
        out += ["", "To settle it, run and paste the output of:"]
        out += [md.item(f"{md.command(cmd)} ({why})") for cmd, why in a.next_steps]
    return "\n".join(out) + "\n\n"


class _Plain:
    def title(self) -> str:
        return "Diagnosis of the pasted report\n"

    def lead(self, label: str, text: str) -> str:
        return f"{label} {text}"

    def text(self, text: str) -> str:
        return text

    def item(self, text: str) -> str:
        return f"  {text}"

    def command(self, cmd: str) -> str:
        return cmd

    def block(self, lines: Tuple[str, ...], lang: str = "") -> List[str]:
        return [f"    {line}" for line in lines]


class _Markdown(_Plain):
    def title(self) -> str:
        return "## Diagnosis\n"

    def lead(self, label: str, text: str) -> str:
        return f"**{label}** {md_escape(text)}"

    def text(self, text: str) -> str:
        return md_escape(text)

    def item(self, text: str) -> str:
        return f"- {md_escape(text)}"

    def command(self, cmd: str) -> str:
        return cmd  # escaped by item(); the commands are gpudoctor's own

    def block(self, lines: Tuple[str, ...], lang: str = "text") -> List[str]:
        return ["", fence("\n".join(lines), lang)] if lines else []


def lead_for(report: Report, fmt: Any) -> str:
    """The answer that leads ``diagnose``'s output for a pasted report; none in JSON, whose keys are stable."""
    from gpudoctor.render import Format

    return "" if fmt is Format.JSON else render_answer(report, markdown=fmt is Format.MARKDOWN)


def styled_with(lead: str, styled: Callable[[], Any]) -> Any:
    """The rich terminal report with the answer before it."""
    from rich.text import Text

    text = Text(lead)
    text.append_text(styled())
    return text
