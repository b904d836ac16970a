"""`gpudoctor mcp`: a real round trip with the MCP SDK's own client over stdio, and the missing-extra message."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from gpudoctor import mcp_server
from gpudoctor.probes import process

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
TOOLS = ["check", "diagnose", "facts", "verify"]


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def _session(calls: List[Tuple[str, Dict[str, Any]]]) -> Tuple[List[Any], List[Tuple[bool, str]]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "gpudoctor", "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                results.append((bool(getattr(result, "is_error", getattr(result, "isError", False))), _text(result)))
            return tools, results


def test_round_trip_over_stdio(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    script = tmp_path / "train.py"
    script.write_text("import torch\nx = torch.zeros(3)\nif torch.cuda.is_available():\n    x.to('cuda')\n")
    calls = [
        ("diagnose", {"path": str(SCENARIOS / "rtx5090-cu126.json")}),
        ("diagnose", {"example": "healthy-h100", "format": "json"}),
        ("diagnose", {"text": (SCENARIOS / "cpu-wheel-rtx4080.json").read_text(encoding="utf-8"),
                      "format": "markdown"}),
        ("diagnose", {"path": str(SCENARIOS / "no-such-file.json")}),
        ("diagnose", {}),
        ("check", {"select": ["torch"]}),
        ("lint", {"paths": [str(script)]}),
    ]
    tools, results = asyncio.run(asyncio.wait_for(_session(calls), timeout=300))
    assert sorted(t.name for t in tools) == sorted(TOOLS + ["lint"])
    schema = {t.name: t.inputSchema if hasattr(t, "inputSchema") else t.input_schema for t in tools}
    assert set(schema["diagnose"]["properties"]) == {"text", "path", "example", "verbose", "format"}
    by_path, as_json, as_markdown, missing, empty, check, lint = results
    assert not by_path[0] and "GPU 0 (NVIDIA GeForce RTX 5090) is sm_120" in by_path[1]
    assert not as_json[0] and as_json[1].startswith('{\n  "schema": 1,') and '"status": "fail"' not in as_json[1]
    assert not as_markdown[0] and as_markdown[1].startswith("## gpudoctor report")
    assert "`torch.cpu-build-on-gpu`" in as_markdown[1]
    assert missing[0] and missing[1].endswith("no-such-file.json: no such file") and "\n" not in missing[1]
    assert empty[0] and empty[1].endswith("give exactly one of text, path or example")
    assert not check[0] and "(facts collected live" in check[1] and "PyTorch install" in check[1]
    assert not lint[0] and '"code": "GD101"' in lint[1]


def test_lint_tool_is_served_only_where_lint_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")

    def names() -> List[str]:
        return sorted(t.name for t in asyncio.run(mcp_server.build_server().list_tools()))

    monkeypatch.setattr(mcp_server, "lint_available", lambda: False)
    assert names() == TOOLS
    monkeypatch.setattr(mcp_server, "lint_available", lambda: True)
    assert names() == sorted(TOOLS + ["lint"])


def test_without_the_extra_one_line_and_exit_2() -> None:
    code = ("import sys; sys.modules['mcp'] = None; sys.argv = ['gpudoctor', 'mcp']\n"
            "from gpudoctor.cli import main; main()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"error: {mcp_server.INSTALL_HINT}\n"


def test_lint_runs_the_lint_command_without_a_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: List[List[str]] = []

    def run(argv: List[str], timeout: float, cap: int) -> process.Outcome:
        seen.append(argv)
        assert (timeout, cap) == (mcp_server.LINT_TIMEOUT, mcp_server.LINT_OUTPUT_CAP)
        return process.Outcome(stdout='{"findings": []}\n', returncode=1)

    monkeypatch.setattr(process, "run", run)
    hostile = "$(rm -rf ~); train.py"
    assert mcp_server.run_lint([hostile, "-x.py"], ["GD1"]) == '{"findings": []}\n'
    assert seen == [[sys.executable, "-m", "gpudoctor", "lint", "--format", "json", "--select", "GD1", "--",
                     hostile, "-x.py"]]


def test_lint_runs_for_real_and_a_failure_says_why(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("import torch\nmodel = torch.nn.Linear(2, 2)\n", encoding="utf-8")
    assert json.loads(mcp_server.run_lint([str(script)], []))["diagnostics"] == []
    with pytest.raises(RuntimeError, match=r"^gpudoctor lint exited with 2: .*no-such-file\.py"):
        mcp_server.run_lint([str(tmp_path / "no-such-file.py")], [])
