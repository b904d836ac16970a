"""What the words of an issue say about the machine: GPU names and counts in sentences, launcher flags and shell
assignments that set CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator, List, Sequence, Tuple

from gpudoctor.compat import gpu_info
from gpudoctor.facts import Facts
from gpudoctor.parsers.paste.observe import Observation, agreed, observe
from gpudoctor.parsers.paste.segments import Segment

# a product name as people write it: "GTX 980 Ti", "GT 740M", "RTX 5060 TI", "GeForce RTX 3090", "Tesla V100", "A100", "H100s"
_NAME = re.compile(
    r"(?<![\w/.-])((?:NVIDIA\s+)?RTX\s+PRO\s+\d{4}(?:\s+Blackwell)?|(?:NVIDIA\s+)?RTX\s+\d000\s+Ada"
    r"|(?:NVIDIA\s+)?(?:GeForce\s+)?(?:RTX|GTX)\s*-?\d{3,4}M?(?:\s*(?:Ti|TI|ti|SUPER|Super))?"
    r"|(?:NVIDIA\s+|Tesla\s+)?(?:[AHBLV]100|[AH]800|GB?200|H20|L20|A10G?|A30|A40|L4|L40S?|T4|P4|P40|P100|K80|RTX A\d000)"
    r"|(?:NVIDIA\s+)?(?:GeForce\s+)?(?:GT|MX)\s*\d{3,4}M?|(?:NVIDIA\s+)?TITAN\s+(?:RTX|V|Xp|X)|Quadro\s+[KMPT]?\d{3,4})"
    r"(?=s?\b)(?![\w.-]*\.(?:so|dll|py)\b)"
)
# what every alternative of _NAME holds (a letter and digit of a data-centre name, RTX/GTX, GT/MX, TITAN, Quadro): a
# cheap pre-test, since most lines of a paste hold a digit and _NAME is slow to fail
_NAME_PART = re.compile(r"[ABGHKLPTV]\d|TX|GT|MX|TITAN|Quadro")
_DIGIT = re.compile(r"\d")
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 **{str(n): n for n in range(2, 17)}}
# "I have 3 GPUs", "a server with two A100s", "my machine has 4 NVIDIA GPUs"
_COUNT = re.compile(r"\b(?:I have|I've got|we have|with|has|have got)\s+(\d{1,2}|two|three|four|five|six|seven|eight)"
                    r"\s+(?:NVIDIA\s+|Nvidia\s+|nvidia\s+)?(?:GPUs|gpus|graphics cards|cards)\b")
# launcher flags that set CUDA_VISIBLE_DEVICES before torch starts: ComfyUI's --cuda-device, Fooocus' --gpu-device-id
# and accelerate launch's --gpu_ids
_FLAG = re.compile(r"(?<![\w-])(--cuda-device|--gpu-device-id|--gpu_ids)(?:=|\s+)['\"]?(\d{1,2}(?:,\d{1,2})*)\b")
# assignments the POSIX pattern in tools misses: cmd's `set "X=0"`, PowerShell's `$env:X = "0"`, Python's
# `os.environ["X"] = "0"`, csh's `setenv X 0`
_ASSIGN = re.compile(
    r"(?:\bset\s+\"CUDA_VISIBLE_DEVICES=([\w,-]*)\""
    r"|\$env:CUDA_VISIBLE_DEVICES\s*=\s*['\"]([\w,-]*)['\"]"
    r"|os\.environ\[['\"]CUDA_VISIBLE_DEVICES['\"]\]\s*=\s*['\"]([\w,-]*)['\"]"
    r"|\bsetenv\s+CUDA_VISIBLE_DEVICES\s+([\w,-]+))", re.I)
_COMMAND = re.compile(r"^\s*(?:\$\s*)?(?:pip3?|uv|conda|mamba|apt|git|wget|curl)\b")
_VERBS = r"(?:prints?|printing|returns?|returning|gives?|giving|outputs?|outputting|shows?|showing|says)"
_SAID_ANSWER = re.compile(_VERBS + r"\s+[`'\"*]*(True|False)\b[`'\"*]*\s*[:.]?\s*$", re.I)
# the answer on its own line under the command: "gives TRUE."
_ANSWER_BELOW = re.compile(r"^\s*(?:(?:it|this|that|which|and|but)\s+)?(?:still\s+)?" + _VERBS
                           + r"\s+[`'\"*]*(True|False)\b[`'\"*]*\s*[.!]?\s*(?:(?:because|since|as)\b[^\n]*)?$", re.I)
_ASKS = "print(torch.cuda.is_available())"  # the command prints only this
# an interpreter a command line runs: "python3 -c ...", "py -3.11 -c", "/opt/venv/bin/python -c"
_INTERPRETER = re.compile(r"^\s*(?:[$>]\s*)?((?:[\w.~:-]*[/\\])*(?:python[\d.]*|py)(?:\.exe)?)(?:\s+-[\w.]+)*?\s+-c\b")
# "torch.cuda.is_available() returns True", "... is_available() myself it returns True"
_SAYS_TRUE = re.compile(r"torch\.cuda\.is_available\(\)[`'\"]?(?:(?:\s+(?!not\b|never\b|doesn't\b|does\b|should\b|would\b|must\b|will\b|"
                        r"could\b|might\b|to\b|expected\b|expect\b|can\b|may\b)[\w']+){1,4}?\s+"
                        r"(?:still\s+)?(?:returns?|gives|prints|shows)|\s*(?:still\s+)?(?:returns?|returning|is|=+|:|"
                        r"gives|prints|shows|->|=>|→|是|返回)?)\s*[`*'\"]*(?:True|true|TRUE)\b")
# "it prints `True` when I run train.py, but `False` when I run it from the sampler": two answers in one sentence
_TWO_ANSWERS = re.compile(r"\b(?:prints?|returns?|gives?|shows?|outputs?|is)\s+[`'\"*]*(True|False)\b[`'\"*]*"
                          r"(?=.*\b(?:but|while|whereas|and)\b).*?\b(?:prints?|returns?|gives?|shows?|outputs?|is|"
                          r"but|while|whereas)\s+[`'\"*]*(True|False)\b")


def gpu_mentions(segment: Segment) -> Iterator[Observation]:
    """NVIDIA product names in sentences; merge uses them only when nothing more direct names a GPU."""
    for line in segment.lines:
        text = line.text
        if not (_DIGIT.search(text) or "TITAN" in text) or _COMMAND.match(text):
            continue
        for m in _NAME.finditer(text) if _NAME_PART.search(text) else ():
            name = " ".join(m.group(1).split())
            if gpu_info(name) is not None:
                yield observe("gpus.mentioned", name, segment, line, "prose")
        if "GPUs" in text or "gpus" in text or "cards" in text:  # the plural _COUNT ends with
            counted = _COUNT.search(text)
            if counted and counted.group(1) in _NUMBER_WORDS:
                yield observe("driver.gpu_count", _NUMBER_WORDS[counted.group(1)], segment, line, "prose")


# a GPU named by its architecture alone, in a sentence: "an sm_120 card", "SM 12.0", "compute capability 8.6",
# "sm120 support"; lines that list several architectures (a wheel's arch list, TORCH_CUDA_ARCH_LIST, -gencode flags)
# describe builds, not the GPU
_ARCH_SAID = re.compile(r"\bsm_?(\d{2,3})\b|\bSM\s?(\d{1,2}\.\d)\b|(?:(?:compute|cuda) capability|\bCC)\)?\s*(?:of\s+|is\s+|=\s*|:\s*)?"
                        r"(\d{1,2}\.\d)\b", re.I)
_NOT_NVIDIA = re.compile(r"\bFound GPU\d|Radeon|\bVega\b|\bgfx\d|\bAMD\b")
_ARCH_BUILD = re.compile(r"arch|gencode|compute_\d|list|=\s*[\"']", re.I)


def _cc(found: Tuple[str, str, str]) -> Tuple[int, int]:
    number, dotted, capability = found
    if number:
        return int(number) // 10, int(number) % 10
    major, minor = (dotted or capability).split(".")
    return int(major), int(minor)


def arch_mentions(segment: Segment) -> Iterator[Observation]:
    """A GPU named only by its compute capability; merge uses it only when no product name is given."""
    for line in segment.lines:
        text = line.text
        if "sm" not in text.lower() and "apab" not in text and "CC" not in text:
            continue
        found = _ARCH_SAID.findall(text)
        if len(found) != 1 or _ARCH_BUILD.search(text) or _COMMAND.match(text) or _NOT_NVIDIA.search(text):
            continue  # torch's "Found GPU0 ... capability" warning is read with the warnings, and AMD's is a placeholder
        cc = _cc(found[0])
        if 1 <= cc[0] <= 12:
            yield observe("gpus.arch_said", cc, segment, line, "prose")
            return


# the installed torch stated in a sentence: "my torch version is ``torch=2.1.0``"
_TORCH_STATED = re.compile(r"\b(?:my|the)\s+(?:py)?torch\s+version\s+is\s+[`'\"*]*(?:(?:py)?torch\s*={1,2}\s*)?"
                           r"(\d+\.\d+\.\d+(?:\+[\w.]+)?)\b", re.I)


DRIVER_SAID = "driver.said"  # a driver version a sentence or title names: used only where no tool output gives one
_DRIVER_STATED = re.compile(r"\bdriver(?:\s+version)?(?:\s+is|\s*[:=(])?[)\s]*v?([2-9]\d{2}\.\d{2,3}(?:\.\d{2,3})?)(?![\d.])",
                            re.I)


BUILD_SAID = "torch.build_said"  # "ships PyTorch 2.4.1 with CUDA 11.8": used only where nothing else gives the torch
_TORCH_WITH_CUDA = re.compile(r"\b(?:py)?torch\s+v?(\d{1,2}\.\d{1,3}\.\d{1,3})\s+(?:with|and|built (?:with|for|against)|for|on)\s+"
                              r"CUDA\s+(\d{1,2})\.(\d)\b", re.I)
# a build named with its wheel tag, "PyTorch 2.1.2 + cu118", or a torch.__version__ answer retold: "That returned 2.7.1+CPU"
_TORCH_TAGGED = re.compile(r"(?<![\w/\\.-])(?:(?:[Pp]y)?[Tt]orch\s+v?|(?:returned|returns|printed|prints|gave|gives|showed|shows|says|said|"
                           r"got|answered)\s+[`'\"*]*)(\d{1,2}\.\d{1,3}\.\d{1,3})\s*\+\s*(cu\d{2,3}|cpu)\b(?![/\\.-])", re.I)


def stated_versions(segment: Segment) -> Iterator[Observation]:
    """The torch version a sentence says is installed, a torch build named with its CUDA, and a driver version named
    in a sentence or title."""
    for line in segment.lines:
        text = line.text
        if "orch" in text and "CUDA" in text.upper():
            for m in _TORCH_WITH_CUDA.finditer(text):
                yield observe(BUILD_SAID, f"{m.group(1)}+cu{m.group(2)}{m.group(3)}", segment, line, "prose")
        if "+" in text and not _COMMAND.match(text):
            for m in _TORCH_TAGGED.finditer(text):
                yield observe(BUILD_SAID, f"{m.group(1)}+{m.group(2).lower()}", segment, line, "prose")
        if ("river" in text or "RIVER" in text) and "NVIDIA-SMI" not in text:
            for m in _DRIVER_STATED.finditer(text):
                yield observe(DRIVER_SAID, m.group(1), segment, line, "prose")
        if "ersion" not in text or "orch" not in text or _COMMAND.match(text):
            continue
        torch = _TORCH_STATED.search(text)
        if torch:
            yield observe("torch.version", torch.group(1), segment, line, "prose")


def said_build(facts: Facts, observations: List[Observation]) -> Facts:
    """The torch build a sentence names with its CUDA ("PyTorch 2.4.1 with CUDA 11.8"), where nothing else gives the
    torch version and the prose names only one such build (marked inferred)."""
    first = agreed(observations, BUILD_SAID)
    if facts.torch.version or first is None:
        return facts
    torch = dataclasses.replace(facts.torch, version=first.value)
    paths: Tuple[str, ...] = ("torch.version",)
    if first.value.endswith("+cpu"):
        torch = dataclasses.replace(torch, cuda_compiled=False)
        paths += ("torch.cuda_compiled",)
    extra = facts.extra + (("paste.line.torch.version", f"{first.line}: {first.quote}"),
                           ("inferred.torch.version", f"line {first.line}: a sentence names torch {first.value}"))
    return dataclasses.replace(facts, torch=torch, extra=extra,
                               inferred=tuple(dict.fromkeys(facts.inferred + paths)))


def said_driver(facts: Facts, observations: List[Observation]) -> Facts:
    """The driver version the prose names, where no tool output gave one and the prose names only one."""
    first = agreed(observations, DRIVER_SAID)
    if facts.driver.version or first is None:
        return facts
    driver = dataclasses.replace(facts.driver, version=first.value)
    return dataclasses.replace(facts, driver=driver,
                               extra=facts.extra + (("paste.line.driver.version", f"{first.line}: {first.quote}"),))


_ONE_ANSWER = re.compile(r"(?<![A-Za-z])(True|False)(?![A-Za-z])")  # beside Hangul or Kanji, \b does not part them
_CODE_LINE = re.compile(r"\b(?:if|else|assert|print|return|def|import)\b|==|!=|=|>>>|^\s*#")


def two_answers(segment: Segment) -> Iterator[Observation]:
    """A sentence saying torch.cuda.is_available() answers True ("returns True"; False is a message the signatures
    read), or True in one run and False in another."""
    lines = segment.lines
    for i, line in enumerate(lines):
        text = line.text
        following = lines[i + 1].text.strip() if i + 1 < len(lines) else ""
        if "true" in text.lower() and "False" not in text and "is_available" in text + following:
            text = text.rstrip() + " " + following  # a sentence wrapped over two lines
        if "is_available" not in text or "true" not in text.lower():
            continue
        m = _TWO_ANSWERS.search(text) if "False" in text else None
        if m and m.group(1) != m.group(2):
            yield observe("torch.is_available", m.group(1) == "True", segment, line, "prose")
            yield observe("torch.is_available", m.group(2) == "True", segment, line, "prose")
        elif "False" not in text and _SAYS_TRUE.search(text):
            yield observe("torch.is_available", True, segment, line, "prose")
    for line in lines:  # in any language: "`torch.cuda.is_available()`을 실행하면 False가 나와서"
        text = line.text
        if "is_available()" in text and _ONE_ANSWER.search(text) and not _CODE_LINE.search(text):
            answers = set(_ONE_ANSWER.findall(text))
            if len(answers) == 1 and not re.search(r"[A-Za-z]{3,}\s+(?:True|False)\b", text.replace("`", "")):
                yield observe("torch.is_available", answers.pop() == "True", segment, line, "prose")


_LIST_ITEM = re.compile(r"^(?:\d{1,3}[.)]|[-*+])\s+")  # "1. torch.cuda.is_available()" as a step of a list


def _asks_only(text: str) -> bool:
    asked = _LIST_ITEM.sub("", text.strip()).strip("`")
    return _ASKS in asked.replace(" ", "") or asked.removeprefix(">>>").strip() == "torch.cuda.is_available()"


def answers_above_code(segments: Sequence[Segment]) -> Iterator[Observation]:
    """A sentence that gives the answer ("it prints False:") above the code that asks is_available() (the next
    lines, often a code block of its own), or on its own line under it ("gives TRUE."), as issue bodies put it; and
    the interpreter each command line runs, so that two of them can be told apart."""
    flat = [(segment, line) for segment in segments for line in segment.lines]
    for i, (segment, line) in enumerate(flat):
        text = line.text
        if "-c" in text and "py" in text:
            m = _INTERPRETER.match(text)
            if m:
                yield observe("python_command", m.group(1)[:120], segment, line, "command line")
        if "is_available" in text or not ("false" in text.lower() or "true" in text.lower()):
            continue
        said = _SAID_ANSWER.search(text)
        asked = next((other.text for _, other in flat[i + 1:i + 9] if "is_available()" in other.text), None) \
            if said else None
        if said and asked is not None and _asks_only(asked):
            yield observe("torch.is_available", said.group(1).lower() == "true", segment, line, "prose")
            continue
        below = _ANSWER_BELOW.match(text)
        above = [other.text for _, other in flat[max(0, i - 3):i] if other.text.strip()]
        if below and above and "is_available()" in above[-1] and _asks_only(above[-1]):
            yield observe("torch.is_available", below.group(1).lower() == "true", segment, line, "prose")


_IN_DOCKER = re.compile(r"\b(?:docker|podman)\s+(?:image|container)s?\b|\b(?:in|inside|within)\s+(?:an?\s+|the\s+|my\s+)?"
                        r"(?:(?:docker|podman)\b|container\b)|(?:docker|容器)\s*(?:镜像|里|内|中)|进入容器|^\s*镜像\s*[:：]", re.I)


_GPU_WORKS = re.compile(r"\b(?:train\w*|inference|it|the model|the code|torch)\b[^.\n]{0,50}?\bon (?:the )?GPUs?\b[^.\n]{0,20}?"
                        r"\b(?:works?|working|runs? fine|is fine)\b", re.I)
_NEGATED = re.compile(r"n't|\bnot\b|\bno longer\b|\bnever\b|\bfails?\b|\bcannot\b", re.I)


def _affirmed(pattern: "re.Pattern[str]", text: str) -> str:
    """What ``pattern`` finds in ``text`` when the words it spans do not negate it ("does not work"); else ""."""
    m = pattern.search(text)
    return m.group() if m and not _NEGATED.search(m.group()) else ""


def gpu_works(segment: Segment) -> Iterator[Observation]:
    """A sentence saying work on the GPU works ("training a network on the GPU works correctly")."""
    for line in segment.lines:
        text = line.text
        if "GPU" not in text and "gpu" not in text:
            continue
        if _affirmed(_GPU_WORKS, text):
            yield observe("torch.is_available", True, segment, line, "prose")


_SMI_WORKS = re.compile(r"nvidia-smi\b[^.\n]{0,60}?\b(?:works?|worked|working|shows? the gpus?|lists? the gpus?|"
                        r"is fine|正常)", re.I)


def smi_works(segment: Segment) -> Iterator[Observation]:
    """A sentence saying nvidia-smi works (where torch does not, the GPU reaches the machine but CUDA fails)."""
    for line in segment.lines:
        text = line.text
        if "nvidia-smi" not in text.lower():
            continue
        said = _affirmed(_SMI_WORKS, text)
        if said:
            yield observe("smi_works", said[:120], segment, line, "prose")
            return


_PIPELINE_CPU = re.compile(r"no 'device' argument is passed to the 'Pipeline' object\. Model will be on CPU")


def pipeline_on_cpu(segment: Segment) -> Iterator[Observation]:
    """transformers' warning that a pipeline built without device= runs on the CPU although a GPU is available."""
    for line in segment.lines:
        if "'Pipeline'" in line.text and _PIPELINE_CPU.search(line.text):
            yield observe("framework_cpu", "a transformers pipeline built without device= (\"Model will be on CPU\")",
                          segment, line, "transformers warning")
            yield observe("torch.is_available", True, segment, line, "transformers warning")
            return


