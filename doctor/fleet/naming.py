"""How a node is named: ``gpudoctor facts --node-name NAME`` records it, else the file name says it."""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Optional

from gpudoctor.facts import Facts
from gpudoctor.parsers.report import InputError

NODE_KEY = "node"  # the key in Facts.extra that --node-name writes
MAX_NAME = 128
_VALID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_SUFFIXES = (".json", ".md", ".markdown", ".txt", ".facts", ".report", ".gpudoctor")


class NodeNameError(InputError):
    """A --node-name that is not a host name; the message is one line for the user."""


def check_node_name(name: str) -> str:
    """``name`` if it is a usable host name (letters, digits, '.', '_', '-'), else NodeNameError."""
    if not _VALID.match(name):
        raise NodeNameError(
            f"--node-name {name!r}: use a host name (letters, digits, '.', '_' and '-', at most {MAX_NAME} "
            "characters, starting with a letter or digit)"
        )
    return name


def with_node(facts: Facts, name: str) -> Facts:
    """The facts with the node name recorded; it is added after redaction, so it is kept as given."""
    kept = tuple((key, value) for key, value in facts.extra if key != NODE_KEY)
    return dataclasses.replace(facts, extra=kept + ((NODE_KEY, check_node_name(name)),))


def clean(name: str) -> str:
    """A name safe for one line and one TSV field: whitespace and control characters become '_'."""
    return _UNSAFE.sub("_", name).strip("_")[:MAX_NAME] or "?"


def node_from_path(path: str) -> str:
    """``facts/n001.json`` -> ``n001``: the file name without the suffixes gpudoctor's files carry."""
    name = os.path.basename(path.rstrip("/\\")) or path
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
    return clean(name)


def node_from_facts(facts: Facts) -> Optional[str]:
    """The name recorded by ``gpudoctor facts --node-name``, if any."""
    for key, value in facts.extra:
        if key == NODE_KEY and value.strip():
            return clean(value)
    return None
