"""What torch's answers to is_available() and a paste's setting add to the messages read: a GPU torch saw but one run
did not (two answers), a Colab runtime without a GPU, and CUDA asked about on a Mac, which has none."""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, List

from gpudoctor.parsers.paste.observe import QUOTE_CHARS, Observation, printable
from gpudoctor.parsers.paste.segments import Body
from gpudoctor.parsers.paste.sigs import Sig

CUDA_FLIPS = "cuda_flips"  # torch answered True in one run and False in another
_NO_GPU_HERE = (Sig.CUDA_UNAVAILABLE, Sig.NO_DEVICE)  # what a run says when the GPU is hidden from it


def _unavailable(observations: List[Observation]) -> List[Observation]:
    """torch itself printing ``torch.cuda.is_available()`` as False, and no message saying more, says what
    "CUDA is not available" says. Where it also printed True, the install works and what differs between the runs
    hides the GPU: that is noted instead."""
    answers = [o for o in observations if o.path == "torch.is_available"]
    said = next((o for o in answers if o.value is False), None)
    works = next((o for o in answers if o.value is True), None)
    explained = any(o.path == "signature" and o.value not in _NO_GPU_HERE for o in observations)
    if said is not None and works is not None and not explained:  # a message saying why is what the False run met
        lines = f"True on line {works.line}, False on line {said.line}"
        return [dataclasses.replace(said, path=CUDA_FLIPS, value=lines)]
    none = next((o for o in observations if o.path == "signature" and o.value in _NO_GPU_HERE), None)
    if works is not None and none is not None and not explained:  # torch saw the GPU, then a run saw none
        lines = f"True on line {works.line}, then '{none.quote.strip()[:120]}' on line {none.line}"
        return [dataclasses.replace(none, path=CUDA_FLIPS, value=lines)]
    if any(o.path == "signature" for o in observations):
        return []
    return [dataclasses.replace(said, path="signature", value=Sig.CUDA_UNAVAILABLE)] if said else []


_COLAB = re.compile(r"(?<![\w.-])colab(?![\w.-])", re.I)  # the word, not a file name ("requirements-win-colab-cuda.txt")
_OP_CALL = re.compile(r"(?<![\w.])_C\.[a-z]\w*\(")  # an extension's op called through its _C module
_CUDA_WORD = re.compile(r"\bcuda\b|torch\.cuda\.", re.I)
_NO_GPU_SIGNS = (Sig.NO_DRIVER, Sig.CUDA_UNAVAILABLE, Sig.NO_DEVICE, Sig.SMI_NO_DRIVER, Sig.SAID_UNUSED)


def _signature_at(body: Body, sig: Sig, names: Callable[[str], object], fmt: str) -> List[Observation]:
    """``sig`` read at the first line of the paste that ``names`` accepts; nothing when no line does."""
    for i, segment in enumerate(body.segments):
        for line in segment.lines:
            if names(line.text):
                return [Observation("signature", sig, i, line.number, printable(line.text)[:QUOTE_CHARS], fmt)]
    return []


def on_colab(body: Body, observations: List[Observation]) -> List[Observation]:
    """A paste about a Colab notebook in which CUDA finds no GPU or driver: the runtime has no GPU attached (a
    local graphics card the reporter names is not the machine that ran it)."""
    signs = {o.value for o in observations if o.path == "signature"}
    if not signs & set(_NO_GPU_SIGNS) or Sig.COLAB_NO_GPU in signs:
        return []
    return _signature_at(body, Sig.COLAB_NO_GPU, lambda text: "olab" in text and _COLAB.search(text), "Colab")


# a Ray task's traceback or log: "ray::ImplicitFunc.train()", "ray.exceptions.RayTaskError(RuntimeError)", ray/tune/
_RAY = re.compile(r"\bray::\w|\bRayTaskError\b|[/\\]ray[/\\](?:tune|train|_private)[/\\]|\[Tune\]")


