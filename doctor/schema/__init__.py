"""JSON Schemas of the facts file and the JSON report, generated from their dataclasses.

``python -m gpudoctor.schema`` rewrites the shipped files; a test fails when a dataclass changes without it.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from importlib import resources
from pathlib import Path
from typing import Any, Dict, Tuple, Union

from gpudoctor.facts import SCHEMA_VERSION, Facts
from gpudoctor.model import REPORT_SCHEMA, CheckResult, Report

DRAFT = "https://json-schema.org/draft/2020-12/schema"
FILES = {"facts": "facts.schema.json", "report": "report.schema.json"}
Defs = Dict[str, Dict[str, Any]]


def _nullable(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    is_union = origin is Union or (hasattr(types, "UnionType") and isinstance(tp, types.UnionType))
    return is_union and type(None) in typing.get_args(tp)


def _type(tp: Any, defs: Defs) -> Dict[str, Any]:
    if _nullable(tp):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return {"anyOf": [_type(inner[0], defs), {"type": "null"}]}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (tuple, Tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _type(args[0], defs)}
        return {"type": "array", "prefixItems": [_type(a, defs) for a in args], "items": False,
                "minItems": len(args)}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [member.value for member in tp]}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        _define(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if tp in simple:
        return {"type": simple[tp]}
    raise TypeError(f"no JSON Schema for {tp!r}")


def _define(cls: type, defs: Defs) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # reserve the name first: a class may refer to itself
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    defs[cls.__name__] = {
        "type": "object",
        "description": (cls.__doc__ or "").strip().splitlines()[0],
        "properties": {f.name: _type(hints[f.name], defs) for f in fields},
        "required": [f.name for f in fields],
        "additionalProperties": False,
    }


def _document(name: str, title: str, root: type, extra: Dict[str, Any]) -> Dict[str, Any]:
    defs: Defs = {}
    _define(root, defs)
    top = dict(defs.pop(root.__name__))
    top["properties"] = {**extra, **top["properties"]}
    top["required"] = list(extra) + top["required"]
    return {"$schema": DRAFT, "$id": f"urn:gpudoctor:schema:{name}", "title": title, **top,
            "$defs": dict(sorted(defs.items()))}


def facts_schema() -> Dict[str, Any]:
    """The schema of ``gpudoctor facts`` output, built from ``gpudoctor.facts.Facts``."""
    return _document("facts", f"gpudoctor facts, schema {SCHEMA_VERSION}", Facts, {})


def report_schema() -> Dict[str, Any]:
    """The schema of ``--format json`` reports, built from ``gpudoctor.model.Report`` and the facts."""
    doc = _document("report", f"gpudoctor JSON report, schema {REPORT_SCHEMA}", Report,
                    {"schema": {"const": REPORT_SCHEMA}})
    doc["properties"]["results"] = {"type": "array", "items": _type(CheckResult, doc["$defs"])}
    doc["$defs"] = dict(sorted(doc["$defs"].items()))
    return doc


def generated() -> Dict[str, str]:
    """File name -> text of every schema, as ``python -m gpudoctor.schema`` writes them."""
    docs = {"facts": facts_schema(), "report": report_schema()}
    return {FILES[k]: json.dumps(v, indent=2, ensure_ascii=False) + "\n" for k, v in docs.items()}


def shipped(filename: str) -> str:
    """The text of a schema file as installed with the package."""
    return resources.files(__name__).joinpath(filename).read_text(encoding="utf-8")


def load(kind: str) -> Dict[str, Any]:
    """The shipped schema of ``kind`` ("facts" or "report") as data."""
    data: Dict[str, Any] = json.loads(shipped(FILES[kind]))
    return data


def write(folder: Path) -> Tuple[str, ...]:
    """Write every schema into ``folder``; the names written."""
    written = []
    for filename, text in generated().items():
        (folder / filename).write_text(text, encoding="utf-8")
        written.append(filename)
    return tuple(written)
