"""Whether a value read from the diagnosed input is plausible for the slot of a command it would fill.

Quoting (``gpudoctor.shell``) keeps a value from running; these tests keep an implausible value out of a
printed command altogether, so that a pasted report cannot make gpudoctor print a command that does
something other than what its fix says. A check that gets ``False`` says what to do in words instead.
"""

from __future__ import annotations

import re
from typing import Iterable

__all__ = ["env_name", "env_value", "gpu_selector", "gpu_selectors", "path", "path_list", "pci_bus_id", "requirement", "version"]

_MAX = 4096
_HEX = r"[0-9A-Fa-f]"
_UUID = rf"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
# CUDA_VISIBLE_DEVICES entries: an index, a (prefix of a) GPU UUID, a MIG UUID, or the older MIG-GPU-UUID/GI/CI form.
_GPU_SELECTOR = re.compile(
    rf"^(?:\d{{1,4}}|GPU-[0-9A-Fa-f-]{{1,36}}|MIG-[0-9A-Fa-f-]{{1,36}}|MIG-GPU-{_UUID}/\d{{1,3}}/\d{{1,3}})$")
# Letters of any script, digits and the punctuation real paths use (O'Brien too); no ", $, `, ;, |, &, <, >, *, ?, ! or %.
_PATH = re.compile(r"^(?:[^\W]|[ ._/\\:+@~,=()\[\]{}#'-])+$")
_ROOTED = re.compile(r"^(?:/|~/|[A-Za-z]:[\\/]|\\\\)")
_PCI_BUS_ID = re.compile(r"^(?:[0-9A-Fa-f]{1,8}:)?[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}\.[0-7]$")
_VERSION = re.compile(r"^[0-9][0-9A-Za-z.+!_-]{0,63}$")
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?"
_REQUIREMENT = re.compile(rf"^{_NAME}(?:\[{_NAME}(?:,{_NAME})*\])?(?:(?:===?|~=|!=|<=?|>=?)[0-9][0-9A-Za-z.+!*_-]{{0,63}})?$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_ENV_VALUE = re.compile(r"^(?:[^\W]|[ ._/\\:+@~,=()\[\]{}#;-])*$")


def gpu_selector(value: str) -> bool:
    """One CUDA_VISIBLE_DEVICES entry: ``0``, ``GPU-5e4d...``, ``MIG-9d2f...``, ``MIG-GPU-<uuid>/1/0``."""
    return bool(_GPU_SELECTOR.match(value))


def gpu_selectors(values: Iterable[str]) -> bool:
    items = list(values)
    return bool(items) and all(gpu_selector(v) for v in items)


def path(value: str) -> bool:
    """An absolute (or ``~/``) path of a file or folder, made of characters real paths use."""
    return 0 < len(value) <= _MAX and bool(_ROOTED.match(value)) and bool(_PATH.match(value)) and ".." not in value.split("/")


def path_list(values: Iterable[str]) -> bool:
    """Entries of a search path (LD_LIBRARY_PATH, PATH, PYTHONPATH); an empty list is plausible."""
    return all(path(v) for v in values)


def pci_bus_id(value: str) -> bool:
    """``00000000:65:00.0`` (NVML) or ``0000:65:00.0`` (torch, lspci)."""
    return bool(_PCI_BUS_ID.match(value))


def version(value: str) -> bool:
    """A version number such as ``2.6.0+cu126`` or ``550.127.05``."""
    return bool(_VERSION.match(value))


def requirement(value: str) -> bool:
    """A pip requirement of the plain kind gpudoctor prints: ``torch``, ``torch==2.6.0+cu126``, ``nvidia-cudnn-cu12>=9``."""
    return bool(_REQUIREMENT.match(value))


def env_name(value: str) -> bool:
    return bool(_ENV_NAME.match(value))


def env_value(value: str) -> bool:
    """A value for an environment variable: bounded, printable, none of the shells' special characters."""
    return len(value) <= _MAX and bool(_ENV_VALUE.match(value))
