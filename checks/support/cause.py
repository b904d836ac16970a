"""What a recognised message means: the value the cause tables of pasted messages are made of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from gpudoctor.model import Severity


@dataclass(frozen=True)
class Cause:
    """What a recognised message means, how bad it is, and what to do."""

    severity: Severity
    summary: str
    fix: str
    commands: Tuple[str, ...] = ()
    links: Tuple[str, ...] = ()


E, W, NOTE = Severity.ERROR, Severity.WARNING, Severity.INFO
