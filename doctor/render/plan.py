"""``gpudoctor plan`` output: the fresh-environment install plan per installer, as text or JSON."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from gpudoctor.recommend.fresh import ENGINES_NOTE, FreshPlan
from gpudoctor.recommend.plan import InstallPlan
from gpudoctor.textsafe import json_text, visible


def _plan_dict(plan: InstallPlan) -> Dict[str, Any]:
    return {
        "packages": [{"name": p.name, "version": p.version, "local": p.local, "requirement": p.requirement}
                     for p in plan.packages],
        "variant": plan.variant,
        "cuda": plan.cuda,
        "index_url": plan.index_url,
        "force_reinstall": plan.force_reinstall,
        "force_reason": plan.force_reason or None,
        "confidence": plan.confidence.value,
        "notes": list(plan.notes),
    }


def to_json(fresh: FreshPlan) -> str:
    rec = fresh.recommendation
    data: Dict[str, Any] = {
        "ok": rec.ok,
        "text": rec.text,
        "reason": rec.reason,
        "confidence": rec.confidence.value,
        "plan": _plan_dict(rec.plan) if rec.plan is not None else None,
        "notes": list(rec.notes) + list(fresh.assumed),
        "installers": [
            {"installer": t.tool.value,
             "commands": list(t.said.commands) if t.said else [],
             "notes": list(t.said.notes) if t.said else [],
             "confidence": t.said.confidence.value if t.said else None,
             "options": [{"text": text, "commands": list(commands)} for text, commands in t.options]}
            for t in fresh.tools],
        "engines": ENGINES_NOTE,
        "runs_nothing": True,
    }
    return json_text(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


def to_text(fresh: FreshPlan) -> str:
    rec = fresh.recommendation
    lines: List[str] = [rec.text]
    lines += list(rec.notes) + list(fresh.assumed)
    if rec.confidence.value != "CONFIRMED":
        lines.append(f"Confidence: {rec.confidence.value}.")
    for tool in fresh.tools:
        lines += ["", f"[{tool.tool.value}]"]
        if tool.said is not None:
            lines += [f"  $ {command}" for command in tool.said.commands]
            lines += [f"  {line}" for note in tool.said.notes for line in note.splitlines()]
            if tool.said.confidence is not rec.confidence:
                lines.append(f"  ({tool.said.confidence.value})")
        for text, commands in tool.options:
            lines.append(f"  {text}")
            lines += [f"    $ {command}" for command in commands]
    lines += ["", ENGINES_NOTE, "Nothing was run: these are the commands to run yourself."]
    return "\n".join(visible(line) for line in lines) + "\n"
