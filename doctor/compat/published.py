"""Facts read from the published wheels' own metadata; rewritten by ``python -m gpudoctor.compat.refresh``."""

from __future__ import annotations

from typing import Tuple

DATA_DATE = "2026-11-24"
SOURCES: Tuple[str, ...] = (
    "shared reference compat-data.md, corrections of 2026-11-24",
)
