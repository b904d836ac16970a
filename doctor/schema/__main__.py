"""``python -m gpudoctor.schema``: regenerate the shipped JSON Schemas from the dataclasses."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.schema import write

if __name__ == "__main__":
    for name in write(Path(__file__).resolve().parent):
        print(f"wrote {name}")
