"""``gpudoctor lint``: static checks of training scripts for device mistakes, from Python's ast alone."""

from __future__ import annotations

from gpudoctor.lint.engine import lint_paths, lint_source, lint_text
from gpudoctor.lint.model import Diagnostic, FileError, Hit, LintResult, Rule, rule
from gpudoctor.lint.script import Script

__all__ = ["Diagnostic", "FileError", "Hit", "LintResult", "Rule", "Script", "lint_paths", "lint_source",
           "lint_text", "rule"]
