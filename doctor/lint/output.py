"""Lint output: one line per finding (``path:line:col: CODE message``), JSON, and SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Sequence

from gpudoctor import __version__
from gpudoctor.lint.model import Diagnostic, LintResult, Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/torch-gpudoctor/"


def level(code: str) -> str:
    """SARIF level: GD1xx are errors (the script fails or computes on the wrong device), the rest warnings."""
    return "error" if code.startswith("GD1") else "warning"


def text_line(diagnostic: Diagnostic) -> str:
    fix = f" Fix: {diagnostic.fix}" if diagnostic.fix else ""
    return f"{diagnostic.location}: {diagnostic.code} {diagnostic.message}.{fix}"


def render_text(result: LintResult) -> str:
    return "".join(text_line(d) + "\n" for d in result.diagnostics)


def summary(result: LintResult) -> str:
    files = f"{result.files} file{'s' if result.files != 1 else ''} linted"
    problems = len(result.diagnostics)
    failed = f", {len(result.errors)} could not be linted" if result.errors else ""
    if not problems:
        return f"No problems found ({files}{failed})."
    touched = len({d.path for d in result.diagnostics})
    return (f"Found {problems} problem{'s' if problems != 1 else ''} in {touched} "
            f"file{'s' if touched != 1 else ''} ({files}{failed}).")


def render_json(result: LintResult) -> str:
    data = {
        "tool": "gpudoctor lint", "version": __version__, "files": result.files,
        "diagnostics": [d.to_dict() for d in result.diagnostics],
        "errors": [{"path": e.path, "line": e.line, "column": e.col, "message": e.message} for e in result.errors],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> str:
    """A repository-relative URI with forward slashes, as code scanning matches files."""
    relative = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    if relative.startswith(".."):
        return "file://" + os.path.abspath(path).replace(os.sep, "/")
    return relative.replace(os.sep, "/")


def _region(line: int, col: int) -> Dict[str, int]:
    return {"startLine": max(line, 1), "startColumn": max(col, 1)}


def render_sarif(result: LintResult, rules: Sequence[Rule]) -> str:
    index = {rule.code: number for number, rule in enumerate(rules)}
    results: List[Dict[str, Any]] = []
    for d in result.diagnostics:
        entry: Dict[str, Any] = {
            "ruleId": d.code, "level": level(d.code),
            "message": {"text": f"{d.message}. Fix: {d.fix}" if d.fix else d.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(d.path)},
                                                "region": _region(d.line, d.col)}}],
        }
        if d.code in index:
            entry["ruleIndex"] = index[d.code]
        if d.cell is not None:
            entry["properties"] = {"cell": d.cell}
        results.append(entry)
    notifications = [{"level": "error", "message": {"text": e.message},
                      "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(e.path)},
                                                          **({"region": _region(e.line, e.col)} if e.line else {})}}]}
                     for e in result.errors]
    driver = {
        "name": "gpudoctor", "version": __version__, "informationUri": INFORMATION_URI,
        "rules": [{
            "id": rule.code, "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.doc},
            "help": {"text": rule.doc, "markdown": rule.doc},
            "defaultConfiguration": {"level": level(rule.code)},
        } for rule in rules],
    }
    run = {"tool": {"driver": driver}, "results": results,
           "invocations": [{"executionSuccessful": not result.errors, "toolExecutionNotifications": notifications}]}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"


def explain(rule: Rule) -> str:
    state = "on by default" if rule.default else "off by default; enable with --select " + rule.code
    return f"{rule.code} ({rule.name}, {state}, from {rule.source or 'a plugin'})\n\n{rule.doc}\n"


def rule_table(rules: Sequence[Rule]) -> str:
    rows = [f"{r.code:<7} {r.name:<34} {'on ' if r.default else 'off'}  {r.summary}" for r in rules]
    return "\n".join(rows) + "\n"
