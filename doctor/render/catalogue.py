"""The ``gpudoctor checks`` listing: id, title and source of every check, and plugins that failed to load."""

from __future__ import annotations

from typing import List, Tuple

from gpudoctor.registry import Catalogue


def render_catalogue(catalogue: Catalogue) -> str:
    """An aligned three-column table with a header row."""
    rows: List[Tuple[str, str, str]] = [("ID", "TITLE", "SOURCE")]
    rows += [(c.id, c.title, c.source) for c in catalogue.checks]
    rows += [(f"plugin:{e.name}", "failed to load: " + " ".join(e.error.split()), e.source) for e in catalogue.errors]
    id_width = max(len(row[0]) for row in rows)
    title_width = max(len(row[1]) for row in rows)
    return "".join(f"{a:<{id_width}}  {b:<{title_width}}  {c}".rstrip() + "\n" for a, b, c in rows)
