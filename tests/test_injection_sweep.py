"""Every fix of every scenario, with a payload in every string of the facts: no payload runs when pasted.

POSIX commands are run by /bin/sh with nothing on PATH (the payloads use only shell builtins, so a payload
that breaks out of its quotes would leave a file behind); PowerShell commands are checked against its
quoting grammar: the payload may appear only inside single-quoted (verbatim) strings.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Iterator, List, Set, Tuple

import pytest
from gpudoctor.facts import Facts
from gpudoctor.model import Status
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
MARK = "PWNED"
# Each breaks out of one kind of context: bare words, single quotes, double quotes, command substitution.
PAYLOADS = (
    f";echo>./{MARK}1;$(echo>{MARK}2)`echo>{MARK}3`'\";echo>{MARK}4;#'&echo>{MARK}5|",
    f"\necho>{MARK}6\n",
    f" ' {MARK}7 '",  # plausible for a path: only quoting keeps it one word
)
SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b"
CATALOGUE = discover(plugins=False)

Path_ = Tuple[Any, ...]


def _strings(node: Any, at: Path_ = ()) -> Iterator[Path_]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, at + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, at + (i,))
    elif isinstance(node, str):
        yield at


def _set(data: Any, at: Path_, value: str) -> Any:
    copy = json.loads(json.dumps(data))
    node = copy
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = value
    return copy


def _defanged(data: Any) -> Any:
    """No executable that exists on this machine stays in the facts, so no fix runs a real program here."""
    for at in list(_strings(data)):
        node = data
        for key in at:
            node = node[key]
        if node.startswith("/") and os.path.isfile(node) and os.access(node, os.X_OK):
            data = _set(data, at, "/nonexistent-sweep" + node)
    return data


def _variants(data: Any) -> Iterator[Any]:
    """The payload appended to each string in turn (names of environment variables too), then to all at once."""
    for at in _strings(data):
        for payload in PAYLOADS:
            yield _set(data, at, _get(data, at) + payload)
    for payload in PAYLOADS:
        copy = json.loads(json.dumps(data))
        for at in list(_strings(copy)):
            copy = _set(copy, at, _get(copy, at) + payload)
        yield copy


def _get(data: Any, at: Path_) -> str:
    node = data
    for key in at:
        node = node[key]
    return str(node)


def _commands(data: Any) -> Tuple[List[str], List[str]]:
    """The fix commands of every finding, and the checks that crashed."""
    report = run_checks(CATALOGUE, Facts.from_json(json.dumps(data)))
    commands = [c for r in report.results for f in r.findings if f.fix for c in f.fix.commands]
    crashed = [f"{r.check}: {r.reason}" for r in report.results if r.status is Status.CRASH]
    return commands, crashed


def powershell_exposed(command: str) -> str:
    """The command with the content of its single-quoted strings taken out; what is left PowerShell interprets."""
    out, i = [], 0
    while i < len(command):
        ch = command[i]
        if ch in SINGLE_QUOTES:
            i += 1
            while True:
                if i >= len(command):
                    raise ValueError(f"unterminated single-quoted string: {command!r}")
                if command[i] in SINGLE_QUOTES:
                    if i + 1 < len(command) and command[i + 1] in SINGLE_QUOTES:
                        i += 2
                        continue
                    break
                i += 1
            out.append("''")
            i += 1
        else:  # double-quoted text, backticks and bare words: PowerShell expands or runs what is there
            out.append(ch)
            i += 1
    return "".join(out)


def test_the_powershell_grammar_check_sees_payloads_outside_single_quotes() -> None:
    assert MARK not in powershell_exposed(f"$env:X = 'a;{MARK}''b'")
    assert MARK in powershell_exposed(f'$env:X="a;{MARK}"')
    assert MARK in powershell_exposed(f"Where-Object {{ $_ -ne 'a' }};{MARK}")
    assert MARK in powershell_exposed(f"x 'a\u2019;{MARK}")  # a typographic quote closes the string too
    with pytest.raises(ValueError):
        powershell_exposed("x 'open")


def _run_posix(commands: Set[str], tmp_path: Path) -> List[str]:
    ran = []
    for command in sorted(commands):
        subprocess.run(["/bin/sh", "-c", command], cwd=tmp_path, env={"PATH": "", "HOME": str(tmp_path)},
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        left = sorted(p.name for p in tmp_path.iterdir())
        if left:
            ran.append(f"{command!r} left {left}")
            for p in tmp_path.iterdir():
                p.unlink()
    return ran


@pytest.mark.parametrize("scenario", sorted(SCENARIOS.glob("*.json")), ids=lambda p: p.stem)
def test_no_payload_in_the_facts_runs_from_a_fix(scenario: Path, tmp_path: Path) -> None:
    data = _defanged(json.loads(scenario.read_text(encoding="utf-8")))
    posix: Set[str] = set()
    powershell: Set[str] = set()
    crashed: Set[str] = set()
    for variant in _variants(data):
        commands, crashes = _commands(variant)
        windows = (variant.get("platform", {}).get("system") or "").lower() == "windows"
        (powershell if windows else posix).update(c for c in commands if MARK in c)
        crashed.update(crashes)
    assert not crashed
    assert [c for c in sorted(powershell) if MARK in powershell_exposed(c)] == []
    split = [c for c in sorted(posix) if "$(" not in c and f"{MARK}7" in _posix_words(c)]  # shlex cannot read $(...)
    assert split == []
    assert _run_posix(posix, tmp_path) == []


def _posix_words(command: str) -> List[str]:
    """The words sh would split ``command`` into (unparsable text counts as no words)."""
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return []
