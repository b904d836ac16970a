"""Reads a whole pasted issue body: segments, a parser per format, and one merged Facts with provenance.

``read_paste`` never refuses text that holds anything recognisable; ``Paste.recognised`` is False
only when no parser found anything, and the caller then says what to paste.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from gpudoctor.compat import gpu_info
from gpudoctor.facts import Facts, Meta, Source
from gpudoctor.parsers.collect_env.infer import infer
from gpudoctor.parsers.collect_env.text import FIELDS
from gpudoctor.parsers.collect_env.warnings import scan
from gpudoctor.parsers.paste import (apple, availability, containers, installs, keyvalue, logs, namespaces, oneliners, packages,
                                     prose, pypi, signatures, tools, vendors, wsl)
from gpudoctor.parsers.paste.merge import Conflict, merge
from gpudoctor.parsers.paste.observe import QUOTE_CHARS, Observation, Parser, observe, printable, run_all
from gpudoctor.parsers.paste.segments import MAX_LINE, Body, Segment, split
from gpudoctor.parsers.paste.signatures import Sig

_COLLECT_ENV_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:" + "|".join(re.escape(label) for _, labels in FIELDS for label in labels) + r")\s*:", re.I
)
PARSERS: Tuple[Parser, ...] = (  # the catalogue's messages are read first, by ``_readers``
    signatures.tracebacks,
    signatures.xformers_versions,
    tools.nvidia_smi,
    tools.nvcc,
    tools.ldd,
    tools.ld_library_path,
    tools.dmesg_xid,
    tools.kernel_modules,
    tools.batch_jobs,
    tools.jetson,
    tools.torch_sources,
    tools.arch_list,
    tools.yolo_checks,
    tools.import_crashes,
    apple.apple_hints,
    tools.platform_hints,
    tools.interpreter_paths,
    packages.package_lists,
    packages.resolver_conflicts,
    keyvalue.key_values,
    keyvalue.one_liners,
    logs.launcher_versions,
    containers.container_runs,
    containers.ngc_banner,
    wsl.wsl_hints,
    logs.launcher_devices,
    prose.gpu_mentions,
    prose.arch_mentions,
    prose.stated_versions,
    prose.visible_devices,
    prose.two_answers,
    prose.in_containers,
    prose.gpu_works,
    prose.smi_works,
    prose.pipeline_on_cpu,
    namespaces.namespaces,
    installs.install_logs,
    installs.conda_commands,
    installs.nix_packages,
    vendors.amd_gpu,
    pypi.hints,
)
# What a paste says in passing about the machine: context for the facts, not enough to call the paste recognised.
CONTEXT_PATHS = frozenset({"amd_gpu", "intel_gpu", "nvidia_named", "rocm_index", "torch_index", "mac.chip", "torch_source",
                           "python_command", "container_said", "smi_works", "device_asked", signatures.TRACEBACK_CUT}) | pypi.NOT_MERGED


_NOT_MERGED = frozenset({"gpus.cc", "gpus.arch_said", installs.NOW, installs.NOW_CPU, installs.CONDA_FORGE,
                         installs.CONDA_NO_BUILD, installs.NIX_TORCH, prose.DRIVER_SAID, prose.BUILD_SAID}) | pypi.NOT_MERGED


@dataclass(frozen=True)
class Paste:
    """What a paste said: the facts, where each value came from, and what disagreed."""

    facts: Facts
    body: Body
    observations: Tuple[Observation, ...]
    conflicts: Tuple[Conflict, ...]

    @property
    def recognised(self) -> bool:
        # the reporter's words that the GPU is unused are the symptom: alone, they leave the paste to be asked for
        if any(obs.path not in CONTEXT_PATHS and obs.value is not Sig.SAID_UNUSED for obs in self.observations):
            return True
        # an AMD or Intel GPU named where no NVIDIA one is: a fact of the machine that settles much on its own
        paths = {obs.path for obs in self.observations}
        return bool(paths & {"amd_gpu", "intel_gpu"}) and "nvidia_named" not in paths

    @property
    def formats(self) -> Tuple[str, ...]:
        return tuple(dict.fromkeys(obs.fmt for obs in self.observations))

    def signatures(self) -> Tuple[Sig, ...]:
        return tuple(dict.fromkeys(obs.value for obs in self.observations if obs.path == "signature"))


_AMD_NAME = re.compile(r"Radeon|\bVega\b|\bNavi\b|\bgfx\d|\bAMD\b|Instinct", re.I)


def _warning_signals(segment: Segment) -> Iterator[Observation]:
    """The architecture and compute-capability facts torch's own warnings carry (collect_env's classifier)."""
    text = segment.text()
    if "capability" not in text:
        return
    sig = scan(text)
    anchor = next((line for line in segment.lines if "capability" in line.text), segment.lines[0])
    if sig.arch_flags:
        yield observe("torch.arch_flags", tuple(sig.arch_flags), segment, anchor, "torch warning")
    for name, cc in sig.name_ccs.items():
        if _AMD_NAME.search(name):
            continue  # a ROCm build's warning: the capability it names is a placeholder, and the GPU no NVIDIA one
        yield observe("gpus", (None, name), segment, anchor, "torch warning")
        yield observe("gpus.cc", (name, cc), segment, anchor, "torch warning")
    for warning in sig.warnings:
        yield observe("torch.warnings", warning, segment, anchor, "torch warning")


# a DLL torch ships (torch\lib): a Windows error loading one is an error importing torch
_TORCH_DLL = re.compile(r"torch|\b(?:c10(?:_cuda)?|fbgemm|caffe2_nvrtc|asmjit|libiomp5md|uv|cudnn\w*|cublas\w*|cufft\w*|"
                        r"cusparse\w*|cusolver\w*|curand\w*|nvrtc\w*|cudart\w*|zlibwapi)\.dll", re.I)


def _derive(facts: Facts, found: Tuple[Sig, ...]) -> Facts:
    """What the observed values imply: an installed torch, a CPU build, the platform of a DLL error."""
    torch, platform = facts.torch, facts.platform
    if torch.version and torch.installed is None:
        torch = dataclasses.replace(torch, installed=True)
    if torch.version and "+cpu" in torch.version and torch.cuda_compiled is None:
        torch = dataclasses.replace(torch, cuda_compiled=False)
    if Sig.NOT_COMPILED in found and torch.cuda_compiled is None and torch.cuda is None:
        torch = dataclasses.replace(torch, cuda_compiled=False)
    if Sig.CUDA_UNAVAILABLE in found and torch.is_available is None:
        torch = dataclasses.replace(torch, is_available=False)
    if Sig.NO_TORCH in found and not torch.version and torch.installed is None:
        torch = dataclasses.replace(torch, installed=False)
    if Sig.ARCH_MISMATCH in found and platform.system != "Darwin":  # dlopen's "mach-o file": only macOS says it
        platform = dataclasses.replace(platform, system="Darwin")
    if Sig.WIN_DLL in found:
        if platform.system is None:
            platform = dataclasses.replace(platform, system="Windows")
        if torch.installed is None and _TORCH_DLL.search(torch.import_error or ""):
            torch = dataclasses.replace(torch, installed=True)
    return dataclasses.replace(facts, torch=torch, platform=platform)


_MANGLED = re.compile(r"_ZN\w+")


def _one_library(observations: List[Observation]) -> List[Observation]:
    """A missing symbol told twice, once without its library (a title) and once naming torchvision's or torch's own
    library: it is that library's, not another extension's."""
    named = {m.group() for o in observations if o.value in (Sig.TORCHVISION_NMS, Sig.TORCH_FILES_MIXED)
             for m in _MANGLED.finditer(o.quote)}
    if not named:
        return observations
    return [o for o in observations if not (o.value is Sig.EXTENSION_ABI
                                            and {m.group() for m in _MANGLED.finditer(o.quote)} & named)]


def _arch_only(observations: List[Observation]) -> List[Observation]:
    """A GPU the paste names only by its compute capability ("sm_120", "SM 12.0"), where no product name is given,
    or by a name sold with several chips ("GT 730, compute capability 3.5")."""
    said = next((o for o in observations if o.path == "gpus.arch_said"), None)
    if said is None or any(o.path == "gpus.cc" for o in observations):
        return []
    names = [o.value if o.path == "gpus.mentioned" else o.value[1] for o in observations
             if o.path in ("gpus", "gpus.mentioned")]
    if names:
        info = gpu_info(names[0])
        if len(set(names)) > 1 or info is None or info.cc is not None:
            return []
        return [dataclasses.replace(said, path="gpus.cc", value=(names[0], said.value))]
    name = f"a GPU of compute capability {said.value[0]}.{said.value[1]}"
    return [dataclasses.replace(said, path="gpus.mentioned", value=name),
            dataclasses.replace(said, path="gpus.cc", value=(name, said.value))]


def _with_ccs(facts: Facts, observations: List[Observation]) -> Facts:
    ccs = {obs.value[0].lower(): obs.value[1] for obs in observations if obs.path == "gpus.cc"}
    if not ccs or not facts.gpus:
        return facts
    gpus = []
    for gpu in facts.gpus:
        name = (gpu.name or "").lower()
        cc = next((v for k, v in ccs.items() if k and (k in name or name in k)), None)
        gpus.append(dataclasses.replace(gpu, compute_capability=cc) if cc and gpu.compute_capability is None else gpu)
    return dataclasses.replace(facts, gpus=tuple(gpus))


def _readers(body: Body) -> Tuple[Parser, ...]:
    """Every reader of segments, the catalogue's narrowed to the messages whose pre-test words the paste holds."""
    literals = signatures.in_words(body.words)
    reader = functools.partial(signatures.signatures, literals=literals, catalogue=signatures.narrowed(literals))
    return (reader,) + PARSERS + (_warning_signals,)


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a paste is read: reading makes a few objects per line and no cycles, and
    each collection walks every object still alive, so on a large paste the collector grew faster than the paste."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def read_paste(text: str, base: Optional[Facts] = None, base_format: str = "") -> Paste:
    """The facts in ``text``; ``base`` (collect_env or a gpudoctor report found in it) takes precedence."""
    with _no_cycle_collection():
        return _read_paste(text, base, base_format)


