"""Root causes: the problems of a report grouped so that one cause seen by several checks counts once.

Three rules join findings into one cause:

1. Findings that declare the same ``cause`` key join.
2. A finding that declares ``cause`` K joins the first finding whose own code is K: K names the finding that
   judges that cause (a pasted error message declares the code of the check that reads the same cause from
   the facts).
3. A finding whose code is listed in ``CONSEQUENCES`` joins the first finding of the first listed code present
   in the report: it is a symptom of that finding, which names the cause and carries the fix.

Every other warning or error is its own cause; a crashed check is a cause of its own too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

from gpudoctor.model import Finding, Report, Severity, Status

# Findings that say why torch cannot start CUDA; "CUDA is unavailable" is their symptom.
WHY_CUDA_FAILS: Tuple[str, ...] = (
    "paste.jetson-torch",
    "paste.job-without-gpu",
    "driver.too-old-for-torch",
    "torch.cpu-build-on-gpu",
    "torch.rocm-build-on-nvidia",
    "torch.cuda-build-on-amd",
    "platform.wsl",
    "platform.container",
    "platform.no-nvidia-gpu",
    "devices.visible",
    "devices.mig",
    "env.variables",
    "env.cuda-vars",
    "driver.not-loaded",
    "driver.nouveau",
    "driver.nvml-mismatch",
    "driver.nvml-error",
    "driver.fabric-manager",
    "driver.uvm",
    "gpu.arch-too-new",
    "gpu.arch-too-old",
    "torch.import-failed",
    "libs.missing",
    "libs.shadowed",
    "libs.wrong-version",
    "windows.dll-load-failed",
    "paste.no-device",
    "paste.error-803",
    "paste.error-804",
    "paste.nvml-unknown-error",
    "paste.docker-no-gpu-driver",
    "paste.container-toolkit-no-driver",
    "paste.libcuda-missing",
    "paste.invalid-device-ordinal",
    "paste.gpu-fell-off-the-bus",
    "paste.xid",
    "paste.driver-too-old",
    "paste.driver-insufficient",
    "paste.not-compiled-with-cuda",
    "paste.cpu-build",
    "paste.two-environments",
    "paste.environments",
    "paste.macos-no-cuda",
    "paste.colab-no-gpu",
)

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
    # import torch fails on the very library that libs.missing names
    "torch.import-failed": ("libs.missing", "paste.windows-paging-file", "platform.machine"),
    # MPS is missing because the Python runs as x86_64 under Rosetta: the machine check names the cause and fix
    "platform.macos": ("platform.machine",),
    # pip finds no torch newer than 2.2.2 for an x86_64 Python on a Mac: the machine check says why
    "paste.torch-version-not-found": ("platform.machine",),
    # the module is not loaded because Secure Boot refused it; inside a container, WSL 1 or a Slurm job without a
    # GPU request the driver is not this process's to load: no driver there is the platform's doing
    "driver.not-loaded": ("paste.secure-boot", "platform.container", "platform.wsl", "paste.job-without-gpu",
                          "paste.colab-no-gpu"),
    "paste.no-device": ("platform.container", "paste.colab-no-gpu"),
    "paste.no-driver": ("paste.colab-no-gpu",),
    "paste.smi-no-driver": ("platform.container",),
    # ROCm finds no GPU under WSL: the WSL check names the runtime that reaches it
    "paste.hip-no-device": ("platform.wsl", "torch.rocm-build-on-nvidia"),
    # a CUDA torch on a machine whose GPU is AMD reads any NVIDIA driver there as too old, or finds none
    "paste.driver-too-old": ("torch.cuda-build-on-amd",),
    "driver.too-old-for-torch": ("torch.cuda-build-on-amd",),
    "paste.libcuda-missing": ("platform.container",),
    # pasted messages whose cause a structural check judges, when it is not the one their ``cause`` names
    "paste.no-kernel-image": ("gpu.arch-too-old",),
    "paste.sm-incompatible": ("gpu.arch-too-old",),
    "paste.torchvision-nms": ("torchvision.version-mismatch", "torchvision.cuda-mismatch"),
    # "CUDA is unavailable" says nothing of why: any check that finds why CUDA cannot work explains it
    "paste.cuda-unavailable": WHY_CUDA_FAILS,
    "torch.cuda-unavailable": WHY_CUDA_FAILS,
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


class _Groups:
    """Union-find over the indices of a report's problems."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def root(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def join(self, a: int, b: int) -> None:
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _explainer(finding: Finding, first: Dict[str, int]) -> Optional[int]:
    """The index of the finding that ``finding`` is a listed consequence of, when one is present."""
    return next((first[code] for code in CONSEQUENCES.get(finding.code, ()) if code in first), None)


def _subordinate(finding: Finding, first: Dict[str, int]) -> bool:
    """A finding that points at another as its cause: it is evidence, not the lead, when that one is present."""
    declared = bool(finding.cause) and finding.cause != finding.code and finding.cause in first
    return declared or _explainer(finding, first) is not None


def causes(report: Report) -> Tuple[Cause, ...]:
    """The report's warnings and errors grouped by root cause, in report order of each cause's first finding.

    A finding that declares no ``cause`` and is no listed consequence is a cause of its own, even when another
    finding has the same code (two variables set wrong are two problems).
    """
    problems = _problems(report)
    first: Dict[str, int] = {}
    for index, (_, finding) in enumerate(problems):
        first.setdefault(finding.code, index)
    groups = _Groups(len(problems))
    declared: Dict[str, int] = {}
    for index, (_, finding) in enumerate(problems):
        if finding.cause:
            groups.join(index, declared.setdefault(finding.cause, index))
            if finding.cause in first:
                groups.join(index, first[finding.cause])
        explainer = _explainer(finding, first)
        if explainer is not None:
            groups.join(index, explainer)
    members: Dict[int, List[Tuple[str, Finding]]] = {}
    for index, item in enumerate(problems):
        members.setdefault(groups.root(index), []).append(item)
    out: List[Cause] = []
    for group in members.values():
        lead = next((m for m in group if not _subordinate(m[1], first)), group[0])
        rest = tuple(f for _, f in group if f is not lead[1])
        checks = tuple(dict.fromkeys(c for c, _ in group))
        out.append(Cause(lead=lead[1], checks=checks, symptoms=rest))
    for result in report.results:
        if result.status is Status.CRASH:
            crash = Finding(f"crash:{result.check}", Severity.ERROR, f"check {result.title or result.check} crashed")
            out.append(Cause(lead=crash, checks=(result.check,)))
    return tuple(out)
