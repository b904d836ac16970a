"""pytorch/test-infra's build matrix: read without running it, walked through git history, recorded offline."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path
from typing import Dict

import pytest
from gpudoctor.compat import matrix_history, refresh
from gpudoctor.compat.build_matrix import BUILD_MATRIX, MATRIX_SOURCE
from gpudoctor.compat.matrix_parse import MATRIX_PATH, Channel, MatrixError, channel_matrix, parse, trimmed

SNAPSHOT = Path(__file__).resolve().parent / "fixtures" / "compat-refresh"
TEST_INFRA = SNAPSHOT / "test-infra"

MATRIX = '''
import os
os.system("touch {marker}")
raise SystemExit("this file must never run")
PYTHON_ARCHES_DICT = {{"nightly": ["3.10", "3.11"], "test": ["3.10", "3.11"], "release": ["3.9", "3.10"]}}
CUDA_ARCHES_DICT = {{"nightly": ["12.6", "13.0"], "test": ["12.6", "13.0"], "release": ["12.6", "12.8"]}}
CUDA_CUDNN_VERSIONS = {{"12.6": {{"cuda": "12.6.3", "cudnn": "9"}}, "13.0": {{"cuda": "13.0.0", "cudnn": "9"}}}}
STABLE_CUDA_VERSIONS = {{"nightly": "13.0", "test": "13.0", "release": "12.8"}}
CUDA_AARCH64_ARCHES = ["13.0-aarch64"]
CUDA_ARCHES_NO_WINDOWS: list = ["13.0"]
CURRENT_NIGHTLY_VERSION = "2.6.0"
CURRENT_CANDIDATE_VERSION = "2.5.0"
CURRENT_STABLE_VERSION = "{stable}"
TEST = "test"
LINUX = "linux"
LINUX_AARCH64 = "linux-aarch64"
WINDOWS = "windows"
CUDA_ARCHES = CUDA_ARCHES_DICT["nightly"]

def initialize_globals(channel: str, os: str, getting_started: bool = False) -> None:
    global CUDA_ARCHES
    CUDA_ARCHES = CUDA_ARCHES_DICT[channel]
    if channel == TEST and os == LINUX and not getting_started:
        CUDA_ARCHES = CUDA_ARCHES + ["12.9"]
        CUDA_AARCH64_ARCHES.append("12.9-aarch64")
    if compute_something(channel):
        CUDA_ARCHES.append("11.1")

def generate_wheels_matrix(os: str, channel: str, arches: list, python_versions: list) -> None:
    if channel == "nightly" and os == WINDOWS:
        arches.remove("12.6")
        python_versions.remove("3.10")
'''


def _matrix(tmp_path: Path, stable: str = "2.4.0") -> str:
    return MATRIX.format(marker=tmp_path / "ran", stable=stable)


def test_the_file_is_read_without_running_it(tmp_path: Path) -> None:
    matrix = parse(_matrix(tmp_path))
    assert not (tmp_path / "ran").exists()
    release = channel_matrix(matrix, Channel.RELEASE)
    assert release is not None
    assert (release.torch, release.linux, release.python, release.stable) == (
        "2.4.0", ("cu126", "cu128"), ("3.9", "3.10"), "cu128")
    assert release.aarch64 == ("cu130",) and release.windows == ("cu126", "cu128")
    assert release.cudnn == (("cu126", "9"), ("cu130", "9"))  # 12.8 has no cuDNN entry; 13.0 is aarch64


def test_conditional_additions_follow_their_condition(tmp_path: Path) -> None:
    """12.9 is added on Linux in the test channel only; an addition under a call is never assumed."""
    test = channel_matrix(parse(_matrix(tmp_path)), Channel.TEST)
    assert test is not None and test.torch == "2.5.0"
    assert test.linux == ("cu126", "cu129", "cu130")
    assert test.aarch64 == ("cu129", "cu130")
    assert test.windows == ("cu126",)  # 13.0 is excluded on Windows, and 12.9 is Linux-only
    nightly = channel_matrix(parse(_matrix(tmp_path)), Channel.NIGHTLY)
    assert nightly is not None and nightly.linux == ("cu126", "cu130") and "cu111" not in nightly.linux
    assert nightly.windows == () and nightly.python == ("3.10", "3.11")  # 12.6 removed on Windows, 13.0 excluded


def test_a_broken_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(MatrixError, match="is not Python"):
        parse("CUDA_ARCHES_DICT = {\n")
    broken = tmp_path / "generate_binary_build_matrix.py"
    broken.write_text("def (:\n", encoding="utf-8")
    out = tmp_path / "build_matrix.py"
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--test-infra", str(broken), "--matrix-out", str(out),
                         "--out", str(tmp_path / "published.py")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("refresh: ") and err.count("\n") == 1 and not out.exists()
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--test-infra", str(tmp_path / "absent.py")]) == 2


def _git(repo: Path, *args: str, date: str = "2024-01-01T00:00:00") -> None:
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _commit(repo: Path, text: str, message: str, date: str) -> None:
    path = repo / MATRIX_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    _git(repo, "add", MATRIX_PATH)
    _git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message, date=date)


def test_each_release_is_read_at_its_go_live_commit(tmp_path: Path) -> None:
    repo = tmp_path / "test-infra"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, _matrix(tmp_path, "2.3.0"), "Release 2.3 go live", "2024-04-01T00:00:00")
    _commit(repo, _matrix(tmp_path, "2.4.0"), "Release 2.4 go live", "2024-07-01T00:00:00")
    later = _matrix(tmp_path, "2.4.0").replace('"release": ["12.6", "12.8"]', '"release": ["12.8"]')
    _commit(repo, later, "A later edit of the release channel", "2024-08-01T00:00:00")
    _git(repo, "branch", "release/2.5")
    source, records = matrix_history.read_source(repo)
    assert "git history" in source and len(records) == 4  # three on HEAD, one branch head
    used, rows = matrix_history.select(records)
    by_key: Dict[str, matrix_history.MatrixRow] = {f"{r.torch} {r.channel}": r for r in rows}
    go_live = by_key["2.4.0 release"]
    assert go_live.linux == ("cu126", "cu128") and go_live.confidence.value == "SECONDARY"
    assert go_live.date == "2024-07-01"
    assert by_key["2.5.0 test"].ref == "release/2.5" and by_key["2.5.0 test"].confidence.value == "UNCONFIRMED"
    assert by_key["2.6.0 nightly"].linux == ("cu126", "cu130")
    assert sorted(by_key) == ["2.3.0 release", "2.4.0 release", "2.5.0 test", "2.6.0 nightly"]
    snapshot = tmp_path / "snap"
    snapshot.mkdir()
    (snapshot / "HEAD-0123456789ab.py").write_text("CURRENT_STABLE_VERSION = '1.0.0'\n", encoding="utf-8")
    matrix_history.record(snapshot, source, used)
    assert not (snapshot / "HEAD-0123456789ab.py").exists()  # a version no longer used is not kept
    again = matrix_history.select(matrix_history.read_snapshot(snapshot)[1])[1]
    assert again == rows  # the trimmed snapshot gives the same rows
    assert "os.system" not in (snapshot / f"HEAD-{go_live.commit[:12]}.py").read_text(encoding="utf-8")


def test_a_checkout_without_history_gives_its_three_channels(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / MATRIX_PATH).parent.mkdir(parents=True)
    (checkout / MATRIX_PATH).write_text(_matrix(tmp_path), encoding="utf-8")
    os.utime(checkout / MATRIX_PATH, (1_780_000_000, 1_780_000_000))  # 2026-05-28
    for path in (checkout, checkout / MATRIX_PATH):
        source, records = matrix_history.read_source(path)
        assert source.endswith("(a file without history, modified 2026-05-28)")
        rows = matrix_history.select(records)[1]
        assert [(r.torch, r.channel, r.commit, r.date) for r in rows] == [
            ("2.4.0", "release", "unknown", "2026-05-28"), ("2.5.0", "test", "unknown", "2026-05-28"),
            ("2.6.0", "nightly", "unknown", "2026-05-28")]
    assert not (tmp_path / "ran").exists()


def test_the_data_file_is_what_the_recorded_snapshot_gives(capsys: pytest.CaptureFixture[str]) -> None:
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--test-infra", str(TEST_INFRA), "--check"]) == 0
    out = capsys.readouterr().out
    assert out.count("up to date") == 2
    assert MATRIX_SOURCE.startswith("pytorch/test-infra ") and len(BUILD_MATRIX) > 30


def test_a_changed_matrix_is_a_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = tmp_path / "test-infra"
    snapshot.mkdir()
    for item in TEST_INFRA.iterdir():
        (snapshot / item.name).write_bytes(item.read_bytes())
    go_live = next(r for r in matrix_history.rows_of(BUILD_MATRIX) if r.torch == "2.13.0" and r.channel == "release")
    name = f"HEAD-{go_live.commit[:12]}.py"
    text = (snapshot / name).read_text(encoding="utf-8")
    changed = text.replace('"release": ["12.6", "13.0", "13.2"]', '"release": ["13.0", "13.4"]', 1)
    (snapshot / name).write_text(changed.replace('CURRENT_STABLE_VERSION = "2.13.0"', 'CURRENT_STABLE_VERSION = "2.16.0"'),
                                 encoding="utf-8")
    out = tmp_path / "build_matrix.py"
    out.write_text(Path(matrix_history.__file__).with_name("build_matrix.py").read_text(encoding="utf-8"),
                   encoding="utf-8")
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--test-infra", str(snapshot), "--matrix-out", str(out),
                         "--check"]) == 1
    diff = capsys.readouterr().out
    assert f"+    ('2.16.0', 'release', 'SECONDARY', 'HEAD', '{go_live.commit}', '2026-07-08', ('cu130', 'cu134')," in diff
    assert f"-    ('2.13.0', 'release', 'SECONDARY', 'HEAD', '{go_live.commit}'," in diff
    assert f"to review: test-infra has a torch 2.16.0 release matrix; releases.py lacks 2.16 ({go_live.commit[:12]})" in diff
    assert out.read_text(encoding="utf-8") == Path(matrix_history.__file__).with_name(
        "build_matrix.py").read_text(encoding="utf-8")  # --check wrote nothing
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--test-infra", str(snapshot), "--matrix-out", str(out),
                         "--out", str(tmp_path / "published.py")]) == 0
    assert "('cu130', 'cu134')" in out.read_text(encoding="utf-8")


def test_a_variant_the_tables_lack_is_named_for_review() -> None:
    row = next(r for r in matrix_history.rows_of(BUILD_MATRIX) if r.torch == "2.13.0" and r.channel == "test")
    notes = matrix_history.to_review([dataclasses.replace(row, aarch64=("cu130", "cu134"))])
    assert notes == [f"to review: test-infra's torch 2.13.0 test matrix ({row.commit[:12]}) builds aarch64 cu134; "
                     "the tables lack it"]
    assert matrix_history.to_review(matrix_history.rows_of(BUILD_MATRIX)) == []


def test_the_trimmed_copy_keeps_what_is_read(tmp_path: Path) -> None:
    text = _matrix(tmp_path)
    kept = trimmed(text)
    assert "os.system" not in kept and "raise SystemExit" not in kept
    for channel in Channel:
        assert channel_matrix(parse(kept), channel) == channel_matrix(parse(text), channel)