def in_ray_task(body: Body, observations: List[Observation]) -> List[Observation]:
    """CUDA finding no GPU inside a Ray task: Ray hides the GPUs from a task or trial that asks for none, so the
    message is Ray's scheduling, not the install (its lines become a healthy note instead)."""
    lines = [o.line for o in observations if o.path == "signature" and o.value is Sig.NO_DEVICE]
    if not lines or not any("ay" in text and _RAY.search(text) for text in body.texts):
        return observations
    kept = [o for o in observations if not (o.line in lines and (
        (o.path == "signature" and o.value is Sig.NO_DEVICE) or o.path == "torch.init_error"))]
    first = next(o for o in observations if o.path == "signature" and o.value is Sig.NO_DEVICE)
    return kept + [dataclasses.replace(first, value=Sig.RAY_NO_GPU, fmt="Ray task")]


# desktop hypervisors, whose guests get an emulated display adapter and no GPU
_HYPERVISOR = r"(?:VirtualBox|VMware(?:\s+(?:Workstation|Player|Fusion))?|Parallels(?:\s+Desktop)?)"
_DESKTOP_VM = re.compile(r"\b(?:in|inside|on|under|within|using)\s+(?:an?\s+|the\s+|my\s+)?" + _HYPERVISOR + r"\b|\b"
                         + _HYPERVISOR + r"\s+(?:VM|guest|virtual machine)\b", re.I)
_GPU_WORD = re.compile(r"\bCUDA\b|\bGPUs?\b|\bNVIDIA\b", re.I)
_PASSTHROUGH = re.compile(r"passthrough|pass-through|vGPU|ESXi|vSphere|DDA\b", re.I)


def in_desktop_vm(body: Body, observations: List[Observation]) -> List[Observation]:
    """A paste about a VirtualBox, VMware Workstation or Parallels guest in which CUDA finds no GPU: the guest has
    none (those hypervisors pass no NVIDIA GPU through)."""
    signs = {o.value for o in observations if o.path == "signature"}
    lines = body.texts
    hypervisor = any("irtual" in text or "VM" in text or "ware" in text or "arallels" in text for text in lines)
    if Sig.VM_NO_GPU in signs or not hypervisor or any(_PASSTHROUGH.search(text) for text in lines):
        return []
    if signs & set(_NO_GPU_SIGNS):
        return _signature_at(body, Sig.VM_NO_GPU, lambda text: _DESKTOP_VM.search(text) is not None, "virtual machine")
    # no message, but the question itself is about CUDA in such a guest: "Can I get CUDA inside a VMware VM?"
    return _signature_at(body, Sig.VM_NO_GPU, lambda text: _DESKTOP_VM.search(text) is not None
                         and _GPU_WORD.search(text) is not None, "virtual machine")


_FRAME = re.compile(r"^\s*File \"([^\"]+\.py)\", line \d+")
_TORCH_FILE = re.compile(r"[/\\]torch[/\\]")
_TORCH_WORKS = re.compile(r"^\s*CUDA is available\b", re.I)


def extension_c_missing(body: Body, observations: List[Observation]) -> List[Observation]:
    """"NameError: name '_C' is not defined" raised in a project's own file: its compiled ops (_C) did not build or
    load (GroundingDINO and the projects that copy its ops). Raised in torch's own files it is torch's C extension
    missing, which the import check reads."""
    lines = body.texts
    if not any("name '_C' is not defined" in text for text in lines) or any(
            o.path == "signature" for o in observations):
        return []
    frames = [m.group(1) for m in map(_FRAME.match, lines) if m]
    imports = any(o.path in ("torch.version", "torch.is_available", "torch.cuda") for o in observations) or any(
        _TORCH_WORKS.search(text) for text in lines)  # torch itself loads: its own _C is there
    op_call = any("_C." in text and _OP_CALL.search(text) for text in lines)  # "_C.ms_deform_attn_forward(": its op
    if any(_TORCH_FILE.search(path) for path in frames) or not (frames or imports or op_call):
        return []
    return _signature_at(body, Sig.EXT_BUILD_NO_CUDA, lambda text: "name '_C' is not defined" in text, "traceback")


