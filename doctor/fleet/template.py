"""One line for many nodes' findings: the words they share, and "535.x" where a version differs."""

from __future__ import annotations

import os
import re
from typing import List, Optional, Set

_CUT = re.compile(r"[.:_/+-]")
_TAIL = re.compile(r"[,;:.)]*$")
MAX_VALUES = 3


class _Slot:
    """One word position where the summaries differ."""

    def __init__(self, word: str) -> None:
        self.prefix = word
        self.tail = _TAIL.search(word).group(0)  # type: ignore[union-attr]
        self.values: Set[str] = {word}
        self.overflow = False

    def add(self, word: str) -> None:
        self.prefix = os.path.commonprefix([self.prefix, word])
        while self.tail and not word.endswith(self.tail):
            self.tail = self.tail[1:]
        if word not in self.values:
            if len(self.values) < MAX_VALUES:
                self.values.add(word)
            else:
                self.overflow = True

    def text(self) -> str:
        """"535.104.05" and "535.129.03" -> "535.x"; "0" and "3" -> "0/3"; many different words -> "…"."""
        cut = len(self.tail)
        prefix = self.prefix[: len(self.prefix) - cut] if cut and self.prefix.endswith(self.tail) else self.prefix
        ends = [m.end() for m in _CUT.finditer(prefix)]
        if ends:
            return prefix[: ends[-1]] + "x" + self.tail
        if self.overflow:
            return "…" + self.tail
        return "/".join(sorted(v[: len(v) - cut] if cut else v for v in self.values)) + self.tail


class Template:
    """The merged wording of one group's summaries; memory stays bounded however many nodes join."""

    def __init__(self, first: str) -> None:
        self.first = first
        self.words: List[str] = first.split(" ")
        self.slots: List[Optional[_Slot]] = [None] * len(self.words)
        self.ragged = False  # some summary had another number of words

    def add(self, summary: str) -> None:
        if summary == self.first:
            return
        words = summary.split(" ")
        if len(words) != len(self.words):
            self.ragged = True
            return
        for i, word in enumerate(words):
            slot = self.slots[i]
            if slot is None:
                if word == self.words[i]:
                    continue
                slot = self.slots[i] = _Slot(self.words[i])
            slot.add(word)

    def text(self) -> str:
        if self.ragged:
            return f"{self.first} (worded differently on some nodes)"
        return " ".join(w if s is None else s.text() for w, s in zip(self.words, self.slots))
