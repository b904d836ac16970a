"""The verify progress view fits 80 columns, and its numbers are never cut into "145…"."""

from __future__ import annotations

import io
from typing import Iterator

import pytest
from rich.console import Console

from gpudoctor.render import progress


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    buf = io.StringIO()
    console = Console(file=buf, width=80, force_terminal=False, color_system=None, markup=False, emoji=False,
                      highlight=False)
    monkeypatch.setattr(progress, "_console", lambda: console)
    yield buf


def _lines(buf: io.StringIO) -> list[str]:
    return [line for line in buf.getvalue().splitlines() if line.strip()]


def test_training_bars_fit_80_columns_with_large_numbers(screen: io.StringIO) -> None:
    with progress.View(enabled=True) as view:
        for model, device in (("lenet", "cpu"), ("cnn", "cuda:15"), ("fnn", "cuda:0")):
            view.record({"event": "stage", "stage": "train", "device": device, "model": model})
            view.record({"event": "progress", "device": device, "model": model, "step": 14_500,
                         "total": 1_500_000, "samples_per_s": 1_234_567.0})
        view.record({"event": "run", "device": "cpu", "model": "lenet", "complete": False})
        view.record({"event": "run", "device": "cuda:15", "model": "cnn", "complete": True, "accuracy": 0.9876})
        view.record({"event": "run", "device": "cuda:0", "model": "fnn", "error": "CUDA error: out of memory"})
    lines = _lines(screen)
    bars = [line for line in lines if "/1.5M" in line]
    assert len(bars) >= 3
    assert all(len(line) <= 80 for line in bars)
    assert all("…" not in line for line in bars)
    assert all("1.2M samples/s" in line for line in bars)
    assert any(line.startswith("lenet on cpu: budget reached ") for line in bars)
    assert any(line.startswith("cnn on cuda:15: 98.8% accuracy ") and "1.5M/1.5M" in line for line in bars)
    assert any(line.startswith("fnn on cuda:0: failed ") and "14,500/1.5M" in line for line in bars)
    assert "fnn on cuda:0: CUDA error: out of memory" in lines


def test_download_bars_fit_80_columns(screen: io.StringIO) -> None:
    with progress.download_progress(True) as report:
        assert report is not None
        report("train-images-idx3-ubyte.gz", 5_000_000, 9_912_422)
    bars = [line for line in _lines(screen) if "downloading" in line]
    assert bars and all(len(line) <= 80 and "…" not in line for line in bars)
    assert all("downloading train-images-idx3-ubyte.gz" in line and "/9.9 MB" in line for line in bars)


@pytest.mark.parametrize("value, text", [
    (None, "?"), (0, "0"), (950, "950"), (14_500, "14.5k"), (999_999, "1000k"), (1_500_000, "1.5M"),
    (123_456_789, "123M"), (2.3e9, "2.3G"),
])
def test_compact_counts(value: float, text: str) -> None:
    assert progress.compact(value) == text
    assert len(text) <= 6


def test_the_view_verify_is_given_on_a_terminal_draws(screen: io.StringIO) -> None:
    shown = progress.VerifyProgress()
    with shown.downloads() as report:
        assert report is not None
        report("t10k-labels-idx1-ubyte.gz", 10, 20)
    with shown.workers() as view:
        view.record({"event": "hello", "torch": "2.14.1", "python": "3.11.7", "cuda_available": False})
    assert "downloading t10k-labels-idx1-ubyte.gz" in screen.getvalue()
    assert "torch 2.14.1 under Python 3.11.7: no usable GPU (CUDA is not available)" in _lines(screen)
