"""gpudoctor: finds out why PyTorch will not use the GPU, names the cause and prints the fix.

In Python and notebooks: ``gpudoctor.check()``, ``gpudoctor.diagnose(text_or_path)``, ``gpudoctor.verify()`` and
``gpudoctor.example(name)``; ``gpudoctor.api`` holds them and ``facts()`` and ``examples()`` besides. They are
loaded on first use, so ``import gpudoctor`` stays cheap.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# Names served lazily from gpudoctor.api.
_API = ("check", "diagnose", "verify", "example", "Diagnosis", "FactsView")


def __getattr__(name: str) -> Any:
    if name in _API:
        from gpudoctor import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
