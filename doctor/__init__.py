"""gpudoctor: finds out why PyTorch will not use the GPU, names the cause and prints the fix."""

from __future__ import annotations

__version__ = "0.1.0"