def mac_asks_cuda(body: Body, observations: List[Observation]) -> List[Observation]:
    """On a Mac, which has no CUDA, a paste that asks about CUDA and shows no message: CUDA is unavailable there."""
    if any(o.path == "signature" for o in observations) or not any(
            o.path == "platform.system" and o.value == "Darwin" for o in observations):
        return []
    return _signature_at(body, Sig.CUDA_UNAVAILABLE, lambda text: "uda" in text.lower() and _CUDA_WORD.search(text),
                         "macOS")


# a sentence saying the GPU is not found or not used: "GPU not detected", "it doesn't use my GPU", "runs on the CPU
# instead", "显卡用不了"
_SAID_UNUSED = re.compile(
    r"\b(?:GPUs?|CUDA|graphics cards?|video cards?|CUDA devices?)\s+(?:is\s+|are\s+|was\s+|were\s+)?"
    r"(?:not|isn'?t|aren'?t|wasn'?t|weren'?t|never|no longer)\s+(?:being\s+|been\s+)?(?:detected|found|recogni[sz]ed|"
    r"used|utili[sz]ed|available|working|seen|visible|enabled)\b"
    r"|\b(?:doesn'?t|does not|don'?t|do not|can'?t|cannot|can not|couldn'?t|could not|won'?t|will not|unable to|"
    r"fails? to|failed to|not able to)\s+(?:use|detect|see|find|recogni[sz]e|utili[sz]e|access|run on)\s+"
    r"(?:the\s+|my\s+|any\s+|a\s+|our\s+)?(?:NVIDIA\s+|CUDA\s+)?(?:GPUs?|graphics cards?|CUDA)\b"
    r"|\b(?:runs?|running|ran|falls? back|fell back|falling back|defaults? to|uses|using|used)\s+(?:only\s+)?"
    r"(?:on\s+|to\s+)?(?:the\s+)?CPU\s+(?:instead|only|rather)\b|\bCPU\s+instead\s+of\s+(?:the\s+)?GPU"
    r"|\bno\s+(?:NVIDIA\s+|CUDA\s+)?GPUs?\s+(?:was\s+|were\s+|is\s+)?(?:detected|found|recogni[sz]ed)\b"
    r"|\b(?:shows?|showing|says|finds|sees|detects|lists)\s+no\s+(?:NVIDIA\s+|CUDA\s+)?(?:GPUs?|CUDA devices?)\b"
    r"|\bGPU\b[^.\n]{0,30}?\b(?:shows?|showed|has|had)\s+no\s+(?:activity|load|usage|utili[sz]ation)\b"
    r"|(?:检测不到|识别不到|找不到|无法使用|不能使用|没有使用|没用上|用不了|调用不了|无法调用|未检测到|没有检测到)\s*(?:GPU|显卡|CUDA)"
    r"|(?:GPU|显卡|CUDA)\s*(?:不可用|用不了|无法使用|没有被?使用|没有?用上|未被使用|识别不到|检测不到)", re.I)
_WORKS = ("torch.is_available", "framework_cpu")  # torch answering True, or a setting that keeps it on the CPU


def said_unused(body: Body, observations: List[Observation]) -> List[Observation]:
    """A paste whose words say the GPU is not found or not used, where no message says why and torch is not shown
    answering True: the symptom, read so that the diagnosis asks for what settles it instead of finding nothing."""
    if any(o.path == "signature" or (o.path in _WORKS and o.value is not False) for o in observations):
        return []
    return _signature_at(body, Sig.SAID_UNUSED, lambda text: _SAID_UNUSED.search(text) is not None, "prose")


def with_availability(observations: List[Observation]) -> List[Observation]:
    """The observations with what torch's answers to is_available() add; where it answered both ways, "CUDA is
    unavailable" describes only one of the runs and is left out."""
    added = _unavailable(observations)
    if any(o.path == CUDA_FLIPS for o in added):
        observations = [o for o in observations if not (o.path == "signature" and o.value in _NO_GPU_HERE)]
    return observations + added
