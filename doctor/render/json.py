"""The JSON report: ``{"schema", "facts", "results"}`` with stable keys, for tools and bug trackers."""

from __future__ import annotations

import json

from gpudoctor.model import Report
from gpudoctor.textsafe import json_text


def render_json(report: Report) -> str:
    """The report as indented JSON text ending in a newline."""
    return json_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False)) + "\n"
