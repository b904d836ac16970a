"""The one quoting module: a value quoted for a shell reaches the program unchanged and runs nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gpudoctor.shell import Shell, UnsafeValue, join, quote

PAYLOADS = [
    "MIG-5f1a2b3c;/usr/bin/touch${IFS}/tmp/x;",
    "$(touch /tmp/x)",
    "`touch /tmp/x`",
    "a'b",
    'a"b',
    "a b",
    "-rf",
    "~/x y",
    "*",
    "&& echo hi",
    "\u2019; calc; \u2018",
    "",
]


@pytest.mark.parametrize("value", PAYLOADS)
def test_posix_quoting_passes_every_value_through_unchanged(value: str, tmp_path) -> None:
    line = join([sys.executable, "-c", "import sys; print(repr(sys.argv[1]))", value], Shell.POSIX)
    done = subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": "", "HOME": str(tmp_path)}, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = str(tmp_path) + value[1:] if value.startswith("~/") else value
    assert done.stdout.strip() == repr(expected)
    assert list(tmp_path.iterdir()) == []


def test_powershell_doubles_every_single_quote_mark_and_calls_quoted_programs() -> None:
    assert quote("it's", Shell.POWERSHELL) == "'it''s'"
    assert quote("a\u2019b", Shell.POWERSHELL) == "'a\u2019\u2019b'"
    assert quote("$(calc)", Shell.POWERSHELL) == "'$(calc)'"
    assert quote("C:\\Python\\python.exe", Shell.POWERSHELL) == "C:\\Python\\python.exe"
    assert join(["C:\\Program Files\\Python\\python.exe", "-m", "pip"], Shell.POWERSHELL) == (
        "& 'C:\\Program Files\\Python\\python.exe' -m pip")


def test_cmd_refuses_what_it_cannot_quote() -> None:
    assert quote("C:\\a b\\python.exe", Shell.CMD) == '"C:\\a b\\python.exe"'
    for value in ('a"b', "%PATH%", "a!b", "a^b"):
        with pytest.raises(UnsafeValue):
            quote(value, Shell.CMD)


@pytest.mark.parametrize("shell", list(Shell))
def test_control_characters_are_never_quoted(shell: Shell) -> None:
    for value in ("a\nb", "a\rb", "\x1b]0;title\x07", "a\x85b", "a\u2028b"):
        with pytest.raises(UnsafeValue):
            quote(value, shell)
