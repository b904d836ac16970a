"""Renderers: a Report as terminal text, a markdown issue body or JSON; pure functions of the report."""

from __future__ import annotations

import enum
import os
from typing import Optional

from gpudoctor.exhaustive import assert_never
from gpudoctor.model import Report


class Format(enum.Enum):
    """The output formats of ``check``, ``diagnose`` and ``verify``."""

    TERMINAL = "terminal"
    MARKDOWN = "markdown"
    JSON = "json"

    @classmethod
    def choose(cls, name: Optional[str], output: Optional[str] = None) -> Format:
        """The named format, else the one the output file's suffix implies (.md, .json), else terminal."""
        if name:
            return cls(name)
        suffix = os.path.splitext(output or "")[1].lower()
        return {".md": cls.MARKDOWN, ".markdown": cls.MARKDOWN, ".json": cls.JSON}.get(suffix, cls.TERMINAL)


def render(report: Report, fmt: Format, verbose: bool = False) -> str:
    """The report in ``fmt`` as plain text (no colour codes)."""
    if fmt is Format.MARKDOWN:
        from gpudoctor.render.markdown import render_markdown

        return render_markdown(report, verbose=verbose)
    if fmt is Format.JSON:
        from gpudoctor.render.json import render_json

        return render_json(report)
    if fmt is Format.TERMINAL:
        from gpudoctor.render.terminal import render_terminal

        return render_terminal(report, verbose=verbose)
    assert_never(fmt)
