"""The command line through CliRunner, with fake probes, a fake catalogue and a fake verify stage."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest
from click.testing import CliRunner, Result

import gpudoctor.probes as probes
from gpudoctor import registry
from gpudoctor.errors import UserError
from gpudoctor.render.common import data_reach
from gpudoctor.cli import main
from gpudoctor.facts import EnvFacts, Facts, PlatformFacts
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.probes.verify.progress import QUIET
from gpudoctor.redact import Identity
from gpudoctor.registry import Catalogue, PluginError, check, need
from gpudoctor.render.console import emit
from gpudoctor.facts.verify import VerifyFacts
from test_render import broken_facts, healthy_facts


@check("fake.driver", "NVIDIA driver")
def _driver(facts: Facts) -> Iterator[Finding]:
    version = need(facts.driver.version, "driver.version")
    yield Finding("fake.driver-version", Severity.INFO, f"driver {version}", evidence=("driver.version",))


@check("fake.arch", "GPU architecture")
def _arch(facts: Facts) -> Iterator[Finding]:
    flags = need(facts.torch.arch_flags, "torch.arch_flags")
    for gpu in facts.gpus:
        cc = need(gpu.compute_capability, f"gpus.{gpu.index}.compute_capability")
        token = f"sm_{cc[0]}{cc[1]}"
        if token not in flags:
            yield Finding(
                "fake.arch-too-new", Severity.ERROR, f"GPU {gpu.index} ({gpu.name}) is {token}; torch has "
                f"{flags[0]}..{flags[-1]}", fix=Fix("Install a newer torch:", ("python -m pip install -U torch",)),
            )


@check("fake.vision", "torchvision")
def _vision(facts: Facts) -> Iterator[Finding]:
    if facts.torchvision.cuda != facts.torch.cuda:
        yield Finding("fake.vision-cuda", Severity.WARNING,
                      f"torchvision CUDA {facts.torchvision.cuda} != torch CUDA {facts.torch.cuda}")


@check("fake.toolkit", "CUDA toolkit")
def _toolkit(facts: Facts) -> Iterator[Finding]:
    need(facts.toolkit.nvcc_version, "toolkit.nvcc_version")
    return iter(())


@check("fake.quote", "Quotes the environment")
def _quote(facts: Facts) -> Iterator[Finding]:
    token = facts.env.get("HF_TOKEN")
    if token:
        yield Finding("fake.token", Severity.WARNING, f"HF_TOKEN={token} for {facts.platform.python_executable}")


@check("fake.verify", "Training on the GPU")
def _verify(facts: Facts) -> Iterator[Finding]:
    result = need(facts.verify, "verify")
    if not result.smoke_ok:
        yield Finding("fake.verify-smoke", Severity.ERROR, f"smoke test failed: {result.smoke_error}")


FAKE_CHECKS = (_driver, _arch, _vision, _toolkit, _quote, _verify)
PLUGIN_ERROR = PluginError("acme", "acme-checks 1.2", "ModuleNotFoundError: No module named 'acme_checks'")


class FakePythonError(UserError):
    """Stands in for probes.PythonError: like every bad-input error, a UserError."""


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """Fake discover and collect; returns a dict recording what they were asked and serving the facts."""
    record: Dict[str, Any] = {"facts": healthy_facts(), "collect": [], "discover": [], "errors": ()}

    def discover(plugins: bool = True, entry_points: Optional[List[Any]] = None) -> Catalogue:
        record["discover"].append(plugins)
        found = tuple(c.with_source("fake-checks 1.0") for c in FAKE_CHECKS)
        return Catalogue(found, record["errors"] if plugins else ())

    def collect(python: Optional[str] = None, timeout: float = 60.0) -> Facts:
        record["collect"].append((python, timeout))
        if python == "/bin/ls":
            raise FakePythonError("/bin/ls is not a Python interpreter (it printed no version)")
        return record["facts"]

    monkeypatch.setattr(registry, "discover", discover)
    monkeypatch.setattr(probes, "collect", collect, raising=False)
    monkeypatch.setattr(probes, "PythonError", FakePythonError, raising=False)
    monkeypatch.setattr("gpudoctor.redact.local_identity", lambda: Identity(("/home/alice",), ("alice",), ("box7",)))
    monkeypatch.delenv("GPUDOCTOR_DEBUG", raising=False)
    return record


def run(args: List[str], code: int, input: Optional[bytes] = None) -> Result:
    """Invoke the CLI, assert the exit code, and that no path ended in a traceback or the internal-error line."""
    result = CliRunner().invoke(main, args, input=input)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "please report this" not in result.stderr
    return result


def fail(args: List[str], message: str, input: Optional[bytes] = None) -> None:
    result = run(args, 2, input)
    assert (result.stdout, result.stderr) == ("", f"error: {message}\n")


# check


def test_check_healthy(calls: Dict[str, Any], golden) -> None:
    result = run(["check"], 0)
    golden("cli-check-healthy.txt", result.stdout)
    assert result.stderr == ""
    assert calls["collect"] == [(None, 60.0)] and calls["discover"] == [True]


def test_check_broken(calls: Dict[str, Any], golden) -> None:
    calls["facts"] = broken_facts()
    result = run(["check"], 1)
    golden("cli-check-broken.txt", result.stdout)


def test_check_verbose(calls: Dict[str, Any], golden) -> None:
    calls["facts"] = broken_facts()
    golden("cli-check-broken-verbose.txt", run(["check", "-v"], 1).stdout)


@pytest.mark.parametrize(
    ("facts", "fail_on", "code"),
    [
        ("broken", "never", 0), ("broken", "error", 1), ("warning", "error", 0), ("warning", "warning", 1),
        ("healthy", "warning", 0), ("healthy", "info", 1), ("plugin-error", "error", 1),
        ("plugin-error", "never", 0),
    ],
)
def test_fail_on(calls: Dict[str, Any], facts: str, fail_on: str, code: int) -> None:
    healthy = healthy_facts()
    calls["facts"] = {
        "broken": broken_facts(),
        "warning": dataclasses.replace(healthy, torchvision=dataclasses.replace(healthy.torchvision, cuda="12.4")),
    }.get(facts, healthy)
    if facts == "plugin-error":
        calls["errors"] = (PLUGIN_ERROR,)
    run(["check", "--fail-on", fail_on], code)


def test_check_json_is_redacted(calls: Dict[str, Any]) -> None:
    calls["facts"] = planted()
    data = json.loads(run(["check", "--format", "json"], 0).stdout)
    assert data["facts"]["meta"]["redacted"] is True
    assert data["facts"]["platform"]["python_executable"] == "~/venv/bin/python"
    quote = [r for r in data["results"] if r["check"] == "fake.quote"][0]
    assert quote["findings"][0]["summary"] == "HF_TOKEN=set for ~/venv/bin/python"
    assert [r["check"] for r in data["results"]] == [c.id for c in FAKE_CHECKS]


def planted() -> Facts:
    return dataclasses.replace(
        healthy_facts(),
        platform=PlatformFacts(python_executable="/home/alice/venv/bin/python"),
        env=EnvFacts(variables=(("HF_TOKEN", "hf_AbCdEfGhIjKlMnOpQrStUv"), ("NOTE", "box7 alice"))),
    )


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_no_secret_in_markdown_or_json(calls: Dict[str, Any], fmt: str) -> None:
    calls["facts"] = planted()
    out = run(["check", "--format", fmt, "--fail-on", "never"], 0).stdout
    assert [s for s in ("alice", "box7", "hf_AbCd") if s in out] == []


def test_terminal_is_not_redacted_unless_asked(calls: Dict[str, Any]) -> None:
    calls["facts"] = planted()
    line = "    ! HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUv for /home/alice/venv/bin/python\n"
    assert line in run(["check"], 0).stdout
    assert "    ! HF_TOKEN=set for ~/venv/bin/python\n" in run(["check", "--redact"], 0).stdout


def test_no_redact(calls: Dict[str, Any]) -> None:
    calls["facts"] = planted()
    data = json.loads(run(["check", "--format", "json", "--no-redact"], 0).stdout)
    assert data["facts"]["meta"]["redacted"] is False
    assert data["facts"]["env"]["variables"][0] == ["HF_TOKEN", "hf_AbCdEfGhIjKlMnOpQrStUv"]


def test_markdown_to_a_file(calls: Dict[str, Any], tmp_path: Path) -> None:
    calls["facts"] = broken_facts()
    out = tmp_path / "report.md"
    result = run(["check", "-o", str(out)], 1)
    assert result.stdout == ""
    assert result.stderr == f"2 problems found: 1 error, 1 warning. 2 checks skipped. Written to {out}.\n"
    assert out.read_text(encoding="utf-8").startswith("## gpudoctor report\n")


@pytest.mark.parametrize(("name", "start"), [("r.json", "{\n"), ("r.txt", "gpudoctor "), ("r.MD", "## gpu")])
def test_format_follows_the_output_suffix(calls: Dict[str, Any], tmp_path: Path, name: str, start: str) -> None:
    out = tmp_path / name
    run(["check", "-o", str(out)], 0)
    assert out.read_text(encoding="utf-8").startswith(start)


def test_explicit_format_wins_over_the_suffix(calls: Dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    run(["check", "-o", str(out), "--format", "json"], 0)
    assert json.loads(out.read_text(encoding="utf-8"))["schema"] == 1


def test_output_dash_is_stdout(calls: Dict[str, Any]) -> None:
    assert run(["check", "-o", "-", "--format", "json"], 0).stdout.startswith('{\n  "schema": 1,')


def test_unwritable_output(calls: Dict[str, Any], tmp_path: Path) -> None:
    fail(["check", "-o", str(tmp_path)], f"cannot write {tmp_path}: is a directory")
    missing = tmp_path / "no" / "r.md"
    fail(["check", "-o", str(missing)], f"cannot write {missing}: no such directory {missing.parent}")
    assert calls["collect"] == []  # refused before probing


def test_output_that_fails_while_writing(calls: Dict[str, Any], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("gpudoctor.render.console.os.fsync", full)
    out = tmp_path / "r.md"
    out.write_text("the report of yesterday\n", encoding="utf-8")
    fail(["check", "-o", str(out)], f"cannot write {out}: No space left on device")
    fail(["facts", "-o", str(out)], f"cannot write {out}: No space left on device")
    assert out.read_text(encoding="utf-8") == "the report of yesterday\n"  # written beside it, renamed only when whole
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]


def test_select_and_ignore(calls: Dict[str, Any]) -> None:
    out = run(["check", "--select", "fake.arch", "--select", "fake.vision", "--no-plugins"], 0).stdout
    assert [line for line in out.splitlines() if line.startswith("[")] == ["[✓] GPU architecture", "[✓] torchvision"]
    out = run(["check", "--ignore", "fake", "--no-plugins"], 0).stdout
    assert [line for line in out.splitlines() if line.startswith("[")] == []


def test_select_unknown(calls: Dict[str, Any]) -> None:
    fail(["check", "--select", "nope"], "--select nope: no check has that id or id prefix (see `gpudoctor checks`)")


def test_ignore_unknown_warns(calls: Dict[str, Any]) -> None:
    result = run(["check", "--ignore", "nope"], 0)
    assert result.stderr == "warning: --ignore nope: no check has that id or id prefix\n"


def test_no_plugins(calls: Dict[str, Any], golden) -> None:
    calls["errors"] = (PLUGIN_ERROR,)
    golden("cli-check-plugin-error.txt", run(["check"], 1).stdout)
    assert "acme" not in run(["check", "--no-plugins"], 0).stdout
    assert calls["discover"] == [True, False]


def test_python_and_timeout_reach_the_probes(calls: Dict[str, Any]) -> None:
    run(["check", "--python", "/usr/bin/python3", "--timeout", "5"], 0)
    assert calls["collect"] == [("/usr/bin/python3", 5.0)]


def test_bad_python(calls: Dict[str, Any]) -> None:
    fail(["check", "--python", "/bin/ls"], "/bin/ls is not a Python interpreter (it printed no version)")
    fail(["facts", "--python", "/bin/ls"], "/bin/ls is not a Python interpreter (it printed no version)")


def test_bad_timeout_is_a_usage_error(calls: Dict[str, Any]) -> None:
    result = run(["check", "--timeout", "0"], 2)
    assert "Invalid value for '--timeout'" in result.stderr


def test_unexpected_exception_is_one_line(calls: Dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("bad\nthing")

    monkeypatch.setattr("gpudoctor.runner.run_checks", boom)
    result = CliRunner().invoke(main, ["check"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: gpudoctor 0.1.0 failed unexpectedly (RuntimeError: bad thing); please report this, with the "
        "traceback from GPUDOCTOR_DEBUG=1\n"
    )
    monkeypatch.setenv("GPUDOCTOR_DEBUG", "1")
    assert isinstance(CliRunner().invoke(main, ["check"]).exception, RuntimeError)


# facts


def test_facts_are_redacted_json(calls: Dict[str, Any]) -> None:
    calls["facts"] = planted()
    facts = Facts.from_json(run(["facts"], 0).stdout)
    assert facts.meta.redacted and facts.env.variables == (("HF_TOKEN", "set"), ("NOTE", "<host> <user>"))


def test_facts_no_redact_to_file(calls: Dict[str, Any], tmp_path: Path) -> None:
    calls["facts"] = planted()
    out = tmp_path / "facts.json"
    result = run(["facts", "--no-redact", "-o", str(out), "--python", "/p", "--timeout", "9"], 0)
    assert (result.stdout, result.stderr) == ("", f"Facts collected. Written to {out}.\n")
    assert Facts.from_json(out.read_text(encoding="utf-8")) == planted()
    assert calls["collect"] == [("/p", 9.0)]


# diagnose


def test_diagnose_round_trip_through_markdown(calls: Dict[str, Any], tmp_path: Path) -> None:
    calls["facts"] = broken_facts()
    report_md = tmp_path / "r.md"
    run(["check", "--format", "markdown", "-o", str(report_md)], 1)
    live = json.loads(run(["check", "--format", "json"], 1).stdout)
    pasted = json.loads(run(["diagnose", str(report_md), "--format", "json"], 1).stdout)
    assert pasted["results"] == live["results"]
    assert pasted["facts"] == dict(live["facts"], meta=dict(live["facts"]["meta"], source="markdown"))


def test_diagnose_facts_from_stdin(calls: Dict[str, Any], golden) -> None:
    text = broken_facts().to_json().encode()
    result = run(["diagnose", "-", "--select", "fake.arch", "--no-plugins"], 1, input=text)
    golden("cli-diagnose-stdin.txt", result.stdout)


def test_diagnose_json_report_markdown_out(calls: Dict[str, Any], tmp_path: Path) -> None:
    report_json = tmp_path / "r.json"
    report_json.write_text(run(["check", "--format", "json", "--no-redact"], 0).stdout, encoding="utf-8")
    out = run(["diagnose", str(report_json), "--format", "markdown", "--fail-on", "never"], 0).stdout
    assert out.splitlines()[2] == ("gpudoctor 0.1.0 (facts loaded from a JSON report, 2025-06-01T12:00:00Z, redacted; "
                                   f"{data_reach()})")


def _bad_inputs(tmp: Path) -> List[tuple]:
    files = {
        "empty.txt": b"",
        "garbage.bin": bytes(range(256)),
        "cut.json": b'{\n  "meta": {\n    "schema": 1,\n    "created": "2025-',
        "new.json": b'{"meta": {"schema": 9}}',
        "nofacts.md": b"## gpudoctor report\n\n| check | status | summary |\n",
        "prose.txt": b"my printer is broken, pls help\n",
    }
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    unknown = "not gpudoctor facts, a gpudoctor report or PyTorch collect_env output"
    return [
        (str(tmp / "missing.json"), f"{tmp / 'missing.json'}: no such file"),
        (str(tmp / "empty.txt"), f"{tmp / 'empty.txt'}: empty"),
        (str(tmp / "garbage.bin"), f"{tmp / 'garbage.bin'}: binary data, not a report (it contains NUL bytes)"),
        (str(tmp / "cut.json"), f"{tmp / 'cut.json'}: not valid JSON (Unterminated string starting at: line 4 "
                                "column 16); the file looks cut off"),
        (str(tmp / "new.json"), f"{tmp / 'new.json'}: facts: facts schema 9 is newer than this gpudoctor "
                                "understands (1); upgrade gpudoctor to read it"),
        (str(tmp / "nofacts.md"), f"{tmp / 'nofacts.md'}: a gpudoctor markdown report without its embedded "
                                  "facts; paste the whole report including the <details> facts block, or run "
                                  "`gpudoctor facts`"),
        (str(tmp / "prose.txt"), f"{tmp / 'prose.txt'}: {unknown}; run `python -m torch.utils.collect_env` or "
                                 "`gpudoctor facts` and diagnose that"),
    ]


def test_diagnose_bad_inputs(calls: Dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gpudoctor.parsers.collect_env", None)
    for path, message in _bad_inputs(tmp_path):
        fail(["diagnose", path], message)


def test_diagnose_empty_stdin(calls: Dict[str, Any]) -> None:
    fail(["diagnose", "-"], "standard input: empty", input=b"")


def test_diagnose_needs_a_file(calls: Dict[str, Any]) -> None:
    fail(["diagnose"], "give one of FILE (or - for standard input; several files, a directory or a glob for a fleet), --example NAME or --github-event PATH")


# checks


def test_checks_lists_ids_titles_sources_and_plugin_errors(calls: Dict[str, Any], golden) -> None:
    calls["errors"] = (PLUGIN_ERROR,)
    golden("cli-checks.txt", run(["checks"], 0).stdout)
    assert "acme" not in run(["checks", "--no-plugins"], 0).stdout


# verify


@pytest.fixture
def verifier(monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    record: Dict[str, Any] = {"calls": [], "result": VerifyFacts(dataset="synthetic", device="cuda:0", smoke_ok=True)}
    module = types.ModuleType("gpudoctor.probes.verify.runner")

    class VerifyInputError(UserError):
        pass

    def run_verify(**kwargs: Any) -> VerifyFacts:
        record["calls"].append(kwargs)
        if kwargs["device"] == "gpu7":
            raise VerifyInputError("--device gpu7: expected cuda:N")
        return record["result"]

    module.run_verify = run_verify  # type: ignore[attr-defined]
    module.VerifyInputError = VerifyInputError  # type: ignore[attr-defined]
    module.worker_interpreter = lambda python: python or sys.executable  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpudoctor.probes.verify.runner", module)
    monkeypatch.setattr("gpudoctor.probes.verify.runner", module, raising=False)
    return record


def test_verify_passes_everything_to_run_verify(calls: Dict[str, Any], verifier: Dict[str, Any]) -> None:
    args = ["verify", "--train", "mnist", "--device", "cuda:1", "--data-dir", "/d", "--epochs", "2",
            "--python", "/p", "--timeout", "30", "--format", "json"]
    data = json.loads(run(args, 0).stdout)
    assert verifier["calls"] == [dict(python="/p", dataset="mnist", device="cuda:1", all_devices=False,
                                      data_dir="/d", epochs=2, timeout=30.0, progress=QUIET)]
    assert data["facts"]["verify"]["device"] == "cuda:0"
    assert [r["status"] for r in data["results"] if r["check"] == "fake.verify"] == ["pass"]


def test_verify_on_a_terminal_passes_the_progress_view(calls: Dict[str, Any], verifier: Dict[str, Any],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor.render.progress import VerifyProgress

    monkeypatch.setattr("gpudoctor.render.console.interactive", lambda stream: stream is sys.stderr)
    run(["verify", "--format", "json"], 0)
    assert [type(c["progress"]) for c in verifier["calls"]] == [VerifyProgress]


def test_verify_failure_is_judged_by_the_checks(calls: Dict[str, Any], verifier: Dict[str, Any]) -> None:
    verifier["result"] = VerifyFacts(smoke_ok=False, smoke_error="CUDA error: no kernel image is available")
    out = run(["verify", "--all-devices"], 1).stdout
    assert "    ✗ smoke test failed: CUDA error: no kernel image is available\n" in out
    assert verifier["calls"][0]["all_devices"] is True and verifier["calls"][0]["dataset"] == "synthetic"


def test_verify_bad_options(calls: Dict[str, Any], verifier: Dict[str, Any]) -> None:
    fail(["verify", "--device", "gpu7"], "--device gpu7: expected cuda:N")
    fail(["verify", "--device", "cuda:0", "--all-devices"], "--device and --all-devices cannot be used together")
    fail(["verify", "--train", "imagenet"], "--train imagenet: choose one of synthetic, mnist, cifar10, catsdogs, folder:PATH")
    fail(["verify", "--train", "folder"], "--train folder: choose one of synthetic, mnist, cifar10, catsdogs, folder:PATH")
    assert [c["dataset"] for c in verifier["calls"]] == ["synthetic"]  # only the --device gpu7 call got that far


def test_verify_train_takes_catsdogs_and_a_folder(calls: Dict[str, Any], verifier: Dict[str, Any]) -> None:
    run(["verify", "--train", "catsdogs"], 0)
    run(["verify", "--train", "folder:/data/PetImages"], 0)
    assert [c["dataset"] for c in verifier["calls"]] == ["catsdogs", "folder:/data/PetImages"]


# the program itself


def test_help_lists_the_commands(calls: Dict[str, Any]) -> None:
    out = run(["--help"], 0).stdout
    assert [line.split()[0] for line in out.split("Commands:\n")[1].splitlines()] == [
        "check", "checks", "diagnose", "examples", "facts", "lint", "mcp", "plan", "verify",
    ]


def test_python_m_gpudoctor_and_lazy_imports() -> None:
    code = (
        "import sys, runpy; sys.argv = ['gpudoctor', '--version']\n"
        "try:\n    runpy.run_module('gpudoctor', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'rich', 'pynvml')"
        " or m.startswith(('gpudoctor.probes', 'gpudoctor.checks', 'gpudoctor.render')))\n"
        "print(code, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout == "gpudoctor, version 0.1.0\n0 []\n"


# output helpers


class Tty(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def test_emit_colours_only_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudoctor.render.terminal import render_rich, render_terminal

    from test_render import broken_report

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    tty = Tty()
    emit("plain\n", lambda: render_rich(broken_report()), stream=tty)
    assert "[\x1b[31m✗\x1b[0m] \x1b[1mGPU architecture vs the wheel's kernels" in tty.getvalue()
    assert re.sub(r"\x1b\[[0-9;]*m", "", tty.getvalue()) == render_terminal(broken_report())
    monkeypatch.setenv("NO_COLOR", "1")
    tty = Tty()
    emit("plain\n", lambda: render_rich(broken_report()), stream=tty)
    assert tty.getvalue() == "plain\n"


def test_emit_falls_back_to_ascii_marks() -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    emit("[✓] a\n[☠] b … ✗\n", stream=stream)
    stream.seek(0)
    assert stream.read() == "[v] a\n[X] b ... x\n"
