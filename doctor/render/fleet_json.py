"""The fleet report as JSON with stable keys: every group, drift, unreadable file and node."""

from __future__ import annotations

import json

from gpudoctor.fleet.model import FleetReport


def render_fleet_json(report: FleetReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
