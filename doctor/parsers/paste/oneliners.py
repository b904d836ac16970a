"""`python -c "import torch; print(...)"` and `>>> torch.x` lines, read against the output line after them (also an
IPython `Out[n]:` line or an answer written as a comment)."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator, List, Optional, Sequence, Tuple

from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

BOOL = {"true": True, "yes": True, "false": False, "no": False}  # the yes/no answers reports print
_COMMENTED = re.compile(r"\)\s*(?:#\s*(?:returns?|prints?|gives?|->|=>|=|is|output:?)?|->|=>)\s*[`'\"]?([\w.+]+)",
                        re.I)  # print(torch.cuda.is_available())  # False, or "...) -> False" inside the command
_FSTRING_FIELD = re.compile(r"\{([^{}:!]+)[^{}]*\}")
_IPYTHON_IN = re.compile(r"^\s*In \[\d+\]:\s*")
_IPYTHON_OUT = re.compile(r"^\s*Out\[\d+\]:\s*")
_PRINT = re.compile(r"print\((.*)\)")
_EXPRS: Tuple[Tuple[str, str], ...] = (
    ("torch.__version__", "torch.version"),
    ("torch.version.cuda", "torch.cuda"),
    ("torch.cuda.is_available()", "torch.is_available"),
    ("torch.cuda.device_count()", "torch.device_count"),
    ("torch.backends.cudnn.version()", "torch.cudnn_version"),
    ("torch.cuda.get_device_name(", "gpus.torch_name"),
)


def _exprs(command: str) -> List[Optional[str]]:
    """The fact paths printed by a `print(...)` (or a `>>>` expression), in order; None for others."""
    m = _PRINT.search(command)
    body = m.group(1) if m else command.split(">>>", 1)[-1]
    fields = _FSTRING_FIELD.findall(body) if re.match(r"\s*f['\"]", body) else []
    parts = fields or [part.strip() for part in re.split(r",(?![^(]*\))", body) if part.strip()]
    out: List[Optional[str]] = []
    for part in parts:
        out.append(next((path for expr, path in _EXPRS if part.replace(" ", "").startswith(expr)), None))
    return out


def _typed(path: str, word: str) -> Optional[object]:
    word = word.strip("'\"")  # the REPL prints strings quoted: '2.3.0+cu121'
    if path == "torch.is_available":
        return BOOL.get(word.lower())
    if path in ("torch.device_count", "torch.cudnn_version"):
        return int(word) if word.isdigit() else None
    if path in ("torch.version", "torch.cuda"):
        return word if re.match(r"^\d+\.\d+", word) else None
    return None


def one_liners(segment: Segment) -> Iterator[Observation]:
    """`python -c "...print(torch.x, torch.y)"` and `>>> torch.x` lines, read against the output line after them."""
    lines = segment.lines
    for i, line in enumerate(lines):
        text = _IPYTHON_IN.sub(">>> ", line.text) if "In [" in line.text else line.text  # IPython's prompt
        if "torch" not in text or not ("print(" in text or text.lstrip().startswith(">>>")):
            continue
        paths = _exprs(text.split("#", 1)[0] if "#" in text else text)
        said = _COMMENTED.search(text)
        if said and len([p for p in paths if p]) == 1:  # print(torch.cuda.is_available())  # Returns False
            commented = next(p for p in paths if p)
            answer = _typed(commented, said.group(1))
            if answer is not None:
                yield observe(commented, answer, segment, line, "python comment")
                continue
        if not any(paths) or i + 1 >= len(lines):
            continue
        out = lines[i + 1]
        if out.text.lstrip().startswith("Out["):
            out = dataclasses.replace(out, text=_IPYTHON_OUT.sub("", out.text))
        elif out.text.lstrip().startswith("# "):  # the output written as a comment under the command: "# False"
            out = dataclasses.replace(out, text=out.text.lstrip()[2:])
        if paths == ["torch.cuda"] and text.lstrip().startswith(">>>") and out.text.lstrip().startswith(">>>"):
            # the REPL echoes nothing for None: `>>> torch.version.cuda` followed by the next prompt
            yield observe("torch.cuda_compiled", False, segment, line, "python REPL")
            continue
        if out.text.lstrip().startswith((">>>", "$", "python", "Traceback")):
            continue
        words = out.text.split()
        if len(paths) == 1 and paths[0] == "gpus.torch_name":
            yield observe("gpus", (None, out.text.strip()), segment, out, "python -c")
            continue
        if len(words) != len(paths):
            continue
        for path, word in zip(paths, words):
            if path == "torch.cuda" and word == "None":  # print(torch.version.cuda) of a CPU build
                yield observe("torch.cuda_compiled", False, segment, out, "python -c")
                continue
            value = _typed(path, word) if path else None
            if path and value is not None:
                yield observe(path, value, segment, out, "python -c")


_R_ASKS = re.compile(r"^\s*>?\s*(?:torch::)?cuda_is_available\(\)\s*$")
_R_ANSWER = re.compile(r"^\s*\[1\]\s+(TRUE|FALSE)\s*$")


def r_console(segments: Sequence[Segment]) -> Iterator[Observation]:
    """torch for R at the R console: `> cuda_is_available()` and the `[1] FALSE` it prints (Markdown reads the
    prompt as a quote, so the two lines may sit in two segments)."""
    lines = [(segment, line) for segment in segments for line in segment.lines]
    for (_, line), (segment, answer) in zip(lines, lines[1:]):
        if "cuda_is_available" in line.text and _R_ASKS.match(line.text):
            m = _R_ANSWER.match(answer.text)
            if m:
                yield observe("torch.is_available", m.group(1) == "TRUE", segment, answer, "R console")
