"""``gpudoctor mcp``: check, facts, diagnose, verify (and lint, where installed) as Model Context Protocol tools.

Served over stdio with the official ``mcp`` SDK, an optional extra: ``pip install 'torch-gpudoctor[mcp]'``.
Every tool only reads, like the command line; none installs anything.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from typing import Any, Callable, List, Optional, Tuple, Type, TypeVar

from gpudoctor import __version__
from gpudoctor.errors import UserError

INSTALL_HINT = ("gpudoctor mcp needs the Model Context Protocol SDK (Python 3.10 or newer): "
                "pip install 'torch-gpudoctor[mcp]'")
FORMATS = ("text", "markdown", "json")
F = TypeVar("F", bound=Callable[..., Any])
LINT_TIMEOUT = 120.0
LINT_OUTPUT_CAP = 64 * 1024 * 1024  # per stream; the findings of a large tree are a few MiB of JSON
INSTRUCTIONS = (
    "gpudoctor diagnoses why PyTorch does not use an NVIDIA GPU. Call `check` to examine this machine "
    "(or `python` for another interpreter's environment), `diagnose` for a report, facts file or "
    "collect_env output someone pasted, `verify` to prove acceleration by training on GPU and CPU. "
    "Each finding says what was observed, what is required, and the commands that fix it."
)


class MissingExtra(UserError):
    """The ``mcp`` SDK is not installed; the message says how to install it."""


def _sdk() -> Tuple[Any, Type[Exception]]:
    """The SDK's server class and the error a tool raises to report a failure to the client."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError

        return MCPServer, ToolError
    except ImportError:
        pass
    try:
        # the SDK's 1.x names; 2.x keeps the module without the class
        from mcp.server.fastmcp import FastMCP  # type: ignore[attr-defined,unused-ignore]
        from mcp.server.fastmcp.exceptions import ToolError as ToolError1

        return FastMCP, ToolError1
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None


def _user_error(exc: BaseException) -> bool:
    return isinstance(exc, (UserError, ValueError, TypeError))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _tool(server: Any, tool_error: Type[Exception]) -> Callable[[F], F]:
    """Register ``fn`` as a tool whose bad-input errors reach the client as one line, not a traceback."""

    def register(fn: F) -> F:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the client gets the reason in one line
                if _user_error(exc):
                    raise tool_error(_one_line(exc)) from None
                raise tool_error(f"gpudoctor {__version__} failed unexpectedly ({type(exc).__name__}: "
                                 f"{_one_line(exc)})") from exc

        server.tool()(run)
        return fn

    return register


def _render(diagnosis: Any, fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "json":
        return str(diagnosis.to_json())
    if fmt == "markdown":
        return str(diagnosis.markdown())
    return str(diagnosis.text())


def lint_available() -> bool:
    """Whether this gpudoctor has the ``lint`` command (``gpudoctor.lint``)."""
    try:
        return importlib.util.find_spec("gpudoctor.lint") is not None
    except (ImportError, ValueError):
        return False


def build_server() -> Any:
    """The MCP server with gpudoctor's tools registered; raises MissingExtra without the SDK."""
    from gpudoctor import api

    server_class, tool_error = _sdk()
    server = server_class(name="gpudoctor", instructions=INSTRUCTIONS, log_level="WARNING")
    tool = _tool(server, tool_error)

    @tool
    def check(python: Optional[str] = None, select: Optional[List[str]] = None, verbose: bool = False,
              format: str = "text") -> str:
        """Diagnose this machine and a Python environment (default: gpudoctor's own interpreter).

        Returns every check's verdict with fixes. `python`: path of the interpreter whose environment to
        examine; `select`: check ids or prefixes to run; `verbose`: include notes and evidence;
        `format`: text, markdown or json.
        """
        return _render(api.check(python, select=select or (), verbose=verbose), format)

    @tool
    def facts(python: Optional[str] = None, redact: bool = True) -> str:
        """The raw facts gpudoctor collects about the machine and environment, as JSON (redacted by default)."""
        return api.facts(python, redact=redact).to_json()

    @tool
    def diagnose(text: str = "", path: str = "", example: str = "", verbose: bool = False,
                 format: str = "text") -> str:
        """Diagnose a report from elsewhere: give exactly one of `text` (a gpudoctor markdown/JSON report, a
        facts file, or `python -m torch.utils.collect_env` output, e.g. pasted into an issue), `path` (a file
        holding one), or `example` (a recorded machine shipped with gpudoctor: rtx5090-cu126, driver-too-old,
        cpu-wheel, broken-torchvision, healthy-h100)."""
        # Plain str parameters: the SDK would parse JSON text given to an Optional[str] into an object.
        if len([v for v in (text, path, example) if v]) != 1:
            raise ValueError("give exactly one of text, path or example")
        if example:
            return _render(api.example(example, verbose=verbose), format)
        if path:
            import pathlib

            return _render(api.diagnose(pathlib.Path(path), verbose=verbose), format)
        from gpudoctor.parsers.report import load_facts

        return _render(api.diagnose(load_facts(text, "the text given"), verbose=verbose), format)

    @tool
    def verify(dataset: str = "synthetic", device: Optional[str] = None, epochs: Optional[int] = None,
               python: Optional[str] = None, format: str = "text") -> str:
        """Prove GPU acceleration: train small reference models on the GPU and the CPU and judge accuracy,
        speed-up and CPU/GPU agreement. `dataset`: synthetic (no download), mnist, cifar10, catsdogs (no download)
        or folder:PATH (PATH/<class>/<image>). Takes minutes."""
        return _render(api.verify(dataset, device=device, epochs=epochs, python=python), format)

    if lint_available():
        @tool
        def lint(paths: List[str], select: Optional[List[str]] = None) -> str:
            """Find device mistakes in PyTorch training scripts, statically (`gpudoctor lint`): results as JSON."""
            return run_lint(paths, select or [])

    return server


def run_lint(paths: List[str], select: List[str]) -> str:
    """``gpudoctor lint --format json`` on ``paths``, run as its own process; its output, or its error."""
    argv = [sys.executable, "-m", "gpudoctor", "lint", "--format", "json"]
    for pattern in select:
        argv += ["--select", pattern]
    argv += ["--", *paths]
    from gpudoctor.probes import process

    done = process.run(argv, LINT_TIMEOUT, LINT_OUTPUT_CAP)
    if done.start_error:
        raise RuntimeError(f"gpudoctor lint could not run: {done.start_error}")
    if done.overflowed:
        raise RuntimeError(f"gpudoctor lint printed more than {LINT_OUTPUT_CAP // process.MIB} MiB and was stopped")
    if done.timed_out:
        raise RuntimeError(f"gpudoctor lint did not finish within {LINT_TIMEOUT:g} s")
    if done.returncode not in (0, 1):
        last = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise RuntimeError(f"gpudoctor lint exited with {done.returncode}" + (f": {last[-1]}" if last else ""))
    return done.stdout


def serve() -> int:
    """Run the server on standard input and output until the client disconnects."""
    server = build_server()
    server.run()
    return 0


__all__ = ["INSTALL_HINT", "MissingExtra", "build_server", "lint_available", "run_lint", "serve", "__version__"]
