"""Reads a paste for the catalogue's error messages (also where one is wrapped over two lines), and for the
exception that ends each Python traceback."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Sequence, Tuple

from gpudoctor.parsers.paste.catalogue import BY_SIG, CATALOGUE, IMPORT, Sig, Signature
from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Line, Segment

__all__ = ["BY_SIG", "CATALOGUE", "Sig", "Signature", "TRACEBACK_CUT", "in_words", "narrowed", "signatures",
           "tracebacks", "xformers_versions"]

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_CODE = ("raise ", "File \"", "warnings.warn(", "return ", "assert ", "#", "msg = ", "message = ")
_CONTEXT = re.compile(r"^\s*(?:\w+\.)*(\w*(?:Error|Exception|Warning))\s*:")
_LITERALS = tuple(dict.fromkeys(s.literal for s in CATALOGUE))  # each pre-test word once, though messages share them
# BuildKit's step prefix in a `docker build` log: "#0 920.0 AssertionError: ..."
_BUILDKIT = re.compile(r"^#\d+ \d+(?:\.\d+)? ")
# messages that CUDA found no GPU: during an image build, that is the build step having none
_NO_GPU = frozenset({Sig.CUDA_UNAVAILABLE, Sig.NO_DEVICE, Sig.NO_DRIVER, Sig.NOT_COMPILED})


def _first(hits: List[Signature], text: str, lowered: str, span_from: int = -1) -> Optional[Signature]:
    """The first signature whose message is in ``text``; with ``span_from``, only a match that runs across that
    offset (a message wrapped over two lines, read once both halves are joined)."""
    for sig in hits:
        if sig.literal not in lowered:
            continue
        m = sig.pattern.search(text)
        if m and (span_from < 0 or m.start() < span_from < m.end()):
            return sig
    return None


def in_words(low: str) -> Tuple[str, ...]:
    """The catalogue's pre-test words in ``low``, a text lowered with its whitespace runs made one space
    (``Body.words``): a segment of the paste can hold no others, so each is tested for these few instead of for
    every word of the catalogue."""
    return tuple(literal for literal in _LITERALS if literal in low)


_FRAME = re.compile(r'^\s*File "[^"]+", line \d+, in ')


def _raised_last(lines: Sequence[Line], i: int) -> bool:
    """Line ``i`` is the `raise` a traceback's last frame was running: that frame is raising this message, whether or
    not the paste goes on to its exception line."""
    text = lines[i].text.lstrip()
    if not text.startswith("raise ") or i == 0 or not _FRAME.match(lines[i - 1].text):
        return False
    after = [line.text for line in lines[i + 1:i + 6] if line.text.strip()]
    if after and _FRAME.match(after[0]):
        return False  # a later frame: this one called on, it did not raise
    return not any(_CONTEXT.match(text) for text in after[:3])  # its own exception line, when there, is read


def narrowed(literals: Sequence[str]) -> Tuple[Signature, ...]:
    """The catalogue's messages whose pre-test word is one of ``literals``, in catalogue order."""
    wanted = set(literals)
    return tuple(s for s in CATALOGUE if s.literal in wanted)


def signatures(segment: Segment, literals: Sequence[str] = _LITERALS,
               catalogue: Sequence[Signature] = CATALOGUE) -> Iterator[Observation]:
    """A ``signature`` observation (its value a Sig) for each known message, and the fact it feeds; ``literals``:
    the pre-test words worth testing (``in_words`` of the whole paste), by default every one; ``catalogue``: the
    messages that can hold them (``narrowed(literals)``), so a segment need not walk the whole catalogue."""
    low = segment.words  # a message wrapped over lines still holds its literal
    present = {literal for literal in literals if literal in low}
    if not present:
        return
    hits = [s for s in catalogue if s.literal in present]
    lines = segment.lines
    for i, line in enumerate(lines):
        text = line.text
        built = bool(text.startswith("#") and _BUILDKIT.match(text))
        text = _BUILDKIT.sub("", text) if built else text
        if text.lstrip().startswith(_CODE) and not text.lstrip().startswith("##") and not _raised_last(lines, i):
            continue  # "##": a Markdown heading
        following = lines[i + 1].text.strip() if i + 1 < len(lines) else ""
        sig = _first(hits, text, text.lower())
        wrapped = False
        if sig is None and following and text.strip() and not following.startswith(_CODE):
            joined = text.rstrip() + " " + following
            sig = _first(hits, joined, joined.lower(), len(text.rstrip()))
            wrapped = sig is not None
            text = joined if wrapped else text
        if sig is None:
            continue
        yield observe("signature", sig.sig, segment, line, "error message")
        if built and sig.sig in _NO_GPU:
            yield observe("signature", Sig.BUILD_NO_GPU, segment, line, "docker build log")
        if sig.target:
            message = text.strip().translate(_QUOTES)
            if not wrapped and (following.startswith("Error loading") or (
                    ".dll" not in message.lower() and ".dll" in following.lower())):
                message += " " + following  # a DLL error wrapped before the DLL's name
            if sig.target == IMPORT and not _CONTEXT.match(message):
                message = "ImportError: " + message
            yield observe(sig.target, message[:500], segment, line, "error message")


TRACEBACK_CUT = "traceback_cut"
_TORCH_INIT = re.compile(r"torch[/\\]__init__\.py")
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?(\w*(?:Error|Exception|Interrupt|Warning))(?::\s*(.*))?$")


_XFORMERS_HAVE = re.compile(r"PyTorch \S+ with CUDA \d+ \(you have (\d+\.\d+[\w.+]*)\)")


def xformers_versions(segment: Segment) -> Iterator[Observation]:
    """xformers' warning names the installed torch: "PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)"."""
    for line in segment.lines:
        if "you have" in line.text:
            m = _XFORMERS_HAVE.search(line.text)
            if m:
                yield observe("torch.version", m.group(1), segment, line, "xformers warning")


def tracebacks(segment: Segment) -> Iterator[Observation]:
    """The exception that ends each Python traceback; one raised by `import torch` is torch's import error."""
    lines = segment.lines
    start = None
    for i, line in enumerate(lines):
        text = line.text
        if "Traceback (most recent call last)" in text:  # also IPython's "ImportError   Traceback (...)"
            start = i
            continue
        if start is None or not text or text[0] in " \t" or text.startswith(("File ", "^")):
            continue
        m = _EXCEPTION.match(text.strip())
        if m:
            yield observe("traceback", text.strip()[:500], segment, line, "traceback")
            frames = " ".join(lines[j].text for j in range(start, i))
            if m.group(1) in ("ImportError", "OSError", "ModuleNotFoundError") and re.search(
                r"import torch\b|torch[/\\\\]__init__\.py", frames
            ):
                yield observe(IMPORT, text.strip()[:500], segment, line, "traceback")
                if _TORCH_INIT.search(frames):  # torch's own __init__ ran: it is installed, and failed to load
                    yield observe("torch.installed", True, segment, line, "traceback")
            start = None  # unindented frame lines (IPython's, or pasted without indentation) keep it open
    if start is not None:  # the paste ends inside a traceback: something failed, the message is not shown
        yield observe(TRACEBACK_CUT, True, segment, lines[start], "traceback")
