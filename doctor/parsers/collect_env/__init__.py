"""Parses the text of `python -m torch.utils.collect_env`, as users paste it, into (partial) facts.

What collect_env gets wrong is not repeated: its "CUDA runtime version" is the nvcc found on PATH
(-> ``toolkit.nvcc_version``, never ``torch.cuda``) and its "cuDNN version" lists the system's
libcudnn files (-> ``extra``, never ``torch.cudnn_version``). The warnings torch prints before the
first field (driver too old, GPU too old or too new) are kept in ``torch.init_error`` and
``torch.warnings``, and an architecture list printed there becomes ``torch.arch_flags`` (observed).
What the paste does not carry stays None and ``probe_errors`` says why; values looked up in the
compatibility tables are listed in ``inferred`` (see ``infer``).

Several reports pasted at once: the first is parsed and ``extra`` records how many followed
(``collect_env.more_reports``); the others are not merged into it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, Tuple

from gpudoctor.facts import EnvFacts, Facts, Gpu, Meta, Source
from gpudoctor.parsers.collect_env.facts import (
    companion_facts,
    driver_facts,
    gpu_entries,
    platform_facts,
    toolkit_facts,
    torch_facts,
)
from gpudoctor.parsers.collect_env.infer import infer
from gpudoctor.parsers.collect_env.notes import extra_notes, probe_errors
from gpudoctor.parsers.collect_env.packages import parse_packages
from gpudoctor.parsers.collect_env.text import RawReport, known, normalise, split_reports
from gpudoctor.parsers.collect_env.warnings import Signals, scan
from gpudoctor.errors import UserError

MAX_CHARS = 2_000_000
_SNIFF_CHARS = 65_536
_STRONG = (
    "pytorch version", "is debug build", "cuda used to build pytorch", "rocm used to build pytorch",
    "is cuda available", "cuda runtime version", "gpu models and configuration", "nvidia driver version",
    "cudnn version", "versions of relevant libraries", "collecting environment information",
    "python platform", "libc version", "hip runtime version", "miopen runtime version",
)
_JSON_START = re.compile(r'^\s*(\{|\[\s*[\[{"\]\d-])')
_TORCH_WARNINGS = (
    "which is of compute capability", "which is of cuda capability", "is not compatible with the current pytorch",
    "cuda initialization:", "torch not compiled with cuda",
)
class ParseError(UserError, ValueError):
    """The text is not a usable collect_env report; the message is one line for the user."""


def looks_like_collect_env(text: str) -> bool:
    """Cheap test: at least two collect_env labels near the start, and not a gpudoctor report or JSON."""
    head = text[:_SNIFF_CHARS]
    if _JSON_START.match(head) or "gpudoctor-facts" in head or "\x00" in head:
        return False
    low = re.sub(r"[ \t]+", " ", head.lower().replace("\uff1a", ":").replace("**", ""))
    labels = sum(1 for label in _STRONG if label in low)
    return labels >= 2 or (labels == 1 and "collecting environment information" in low
                           and any(phrase in low for phrase in _TORCH_WARNINGS))


def parse(text: str) -> Facts:
    """Facts from a pasted collect_env report; ParseError when nothing usable is in it."""
    _refuse_bad_input(text)
    lines = normalise(text)
    _, reports = split_reports(lines)
    usable = [r for r in reports if len(r.collect_env_fields()) >= 2 or r.order and _template(r)]
    end = _report_end(lines, usable)
    sig = scan("\n".join(lines[:end] if end is not None else lines))
    if not usable:
        # collect_env's header and torch's warnings, cut off before the first field
        header_only = [r for r in reports if r.header]
        if header_only and _speaks(sig):
            return _build(header_only[0], sig, more=0)
        raise ParseError(_what_it_is(text))
    return _build(usable[0], sig, more=len(usable) - 1)


def _speaks(sig: Signals) -> bool:
    return bool(sig.arch_flags or sig.device_ccs or sig.init_error or sig.torchvision_error or sig.import_error)


def _template(raw: RawReport) -> bool:
    return sum(1 for key in raw.order if key.startswith("tpl_") or key == "gpus") >= 2


def _refuse_bad_input(text: str) -> None:
    if not isinstance(text, str):
        raise ParseError("collect_env input must be text")
    if len(text) > MAX_CHARS:
        raise ParseError(
            f"the input is too large ({len(text) // 1_000_000} MB); paste only the output of "
            "`python -m torch.utils.collect_env`"
        )
    if not text.strip():
        raise ParseError("the input is empty; paste the output of `python -m torch.utils.collect_env`")
    sample = text[:_SNIFF_CHARS]
    bad = sum(1 for ch in sample if ch == "\x00" or ch == "\ufffd" or (ord(ch) < 32 and ch not in "\n\r\t\f"))
    if "\x00" in sample or bad > max(8, len(sample) // 100):
        raise ParseError("the input looks like binary data, not the text of a collect_env report")


def _what_it_is(text: str) -> str:
    """A one-line refusal that says what the text seems to be instead."""
    head = text.lstrip()[:4000]
    if _JSON_START.match(head):
        kind = "JSON that is not a gpudoctor report"
    elif "Traceback (most recent call last)" in head:
        kind = "a Python traceback"
    elif re.search(r"^(Collecting (?!environment)|Requirement already satisfied|Downloading|Successfully installed|"
                   r"Looking in indexes)", head, re.M):
        kind = "a pip log"
    elif "NVIDIA-SMI" in head:
        kind = "nvidia-smi output"
    else:
        kind = "text without collect_env fields"
    return (
        f"not a collect_env report (this looks like {kind}); paste the output of "
        "`python -m torch.utils.collect_env`"
    )


def _report_end(lines: List[str], reports: List[RawReport]) -> Optional[int]:
    """The line where the second report starts, so that its warnings are not read as the first one's."""
    if len(reports) < 2:
        return None
    seen = 0
    for i, line in enumerate(lines):
        if re.match(r"^\s*(collecting environment information|(?:[-*+]\s+)?pytorch version\s*:)", line, re.I):
            if line.strip().lower().startswith("collecting") or seen == 0 or not _after_header(lines, i):
                seen += 1
                if seen == 2:
                    return i
    return None


