"""The tools that can manage a Python environment, as gpudoctor names them in facts and fix commands."""

from __future__ import annotations

from gpudoctor.facts.codec import Vocabulary


class Installer(Vocabulary):
    """What installs packages into the target environment; fixes are written in its language."""

    VENV = "venv"  # a plain virtual environment managed with pip
    UV_PROJECT = "uv-project"  # a uv project (pyproject.toml and uv.lock): `uv add`, `[tool.uv.sources]`
    UV_VENV = "uv-venv"  # an environment made by `uv venv`: `uv pip install`
    CONDA = "conda"  # conda, mamba or micromamba
    PIXI = "pixi"  # a pixi workspace environment
    POETRY = "poetry"  # a Poetry project's environment
    SYSTEM = "system"  # a system Python that pip may still install into (user site)
    EXTERNALLY_MANAGED = "externally-managed"  # a Python marked EXTERNALLY-MANAGED (PEP 668): never pip into it
