"""``gpudoctor plan``: the install plan for a fresh environment on this machine (or the one a facts file shows).

It prints commands and runs none of them.
"""

from __future__ import annotations

from typing import Optional, Sequence

import click

from gpudoctor.errors import UserError
from gpudoctor.facts import Facts
from gpudoctor.parsers.report import load_facts, read_input
from gpudoctor.recommend.fresh import Tool, fresh_plan
from gpudoctor.render.plan import to_json, to_text

INSTALLER_NAMES = tuple(tool.value for tool in Tool)


class PlanError(UserError, ValueError):
    """A plan cannot be made from what was given; one line, exit code 2."""


def facts_for_plan(facts_file: Optional[str], python: Optional[str], timeout: float) -> Facts:
    """The facts of a file (``-`` for stdin), else of this machine, collected without running anything else."""
    if facts_file is not None:
        text, name = read_input(facts_file)
        return load_facts(text, name)
    from gpudoctor import probes

    return probes.collect(python=python, timeout=timeout)


def run_plan(facts: Facts, installers: Sequence[str], fmt: str, output: Optional[str]) -> int:
    chosen = tuple(Tool(name) for name in installers) or tuple(Tool)
    try:
        fresh = fresh_plan(facts, chosen)
    except ValueError as exc:  # a compute capability in the facts that is none
        raise PlanError(f"no plan for these facts: {exc}") from exc
    text = to_json(fresh) if fmt == "json" else to_text(fresh)
    if output:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise PlanError(f"{output}: cannot write ({exc.strerror or exc})") from exc
    else:
        click.echo(text, nl=False)
    return 0
