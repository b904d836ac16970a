"""Parsers for `key: value` reports (transformers/accelerate/diffusers/llamafactory env, ComfyUI, vLLM sections,
Ultralytics checks); the one-liners' reader lives in ``oneliners`` and is re-exported here."""

from __future__ import annotations

import re
from typing import Dict, Iterator, Optional, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.facts import Distribution
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.oneliners import BOOL, one_liners
from gpudoctor.parsers.paste.segments import Line, Segment

__all__ = ["key_values", "one_liners"]

_KV = re.compile(r"^\s*(?:[-*+\u2022]\s+|\[(?:INFO|DEBUG|WARN(?:ING)?)\]\s*)?(?:\*\*)?`?([A-Za-z][\w .,()?/`'-]{1,60}?)`?(?:\*\*)?\s*[:\uff1a]\s*(?:\*\*)?\s*(\S.*?)\s*$")
_TORCH_VERSION = re.compile(r"^v?(\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?(?:\+[\w.]+)?)")
_LIGHTNING_IDLE = re.compile(r"GPU available:\s*True(?:\s*\(\w+\))?,\s*used:\s*False", re.I)
_YOLO = re.compile(r"Python-[\d.]+\s+torch-(\d[\w.+]*)(?:\s+(?:CUDA:(\d+)\s+\(([^,()]+),\s*(\d+)MiB\)|CPU|MPS))?")
_PACKAGE_VERSION = re.compile(r"v?(\d+(?:\.\w+)+)")
_COMFY_DEVICE = re.compile(r"^\s*Device:\s*cuda:(\d+)\s+(.+?)\s*:\s*\S+\s*$")
# a JSON member on its own line, as dependency dumps print them: `"torch"       : "2.6.0+cu124" ,`
_JSON_MEMBER = re.compile(r'^\s*"([A-Za-z][\w .()-]{0,60})"\s*:\s*(?:"([^"]{1,200})"|(true|false|\d[\d.]*))\s*,?\s*$')
_FORM_HEADING = re.compile(r"^\s*#{2,4}\s+([A-Za-z][\w .()/-]{1,60}?)\s*$")
_GPU_KEY = re.compile(r"^gpu ?\d+(?:,\d+)*$")  # SGLang's "GPU 0,1: NVIDIA H100"
# libraries with GPU kernels of their own, as SGLang's check_env and vLLM's collect_env name them: "sgl_kernel: 0.4.2"
_KERNEL_PACKAGE = re.compile(r"^(vllm|sglang|sgl[_-]kernel|flashinfer(?:[_-]python)?|xformers|flash[_-]attn|bitsandbytes|"
                             r"triton|deepspeed|mmcv(?:[_-]full)?|detectron2)(?: version)?$")
_COMFY_NAME = re.compile(r"^cuda:(\d+)\s+(.+?)\s*:\s*\S+\s*$")
_DRIVER_IN_VALUE = re.compile(r"\bdriver(?: version)?\s*[:=]?\s*v?(\d{3}\.\d{2,3}(?:\.\d{2})?)\b")
_DISTRO = re.compile(r"\b(?:ubuntu|debian|centos|fedora|rhel|red hat|rocky|alma|arch|manjaro|opensuse|suse|"
                     r"pop!?_os|mint|linux|macos|mac os|mac|os ?x|windows)\b")
_MAC = re.compile(r"\b(?:mac ?os|mac|os ?x|darwin|macbook|sonoma|ventura|monterey|big sur|sequoia)\b")
_PROSE_PYTHON = re.compile(r"\bpython\s*v?(\d\.\d{1,2}(?:\.\d{1,2})?)\b")
_MEMORY_SUFFIX = re.compile(r"\s*[(\[]\s*(?:\d+\s*(?:[gm]i?b|gb)\b|compute capability|cc\b|sm_?\d|capability)"
                            r"[^)\]]*[)\]]\s*$", re.I)
_UUID = re.compile(r"\s*\(UUID:[^)]*\)")
_SPACES = re.compile(r"\s+")