def in_containers(segment: Segment) -> Iterator[Observation]:
    """A sentence saying the program runs in a Docker or Podman container (its start command may not be shown)."""
    for line in segment.lines:
        text = line.text
        low = text.lower()
        if ("docker" in low or "podman" in low or "container" in low or "容器" in text) and _IN_DOCKER.search(text):
            yield observe("container_said", " ".join(text.split())[:200], segment, line, "prose")
            return


# a numbered GPU the code asks for: torch.device("cuda:3"), .to('cuda:1'), device="cuda:2", .cuda(1)
_DEVICE_ASKED = re.compile(r"""(?:device\(|\.to\(|device\s*=\s*)\s*['"]cuda:(\d{1,2})['"]|\.cuda\((\d{1,2})\)""")


def visible_devices(segment: Segment) -> Iterator[Observation]:
    """CUDA_VISIBLE_DEVICES as a launcher flag or a Windows, Python or csh assignment sets it, and the numbered GPU
    the code asks for."""
    for line in segment.lines:
        text = line.text
        if "cuda" in text:
            for asked in _DEVICE_ASKED.finditer(text):
                yield observe("device_asked", asked.group(1) or asked.group(2), segment, line, "code")
        if "-device" in text or "--gpu_ids" in text:
            m = _FLAG.search(text)
            if m:
                yield observe("env.CUDA_VISIBLE_DEVICES", m.group(2), segment, line, "launcher flag")
                yield observe("env_flag", f"{m.group(1)} {m.group(2)}", segment, line, "launcher flag")
        if "CUDA_VISIBLE_DEVICES" in text:
            m = _ASSIGN.search(text)
            if m:
                value = next(group for group in m.groups() if group is not None)
                yield observe("env.CUDA_VISIBLE_DEVICES", value, segment, line, "command line")