def _after_header(lines: List[str], i: int) -> bool:
    for back in range(i - 1, max(-1, i - 30), -1):
        if lines[back].strip().lower().startswith("collecting environment information"):
            return True
        if re.match(r"^\s*(?:[-*+]\s+)?pytorch version\s*:", lines[back], re.I):
            return False
    return False


def _build(raw: RawReport, sig: Signals, more: int) -> Facts:
    pkgs = parse_packages(raw.libraries)
    conda = pkgs.conda_package("torch")
    conda_torch = conda is not None and not conda.from_pypi
    libraries_read = "libraries" in raw.fields and (pkgs.pip_collected is not None or pkgs.conda_collected is not None)
    gpus, devices, gpu_notes = gpu_entries(raw)
    gpus = _with_observed_cc(gpus, sig)
    torch = torch_facts(raw, sig, pkgs, conda_torch)
    if devices and not torch.devices:
        torch = dataclasses.replace(torch, devices=devices)
    facts = Facts(
        meta=Meta(gpudoctor_version=_version(), source=Source.COLLECT_ENV.value),
        platform=platform_facts(raw),
        driver=driver_facts(raw, sig, len(gpus) if gpus else None),
        gpus=gpus,
        torch=torch,
        torchvision=companion_facts("torchvision", pkgs, libraries_read, sig),
        torchaudio=companion_facts("torchaudio", pkgs, libraries_read, sig),
        packages=pkgs.distributions(),
        toolkit=toolkit_facts(raw),
        env=_env(raw),
    )
    facts, notes = infer(facts, conda_torch)
    extra = extra_notes(raw, sig, pkgs, more) + gpu_notes + notes
    return dataclasses.replace(facts, extra=tuple(extra), probe_errors=tuple(probe_errors(raw, pkgs, facts)))


def _version() -> str:
    from gpudoctor import __version__

    return __version__


def _norm_name(name: str) -> str:
    return re.sub(r"^(nvidia|geforce)\s+", "", name.strip().lower())


def _with_observed_cc(gpus: Tuple[Gpu, ...], sig: Signals) -> Tuple[Gpu, ...]:
    """Compute capabilities torch printed in its warnings, matched to the GPUs by name."""
    if not sig.name_ccs:
        return gpus
    by_name = {_norm_name(name): cc for name, cc in sig.name_ccs.items()}
    out = []
    for gpu in gpus:
        mine = _norm_name(gpu.name or "")
        cc = by_name.get(mine) or next(
            (v for k, v in by_name.items() if mine and (mine.endswith(k) or k.endswith(mine))), None
        )
        out.append(dataclasses.replace(gpu, compute_capability=cc) if cc else gpu)
    return tuple(out)


_ENV_LINE = re.compile(r"^((?:CUDA|NCCL|NVIDIA|PYTORCH|TORCH|CUBLAS|CUDNN|OMP|MKL)\w*|LD_LIBRARY_PATH)=(.*)$")


def _env(raw: RawReport) -> EnvFacts:
    """PYTORCH_* allocator settings, and the NAME=value lines some collect_env variants (vLLM's) append."""
    pairs: Dict[str, str] = {}
    for line in raw.libraries:
        m = _ENV_LINE.match(line)
        if m:
            pairs[m.group(1)] = m.group(2)
    conf = known(raw.value("alloc_conf"))
    if conf:
        pairs.update(re.findall(r"['\"]?(PYTORCH_\w+)['\"]?\s*:\s*['\"]([^'\"]*)['\"]", conf))
    return EnvFacts(variables=tuple(sorted(pairs.items())))