def _read_paste(text: str, base: Optional[Facts], base_format: str) -> Paste:
    body = split(text)
    observations = list(run_all(_readers(body), body.segments))
    observations += prose.answers_above_code(body.segments)
    observations += oneliners.r_console(body.segments)
    observations.sort(key=lambda o: o.line)  # "first" means first in the paste, whichever parser read it
    if base is not None:  # collect_env's own fields are its parser's to read
        observations = [o for o in observations if not (o.fmt == "env report" and _COLLECT_ENV_LABEL.match(o.quote))]
    observations = availability.with_availability(_one_library(observations)) + _arch_only(observations)
    observations += availability.extension_c_missing(body, observations)
    observations += availability.mac_asks_cuda(body, observations)
    observations += availability.said_unused(body, observations)
    observations += availability.on_colab(body, observations)
    observations = availability.in_ray_task(body, observations)
    observations += availability.in_desktop_vm(body, observations)
    start = base if base is not None else Facts(meta=Meta(gpudoctor_version=_version(), source=Source.PASTE.value))
    merged = merge(start, [o for o in observations if o.path not in _NOT_MERGED], base_format)
    found = tuple(dict.fromkeys(o.value for o in observations if o.path == "signature"))
    facts = _with_ccs(_derive(installs.apply_now(merged.facts, observations), found), observations)
    facts = prose.said_build(prose.said_driver(facts, observations), observations)
    facts = wsl.before_wsl2(installs.conda_forge_cpu(facts, observations), observations)
    facts = installs.nix_cpu_torch(installs.conda_no_cuda_build(facts, observations), observations)
    explained = any(sig not in (Sig.CUDA_UNAVAILABLE, Sig.SAID_UNUSED) for sig in found)
    facts, pin_note = pypi.pinned_torch(facts, observations)
    facts, smi_note = pypi.smi_system(facts, observations)
    facts, windows_note = pypi.windows_cpu_wheel(facts, observations, explained)
    facts, linux_note = pypi.linux_default_build(facts, observations)
    facts, notes = infer(facts, conda_torch=False)
    notes += pin_note + smi_note + windows_note + linux_note
    if base is not None:
        notes += list(_base_lines(body, base)) + list(_later_reports(text, base))
    if body.cut_lines:
        notes.append(("paste.unread", f"{body.cut_lines} line(s) longer than {MAX_LINE} characters were cut"))
    extra = facts.extra + tuple(notes)
    facts = dataclasses.replace(facts, extra=_dedupe(extra), meta=dataclasses.replace(facts.meta, source=start.meta.source))
    return Paste(facts, body, tuple(observations), merged.conflicts)


