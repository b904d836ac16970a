"""Fleet triage: many nodes' facts files and reports judged together, grouped by root cause and drift."""

from __future__ import annotations