# normalised key -> fact path
_KEYS: Dict[str, str] = {
    "pytorch version (gpu?)": "torch.version+available",
    "pytorch version (gpu)": "torch.version+available",
    "pytorch version": "torch.version",
    "torch version": "torch.version",
    "pytorch": "torch.version",
    "torch": "torch.version",
    "torch.__version__": "torch.version",
    "python version": "platform.python_version",
    "python": "platform.python_version",
    "platform": "platform.string",
    "operating system": "platform.string",
    "gpu": "gpus.name",
    "gpus": "gpus.name",
    "gpu(s)": "gpus.name",
    "graphics card": "gpus.name",
    "video card": "gpus.name",
    "\u663e\u5361": "gpus.name",  # Chinese "graphics card"
    "gpu type": "gpus.name",
    "gpu model": "gpus.name",
    "gpu models": "gpus.name",
    "gpu name": "gpus.name",
    "is cuda available": "torch.is_available",
    "cuda available": "torch.is_available",
    "torch.cuda.is_available()": "torch.is_available",
    "cuda is available": "torch.is_available",
    "pytorch built with cuda": "torch.cuda_compiled",  # the Mila/cluster docs' check script
    "torch built with cuda": "torch.cuda_compiled",
    "pytorch detects cuda available": "torch.is_available",
    "pytorch cuda version": "torch.cuda",
    "torch cuda version": "torch.cuda",
    "torch.version.cuda": "torch.cuda",
    "cuda used to build pytorch": "torch.cuda",
    "nvidia driver version": "driver.version",
    "driver version": "driver.version",
    "nvidia driver": "driver.version",
    "driver": "driver.version",
    "gpu driver": "driver.version",
    "nvidia driver version (nvidia-smi)": "driver.version",
    "cuda driver version": "driver.cuda_version",
    "cuda version": "cuda.ambiguous",
    "cuda toolkit version": "toolkit.nvcc_version",
    "os": "platform.os",
    "name": "gpus.comfy",
    "use_cpu": "framework.cpu",
    "use cpu": "framework.cpu",
    "nvcc version": "toolkit.nvcc_version",
    "macos": "platform.mac",
    "macos version": "platform.mac",
    "mac os version": "platform.mac",
    "environment": "platform.prose",
    "system": "platform.prose",
    "setup": "platform.prose",
    "system info": "platform.prose",
}


def _key(raw: str) -> str:
    return _SPACES.sub(" ", raw.replace("`", "").replace("*", "")).strip().lower()


def _platform(value: str, segment: Segment, line: Line) -> Iterator[Observation]:
    low = value.lower()
    system = "Linux" if "linux" in low else "Windows" if "windows" in low else "Darwin" if _MAC.search(low) else None
    if system:
        yield observe("platform.system", system, segment, line, "env report")
    if "microsoft-standard" in low or "wsl2" in low:
        yield observe("platform.wsl", 2, segment, line, "env report")
    elif re.search(r"-microsoft(?:-|$)", low):  # WSL 1 kernels end in "-Microsoft"
        yield observe("platform.wsl", 1, segment, line, "env report")


def _value(path: str, value: str, segment: Segment, line: Line) -> Iterator[Observation]:
    low = value.lower().strip("` ")
    if low in ("", "n/a", "na", "none", "not installed", "could not collect", "unknown", "not found"):
        return
    if path.startswith("torch.version"):
        m = _TORCH_VERSION.match(low)
        if m:
            yield observe("torch.version", m.group(1), segment, line, "env report")
        if path.endswith("+available") or low.endswith(")"):
            m = re.search(r"\((true|false|gpu|cpu)\)", low)
            if m:
                yield observe("torch.is_available", m.group(1) in ("true", "gpu"), segment, line, "env report")
    elif path in ("torch.is_available", "torch.cuda_compiled"):
        if low.split()[0] in BOOL:
            yield observe(path, BOOL[low.split()[0]], segment, line, "env report")
    elif path == "framework.cpu":
        if low.split()[0] == "true":
            yield observe("framework_cpu", f"{value.strip()} (accelerate config use_cpu)", segment, line, "env report")
    elif path == "platform.mac":  # "macOS: 14.2.1", "macOS version: Sonoma"
        if re.match(r"\d{2}(?:\.\d+)*\b", low) or _MAC.search(low):
            yield observe("platform.system", "Darwin", segment, line, "env report")
    elif path == "platform.prose":  # "Environment: Python 3.7 in a conda env on Ubuntu 20.04"
        m = _PROSE_PYTHON.search(low)
        if m:
            yield observe("platform.python_version", m.group(1), segment, line, "env report")
        os_word = _DISTRO.search(low)
        if os_word and os_word.group() != "arch":
            yield from _platform(value if _MAC.search(low) else f"{value} linux" if "windows" not in low else value,
                                 segment, line)
    elif path == "platform.os":
        system = {"nt": "Windows", "windows": "Windows", "darwin": "Darwin", "linux": "Linux", "mac": "Darwin",
                  "osx": "Darwin"}.get(low.split()[0])
        if system:
            yield observe("platform.system", system, segment, line, "env report")
        elif _DISTRO.search(low):  # "Ubuntu 22.04", "macOS 14.2"
            yield from _platform(value if _MAC.search(low) else f"{value} linux", segment, line)
    elif path == "gpus.comfy":
        m = _COMFY_NAME.match(value)
        if m:
            yield observe("gpus", (int(m.group(1)), m.group(2)), segment, line, "ComfyUI system information")
            yield observe("torch.is_available", True, segment, line, "ComfyUI system information")
    elif path == "platform.string":
        yield from _platform(value, segment, line)
    elif path == "platform.python_version":
        m = re.match(r"(\d\.\d+(?:\.\d+)?)", low)
        if m:
            yield observe(path, m.group(1), segment, line, "env report")
    elif path == "gpus.name":
        if re.search(r"\sGPU \d{1,2}:", value):  # several `nvidia-smi -L` entries on one line: tools reads them
            return
        if re.search(r"nvidia|geforce|rtx|gtx|tesla|quadro|\b[ahlvtkp]\d{2,3}\b", low):
            name = _MEMORY_SUFFIX.sub("", _UUID.sub("", value)).strip("` ")
            yield observe("gpus", (None, name), segment, line, "env report")
    else:
        driver = _DRIVER_IN_VALUE.search(low)
        if driver and path != "driver.version":  # "CUDA Version: 12.8 (Driver 570.181)"
            yield observe("driver.version", driver.group(1), segment, line, "env report")
        if path == "cuda.ambiguous":  # a toolkit's, the driver's or torch's: only the driver beside it is sure
            return
        m = re.match(r"(\d+(?:\.\d+)+)", low)
        if m:
            version = m.group(1)
            if path == "driver.cuda_version" and (version.count(".") >= 2 or int(version.split(".")[0]) >= 100):
                path = "driver.version"  # SGLang's "CUDA Driver Version: 550.54.15" is the driver's own version
            elif path == "driver.version" and int(version.split(".")[0]) < 100:
                return  # Windows' own numbering of the driver file ("31.0.15.5161"), or a CUDA version
            yield observe(path, version, segment, line, "env report")