_BASE_LABELS = (
    ("torch.version", re.compile(r"^\s*(?:[-*]\s+)?PyTorch version\s*:", re.I)),
    ("torch.cuda", re.compile(r"^\s*(?:[-*]\s+)?CUDA used to build PyTorch\s*:", re.I)),
    ("torch.is_available", re.compile(r"^\s*(?:[-*]\s+)?Is CUDA available\s*:", re.I)),
    ("driver.version", re.compile(r"^\s*(?:[-*]\s+)?Nvidia driver version\s*:", re.I)),
    ("gpus.0", re.compile(r"^\s*(?:[-*]\s+)?(?:GPU models and configuration\s*:\s*\S|GPU 0\s*:)", re.I)),
)


def _base_lines(body: Body, base: Facts) -> Tuple[Tuple[str, str], ...]:
    """Line numbers for the values a collect_env report gave, found by their labels and message texts."""
    wanted = [(path, rx) for path, rx in _BASE_LABELS]
    messages = [(path, text[:60]) for path, text in (("torch.init_error", base.torch.init_error),
                                                   ("torch.import_error", base.torch.import_error)) if text]
    messages += [("torch.warnings", w[:60]) for w in base.torch.warnings[:1]]
    found = {}
    for segment in body.segments:
        for line in segment.lines:
            for path, rx in wanted:
                if path not in found and rx.match(line.text):
                    found[path] = f"{line.number}: {printable(line.text.strip()[:QUOTE_CHARS])}"
            for path, head in messages:
                if path not in found and head[:30] in line.text:
                    found[path] = f"{line.number}: {printable(line.text.strip()[:QUOTE_CHARS])}"
    return tuple((f"paste.line.{path}", value) for path, value in found.items())


