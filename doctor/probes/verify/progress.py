"""What the verify probe reports while it works, to a view its caller passes in (the CLI passes a Rich one).

The probe draws nothing itself: it opens ``downloads()`` around fetching a data set and ``workers()`` around
running the workers, and hands the view each worker record as it arrives.
"""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager, Dict, Optional, Protocol

from gpudoctor.probes.verify.fetch import Progress as DownloadReport

__all__ = ["QUIET", "DownloadReport", "Progress", "Quiet", "WorkerProgress"]


class WorkerProgress(Protocol):
    """Told about each worker as it runs."""

    def record(self, rec: Dict[str, Any]) -> None:
        """One record a worker printed, as it arrives (its fields unchecked: a worker may send any JSON)."""

    def finished(self, label: str, failure: Optional[str]) -> None:
        """The worker for ``label`` ended; ``failure`` completes "the worker ..." when it did not finish."""


class Progress(Protocol):
    """A view of a verify run: one for the downloads, then one for the workers."""

    def downloads(self) -> ContextManager[Optional[DownloadReport]]:
        """Open while a data set is fetched; yields the callback for each file's bytes, or None."""

    def workers(self) -> ContextManager[WorkerProgress]:
        """Open while the workers run."""


class _Silent:
    def record(self, rec: Dict[str, Any]) -> None:
        pass

    def finished(self, label: str, failure: Optional[str]) -> None:
        pass


class Quiet:
    """Shows nothing."""

    def downloads(self) -> ContextManager[Optional[DownloadReport]]:
        return contextlib.nullcontext(None)

    def workers(self) -> ContextManager[WorkerProgress]:
        return contextlib.nullcontext(_Silent())


QUIET = Quiet()
