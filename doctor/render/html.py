"""The report as HTML for notebooks (Jupyter, VS Code, Colab): the terminal report's lines, coloured, every value escaped."""

from __future__ import annotations

import html
import re
from typing import Dict, List

from gpudoctor.facts import Facts
from gpudoctor.model import Report
from gpudoctor.render.terminal import Line, terminal_lines

# Mid-tone colours that read on light and dark notebook themes alike.
_COLOURS: Dict[str, str] = {
    "green": "#2da44e",
    "yellow": "#bf8700",
    "red": "#cf222e",
    "magenta": "#a626a4",
    "cyan": "#1b7c83",
    "blue": "#0969da",
}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PRE = 'style="white-space:pre-wrap;font-family:monospace;line-height:1.35;margin:0"'


def escape(text: str) -> str:
    """Text safe anywhere in HTML, attributes included: markup and control characters neutralised."""
    return html.escape(_CONTROL.sub("\ufffd", text), quote=True)


def _css(style: str) -> str:
    rules: List[str] = []
    for word in style.split():
        if word == "bold":
            rules.append("font-weight:bold")
        elif word == "dim":
            rules.append("opacity:0.65")
        elif word in _COLOURS:
            rules.append(f"color:{_COLOURS[word]}")
    return ";".join(rules)


def _line(line: Line) -> str:
    out: List[str] = []
    for text, style in line:
        if not text:
            continue
        css = _css(style)
        out.append(f'<span style="{css}">{escape(text)}</span>' if css else escape(text))
    return "".join(out)


def facts_details(facts: Facts, summary: str = "facts", open_: bool = False) -> str:
    """The facts as escaped JSON inside a collapsible block."""
    attr = " open" if open_ else ""
    return (f"<details{attr}><summary>{escape(summary)}</summary>"
            f"<pre {_PRE}>{escape(facts.to_json(indent=2))}</pre></details>")


def render_html(report: Report, verbose: bool = False) -> str:
    """The terminal report as one HTML fragment, followed by the facts it was built on."""
    body = "\n".join(_line(line) for line in terminal_lines(report, verbose))
    return (f'<div class="gpudoctor-report"><pre {_PRE}>{body}</pre>'
            f"{facts_details(report.facts)}</div>")
