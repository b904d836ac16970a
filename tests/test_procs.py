"""How child processes' ends are described, on POSIX and Windows."""

from __future__ import annotations

import pytest

from gpudoctor.procs import crashed, ending


@pytest.mark.parametrize(
    "returncode, text, is_crash",
    [
        (None, "was stopped", False),
        (-11, "killed by signal 11 (SIGSEGV)", True),
        (-9, "killed by signal 9 (SIGKILL)", True),
        (-200, "killed by signal 200 (unknown signal)", True),
        (0xC0000005, "crashed with access violation (0xC0000005)", True),
        (3, "exited with status 3", False),
    ],
)
def test_endings(returncode: int, text: str, is_crash: bool) -> None:
    assert ending(returncode) == text
    assert crashed(returncode) is is_crash
