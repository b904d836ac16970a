"""Splits a pasted issue body into segments: fenced blocks, quoted blocks and prose, with their line numbers."""

from __future__ import annotations

import enum
import functools
import re
from urllib.parse import unquote
from dataclasses import dataclass
from typing import List, Optional, Tuple

MAX_LINE = 4096  # characters kept of one line; longer lines are cut (and counted)
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Kind(enum.Enum):
    """What a segment is in the Markdown of the body."""

    FENCE = "fenced block"
    QUOTE = "quoted block"
    PROSE = "prose"


@dataclass(frozen=True)
class Line:
    """One line of the paste: its 1-based number in the body and its text without quote markers."""

    number: int
    text: str


@dataclass(frozen=True)
class Segment:
    """A run of lines of one kind; ``info`` is a fenced block's language tag."""

    index: int
    kind: Kind
    lines: Tuple[Line, ...]
    info: str = ""

    @property
    def first(self) -> int:
        return self.lines[0].number if self.lines else 0

    @property
    def last(self) -> int:
        return self.lines[-1].number if self.lines else 0

    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    @functools.cached_property
    def words(self) -> str:
        """The text lowered, each run of whitespace one space: a message wrapped over lines still holds its
        words. Computed once, for the readers that pre-test a segment and for the whole paste's pre-test."""
        return " ".join(self.text().lower().split())


@dataclass(frozen=True)
class Body:
    """The segments of a paste and what had to be cut to read it."""

    segments: Tuple[Segment, ...]
    line_count: int
    cut_lines: int  # lines longer than MAX_LINE, cut to that length

    @functools.cached_property
    def texts(self) -> Tuple[str, ...]:
        """Every line's text, in paste order (the readers that look at the whole paste share it)."""
        return tuple(line.text for segment in self.segments for line in segment.lines)

    @functools.cached_property
    def words(self) -> str:
        """Every segment's ``words``, one space apart: the whole paste lowered with its whitespace runs made one
        space, as ``" ".join(" ".join(texts).lower().split())`` gives it, without reading the paste twice."""
        return " ".join(segment.words for segment in self.segments)


def normalise(text: str) -> Tuple[List[str], int]:
    """Lines of ``text`` with CRLF/CR endings, zero-width characters and colour codes removed; long lines cut."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_ZERO_WIDTH)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    lines = text.split("\n")
    cut = 0
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE:
            lines[i] = line[:MAX_LINE]
            cut += 1
    return lines, cut


def _unquote(line: str, limit: int = 64) -> Tuple[str, int]:
    """The line without its quote markers (at most ``limit`` levels) and how many there were; a Python
    prompt (`>>> `) is not a quote."""
    depth = 0
    while depth < limit:
        if ">" not in line:  # most lines: no quote marker and no prompt to tell from one
            break
        if line.lstrip(" \t").startswith(">>>"):
            break
        m = _QUOTE.match(line)
        if not m:
            break
        line, depth = line[m.end():], depth + 1
    return line, depth


_MD_ESCAPE = re.compile(r"\\([_*`#<>|\[\]])")
_OTHER_BACKSLASH = re.compile(r"\\(?![_*`#<>|\[\]])|\\__")  # a path: C:\Users, torch\__init__.py
# after a fence, text that is no language tag: the output itself, written on the fence's line
_TEXT_AFTER_FENCE = re.compile(r"\s|:")
_ATTRIBUTES = re.compile(r"^[\w+#.-]+\s+[\w-]+=")  # ```python title="x"


def _inline_code(content: str, m: "re.Match[str]") -> bool:
    """A backtick run followed by more backticks on the same line (```text```) is inline code, not a
    fence: a backtick fence's info string holds no backtick (CommonMark)."""
    return m.group(1).startswith("`") and "`" in content[m.end(1):]


def split(text: str) -> Body:
    """The segments of ``text`` in order; blank prose lines separate nothing, a fence or a quote does."""
    lines, cut = normalise(text)
    segments: List[Segment] = []
    current: List[Line] = []
    kind = Kind.PROSE
    info = ""
    fence: Optional[str] = None
    fence_depth = 0

    def close() -> None:
        nonlocal current
        filled = [i for i, line in enumerate(current) if line.text.strip()]
        if filled:
            segments.append(Segment(len(segments), kind, tuple(current[filled[0]:filled[-1] + 1]), info))
        current = []

    for number, raw in enumerate(lines, start=1):
        content, depth = _unquote(raw, fence_depth if fence is not None else 64)
        quoted = depth > 0
        if fence is not None:
            stripped = content.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                close()
                fence, kind, info = None, Kind.QUOTE if quoted else Kind.PROSE, ""
            else:
                current.append(Line(number, content))
            continue
        m = _FENCE.match(content) if "`" in content or "~" in content else None
        if m and not _inline_code(content, m):
            close()
            fence, kind, info, fence_depth = m.group(1), Kind.FENCE, m.group(2).lower()[:20], depth
            rest = content[m.end(1):].strip()
            if _TEXT_AFTER_FENCE.search(rest) and not _ATTRIBUTES.match(rest):  # ```RuntimeError: CUDA out of ...
                current.append(Line(number, rest))
                info = ""
            continue
        if content.count("%20") > 1 and " " not in content.strip():  # a message pasted URL-encoded
            content = unquote(content)
        if "\\" in content and not _OTHER_BACKSLASH.search(content):  # Markdown's escapes outside code, in a line
            content = _MD_ESCAPE.sub(r"\1", content)  # with no other backslash (a Windows path): torch.\_\_version\_\_
        want = Kind.QUOTE if quoted else Kind.PROSE
        if want is not kind:
            close()
            kind = want
        current.append(Line(number, content))
    close()
    return Body(tuple(segments), len(lines), cut)
