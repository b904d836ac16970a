"""What a parsed report says about itself: notes for ``Facts.extra`` and the reasons parts are missing."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from gpudoctor.facts import SMI_UNREAD, Facts
from gpudoctor.parsers.collect_env.packages import Packages, conda_build_cuda
from gpudoctor.parsers.collect_env.text import ORDER, RawReport, join_wrapped, known
from gpudoctor.parsers.collect_env.warnings import Signals

_SECTIONS = {
    "torch_version": ("torch", "PyTorch version"),
    "cuda_build": ("torch", "CUDA used to build PyTorch"),
    "cuda_available": ("torch", "Is CUDA available"),
    "os": ("platform", "OS"),
    "python_version": ("platform", "Python version"),
    "gpus": ("gpus", "GPU models and configuration"),
    "driver": ("driver", "Nvidia driver version"),
    "libraries": ("packages", "Versions of relevant libraries"),
}
_NOT_IN_PASTE = (
    ("libraries", "a collect_env paste does not show the libraries torch loaded or the loader's search path"),
    ("env", "a collect_env paste does not show environment variables"),
)


def extra_notes(raw: RawReport, sig: Signals, pkgs: Packages, more: int) -> List[Tuple[str, str]]:
    """Fields with no place in Facts (system cuDNN, nvcc, compilers, conda builds) and notes on the paste."""
    out: List[Tuple[str, str]] = []
    cudnn = [line for line in raw.fields.get("cudnn") or [] if known(line)]
    if cudnn:
        files = [line for line in cudnn if not line.lower().startswith("probably one of")]
        out.append(("collect_env.system_cudnn", "; ".join(files or cudnn)))
    for key, label in (
        ("cuda_runtime", "collect_env.nvcc"), ("gcc", "collect_env.gcc"), ("cmake", "collect_env.cmake"),
        ("cuda_module_loading", "collect_env.cuda_module_loading"), ("hip_runtime", "collect_env.hip_runtime"),
        ("miopen", "collect_env.miopen_runtime"), ("xpu_build", "collect_env.xpu_build"),
        ("tpl_install", "collect_env.installed_with"), ("tpl_cuda", "collect_env.template_cuda_cudnn"),
    ):
        value = known(join_wrapped(raw.fields.get(key) or []))
        if value:
            out.append((label, value))
    xpu = raw.fields.get("xpu_available")
    if xpu and known(xpu[0]):
        out.append(("collect_env.xpu_available", xpu[0]))
    if raw.value("debug") and raw.value("debug").lower() in ("yes", "true"):  # type: ignore[union-attr]
        out.append(("collect_env.debug_build", "yes"))
    for name in ("pytorch", "torch", "torchvision", "torchaudio", "pytorch-cuda", "cudatoolkit", "cpuonly", "pytorch-mutex"):
        pkg = pkgs.conda_has(name)
        if pkg and not pkg.from_pypi:
            out.append((f"conda.{pkg.name}", " ".join(x for x in (pkg.version, pkg.build, pkg.channel) if x)))
            cuda = conda_build_cuda(pkg.build) if pkg.build else None
            if cuda:  # the build string classified once here: "cpu", or the CUDA version it was built for
                out.append((f"conda.{pkg.name}.cuda", cuda))
    model = next((re.sub(r"^(Model name|Name)\s*[:=]\s*", "", line) for line in raw.cpu
                  if re.match(r"^(Model name|Name)\s*[:=]", line)), None)
    if model:
        out.append(("collect_env.cpu", model.strip()))
    if sig.min_cc:
        out.append(("torch.min_cc", f"{sig.min_cc[0]}.{sig.min_cc[1]}"))
    if sig.max_cc:
        out.append(("torch.max_cc", f"{sig.max_cc[0]}.{sig.max_cc[1]}"))
    if sig.arch_from_code_list:
        out.append(("torch.arch_flags_source", "rebuilt from torch's list of the CCs it was built for"))
    if more:
        out.append(("collect_env.more_reports", f"{more} more report(s) followed the first; only the first was read"))
    return out


def probe_errors(raw: RawReport, pkgs: Packages, facts: Facts) -> List[Tuple[str, str]]:
    """(section, reason) for each part of the facts the paste could not fill."""
    errors: List[Tuple[str, str]] = []
    seen = set(raw.order)
    cut = cut_off_at(raw)
    for key, (section, label) in _SECTIONS.items():
        if key in seen or any(s == section for s, _ in errors):
            continue
        if key == "torch_version" and facts.torch.version:
            continue
        if key == "os" and facts.platform.system:
            continue
        why = f"the paste was cut off before '{label}'" if cut and (cut == "header" or ORDER.index(key) > ORDER.index(cut)) else (
            f"the paste has no '{label}' line")
        errors.append((section, why))
        if section == "packages":
            errors.append(("torchvision", why))
    value = raw.value("torch_version")
    if value is not None and known(value) is None and not any(s == "torch" for s, _ in errors):
        errors.append(("torch", f"collect_env could not import torch ('PyTorch version: {value.strip() or 'N/A'}')"))
    for key, label in (("driver", "Nvidia driver version"), ("gpus", "GPU models and configuration")):
        value = join_wrapped(raw.fields.get(key) or [])
        unread = key in seen and known(value) is None
        if unread and (facts.driver.version is None if key == "driver" else not facts.gpus):
            errors.append((key, f"collect_env printed '{label}: {value or 'Could not collect'}'"
                           f" ({SMI_UNREAD})"))
    if "libraries" in seen and pkgs.pip_collected is False:
        errors.append(("packages", "collect_env could not run pip ('[pip3] Could not collect')"))
    errors.extend(item for item in _NOT_IN_PASTE if not (item[0] == "env" and facts.env.variables))
    return errors


def cut_off_at(raw: RawReport) -> Optional[str]:
    """The last collect_env section present when later ones are missing (a paste cut off part-way)."""
    fields = [key for key in raw.collect_env_fields() if key in ORDER]
    if "libraries" in raw.fields or not (raw.header or "torch_version" in raw.fields):
        return None
    if not fields:
        return "header"
    return max(fields, key=ORDER.index)
