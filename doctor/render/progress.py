"""What ``gpudoctor verify`` shows on stderr while it works: a bar per model and device with samples/s, downloads.

The verify probe draws nothing: the CLI passes it ``VerifyProgress``, which it opens around its downloads and its
workers.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, ContextManager, Dict, Iterator, Optional, Tuple

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TransferSpeedColumn,
)
from rich.table import Column

from gpudoctor.trainers.protocol import EPOCH, HELLO, PARITY, PROGRESS, RUN, SMOKE, STAGE

DownloadReport = Callable[[str, int, Optional[int]], None]  # (file name, bytes so far, total bytes or None)

_STAGES = {
    "data": "loading the data",
    "smoke": "smoke test",
    "parity": "CPU/GPU parity",
    "bench": "micro-benchmarks",
    "speed": "speed comparison at a large batch",
    "release": "releasing GPU memory",
}


def _number(rec: Dict[str, Any], key: str) -> Optional[float]:
    """A finite, non-negative number from a worker record; None for anything else (a wrong type is dropped)."""
    value = rec.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value < 1e18 else None


def _text(rec: Dict[str, Any], key: str) -> str:
    value = rec.get(key)
    return value if isinstance(value, str) else ""


def _console() -> Console:
    return Console(stderr=True, markup=False, emoji=False, highlight=False)


# Column widths that fit 80 columns together: the numbers never shrink, only an over-long label does.
LABEL_WIDTH = 32
COUNT_WIDTH = 13
RATE_WIDTH = 14


def _fixed(width: int, shrinks: bool = False) -> Column:
    if shrinks:
        return Column(max_width=width, no_wrap=True, overflow="ellipsis")
    return Column(min_width=width, max_width=width, no_wrap=True, overflow="crop", justify="right")


def compact(value: Optional[float], exact_below: float = 1e3) -> str:
    """A number in at most six characters: 950, 14.5k, 1.5M, 2.3G ("?" when unknown).

    Below ``exact_below`` it is written in full with thousands separators (``exact_below=1e5``: 4,690).
    """
    if value is None:
        return "?"
    if value < exact_below:
        return f"{value:,.0f}"
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= limit:
            scaled = value / limit
            return f"{scaled:.1f}{suffix}" if scaled < 100 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}"


def _count(step: Optional[float], total: Optional[float]) -> str:
    """Steps done of the total, each exact below 100,000: "400/4,690", "14.5k/1.5M" (13 characters at most)."""
    return f"{compact(step or 0, 1e5)}/{compact(total, 1e5)}"


class View:
    """Renders worker records as they arrive; does nothing when disabled."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._bars: Dict[Tuple[str, str], TaskID] = {}
        self._greeted = False
        self._progress = Progress(
            TextColumn("{task.description}", markup=False, table_column=_fixed(LABEL_WIDTH, shrinks=True)),
            BarColumn(bar_width=8),
            TextColumn("{task.fields[count]}", markup=False, table_column=_fixed(COUNT_WIDTH)),
            TextColumn("{task.fields[rate]}", markup=False, table_column=_fixed(RATE_WIDTH)),
            TimeElapsedColumn(),
            console=_console(),
            disable=not enabled,
            expand=False,
        )

    def __enter__(self) -> View:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def _say(self, text: str) -> None:
        if self.enabled:
            self._progress.console.print(text, markup=False, highlight=False)

    def record(self, rec: Dict[str, Any]) -> None:
        event, device, model = rec.get("event"), _text(rec, "device"), _text(rec, "model")
        if event == HELLO:
            self._hello(rec)
        elif event == STAGE and rec.get("stage") == "train":
            label = f"{model} on {device}" + (" (baseline)" if device == "cpu" else "")
            self._bars[(model, device)] = self._progress.add_task(label, total=None, rate="", count="")
        elif event == STAGE and device:
            self._say(
                f"{device}: {_STAGES.get(str(rec.get('stage')), rec.get('stage'))}" + (f" ({model})" if model else "")
            )
        elif event in (PROGRESS, EPOCH) and (model, device) in self._bars:
            rate = _number(rec, "samples_per_s")
            step, total = _number(rec, "step"), _number(rec, "total")
            self._progress.update(
                self._bars[(model, device)],
                completed=step or 0,
                total=total,
                count=_count(step, total),
                rate=f"{compact(rate)} samples/s" if rate is not None else "",
            )
        elif event == RUN:
            self._run(rec, model, device)
        elif event == SMOKE:
            self._say(
                f"{device}: kernels run and agree with the CPU"
                if rec.get("ok")
                else f"{device}: smoke test failed: {rec.get('error')}"
            )
        elif event == PARITY:
            self._say(
                f"{device}: {model} parity " + ("ok" if rec.get("ok") else f"FAILED {rec.get('error') or ''}".rstrip())
            )

    def _hello(self, rec: Dict[str, Any]) -> None:
        if self._greeted:
            return
        self._greeted = True
        torch = f"torch {rec.get('torch')} under Python {rec.get('python')}"
        if rec.get("cuda_available"):
            devices = rec.get("devices")
            listed = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
            names = ", ".join(f"{_text(d, 'device')} {_text(d, 'name')}" for d in listed)
            self._say(f"{torch}: {names}")
        else:
            self._say(f"{torch}: no usable GPU ({rec.get('cuda_error') or 'CUDA is not available'})")

    def _run(self, rec: Dict[str, Any], model: str, device: str) -> None:
        task = self._bars.get((model, device))
        if task is None:
            task = self._bars[(model, device)] = self._progress.add_task(
                f"{model} on {device}", total=None, rate="", count="")
        acc = _number(rec, "accuracy")
        if rec.get("error"):
            text = f"{model} on {device}: failed"
            self._say(f"{model} on {device}: {rec['error']}")
        elif rec.get("complete"):
            text = f"{model} on {device}: {acc:.1%} accuracy" if acc is not None else f"{model} on {device}"
        else:
            text = f"{model} on {device}: budget reached"
        self._progress.update(task, description=text)
        if rec.get("complete"):
            total = next((t.total for t in self._progress.tasks if t.id == task), None) or 1
            self._progress.update(task, completed=total, total=total, count=_count(total, total))

    def finished(self, label: str, failure: Optional[str]) -> None:
        if failure:
            self._say(f"{label}: the worker {failure}")


@contextlib.contextmanager
def download_progress(enabled: bool) -> Iterator[Optional[DownloadReport]]:
    """A callback that draws a download bar per file on stderr, or None when progress is off."""
    if not enabled:
        yield None
        return
    tasks: Dict[str, TaskID] = {}
    with Progress(
        TextColumn("downloading {task.description}", markup=False, table_column=_fixed(40, shrinks=True)),
        BarColumn(bar_width=10),
        DownloadColumn(table_column=_fixed(15)),
        TransferSpeedColumn(table_column=_fixed(10)),
        console=_console(),
        expand=False,
    ) as progress:

        def report(name: str, done: int, total: Optional[int]) -> None:
            if name not in tasks:
                tasks[name] = progress.add_task(name, total=total)
            progress.update(tasks[name], completed=done, total=total)

        yield report


class VerifyProgress:
    """The view ``gpudoctor verify`` passes to the verify probe on a terminal: download bars, then worker bars."""

    def downloads(self) -> ContextManager[Optional[DownloadReport]]:
        return download_progress(True)

    def workers(self) -> View:
        return View(True)