def _pair(text: str) -> Optional[Tuple[str, str]]:
    """The key and value of a `key: value` line or of a JSON member line (`"torch": "2.6.0+cu124",`)."""
    m = _JSON_MEMBER.match(text) if '"' in text else None
    if m:  # JSON keys are identifiers: "torch_version" is "torch version"
        return m.group(1).replace("_", " "), m.group(2) or m.group(3)
    m = _KV.match(text)
    return (m.group(1), m.group(2)) if m else None


def _form_answers(segment: Segment) -> Iterator[Tuple[str, Line]]:
    """GitHub issue-form answers: a `### GPU model` heading and the first line of text under it."""
    lines = segment.lines
    for i, line in enumerate(lines):
        m = _FORM_HEADING.match(line.text) if "##" in line.text else None
        if not m:
            continue
        answer = next((later for later in lines[i + 1:i + 4] if later.text.strip()), None)
        if answer is not None and not answer.text.lstrip().startswith(("#", "`", "~", "{", "[")):
            yield m.group(1), answer


def key_values(segment: Segment) -> Iterator[Observation]:
    for heading, answer in _form_answers(segment):
        path = _KEYS.get(_key(heading))
        if path:
            yield from _value(path, answer.text.strip(), segment, answer)
    for line in segment.lines:
        text = line.text
        if ":" in text or "\uff1a" in text:
            pair = _pair(text)
            if pair:
                key = _key(pair[0])
                path = _KEYS.get(key) or ("gpus.name" if _GPU_KEY.match(key) else None)
                if path:
                    yield from _value(path, pair[1], segment, line)
                    continue
                package = _KERNEL_PACKAGE.match(key)
                version = _PACKAGE_VERSION.match(pair[1].strip("` "))
                if package and version:
                    dist = Distribution(name=canonicalize_name(package.group(1)), version=version.group(1))
                    yield observe("packages", dist, segment, line, "env report")
                    continue
            m = _COMFY_DEVICE.match(text) if "Device:" in text else None
            if m:
                yield observe("gpus", (int(m.group(1)), m.group(2)), segment, line, "ComfyUI log")
                yield observe("torch.is_available", True, segment, line, "ComfyUI log")
        if "used: False" in text or "used: false" in text:
            m = _LIGHTNING_IDLE.search(text)
            if m:  # Lightning's Trainer: "GPU available: True (cuda), used: False"
                yield observe("torch.is_available", True, segment, line, "Lightning log")
                yield observe("framework_cpu", "Lightning: GPU available: True, used: False (the Trainer's accelerator "
                              "and devices)", segment, line, "Lightning log")
        if "torch-" in text:
            m = _YOLO.search(text)
            if m:
                yield observe("torch.version", m.group(1), segment, line, "yolo checks")
                if m.group(3):
                    yield observe("gpus", (None, m.group(3).strip()), segment, line, "yolo checks")
                    yield observe("torch.is_available", True, segment, line, "yolo checks")