MAX_NOTES = 400  # paste.* notes kept in the facts; a huge paste must not make a huge facts file


_REPORT_START = re.compile(r"^\s*(?:[>*-]\s*)*(?:Collecting environment information|PyTorch version\s*:)", re.I | re.M)
_COMPARED = (
    ("torch.version", lambda f: f.torch.version),
    ("torch.cuda", lambda f: f.torch.cuda),
    ("torch.is_available", lambda f: f.torch.is_available),
    ("driver.version", lambda f: f.driver.version),
    ("gpus", lambda f: ", ".join(g.name or "" for g in f.gpus) or None),
)


def _later_reports(text: str, base: Facts) -> Tuple[Tuple[str, str], ...]:
    """When a paste holds several collect_env reports (host and container, before and after), the values the
    later ones disagree on, as conflicts: the first report is the one judged."""
    if not any(key == "collect_env.more_reports" for key, _ in base.extra):
        return ()
    from gpudoctor.parsers import collect_env

    starts = [m.start() for m in _REPORT_START.finditer(text)]
    firsts = [i for n, i in enumerate(starts) if n == 0 or text[starts[n - 1]:i].count("\n") > 3]
    out: List[Tuple[str, str]] = []
    for start in firsts[1:4]:
        try:
            other = collect_env.parse(text[start:])
        except collect_env.ParseError:
            continue
        line = text.count("\n", 0, start) + 1
        for path, value in _COMPARED:
            mine, theirs = value(base), value(other)
            if mine is not None and theirs is not None and mine != theirs:
                out.append(("paste.conflict", f"{path}: {mine} (the first report) vs {theirs} (the report at line {line})"))
    return tuple(out)


def _dedupe(extra: Tuple[Tuple[str, str], ...]) -> Tuple[Tuple[str, str], ...]:
    seen = set()
    out = []
    notes = 0
    for key, value in extra:
        mark = key if key.startswith("paste.line.") else (key, value)
        if mark in seen:
            continue
        if key.startswith("paste."):
            notes += 1
            if notes > MAX_NOTES:
                continue
        seen.add(mark)
        out.append((key, value))
    return tuple(out)


def _version() -> str:
    from gpudoctor import __version__

    return __version__
