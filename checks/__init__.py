"""Built-in checks: pure functions from Facts to findings, one module per concern."""

from __future__ import annotations

from typing import List

from gpudoctor.registry import Check

CHECKS: List[Check] = []
