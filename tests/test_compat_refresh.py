"""The maintainer refresh command, run offline on the recorded snapshot of PyPI's JSON metadata."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from gpudoctor import compat
from gpudoctor.compat import refresh
from gpudoctor.compat.published import DATA_DATE, PYPI_REQUIRES, PYPI_WHEELS
from gpudoctor.compat.pypi import has_python, python_tags

SNAPSHOT = Path(__file__).resolve().parent / "fixtures" / "compat-refresh"
PUBLISHED = Path(refresh.__file__).with_name("published.py")


def test_the_data_file_is_what_the_snapshot_gives(capsys: pytest.CaptureFixture[str]) -> None:
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--check"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith("up to date") and "to review" not in out


def test_a_changed_source_shows_a_diff_and_rewrites_the_file(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = tmp_path / "snap"
    snapshot.mkdir()
    for name in refresh.PACKAGES:
        document = json.loads((SNAPSHOT / f"{name}.json").read_text(encoding="utf-8"))
        if name == "torch":
            document["releases"]["2.16.0"] = [{"filename": "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl",
                                               "upload_time": "2026-12-20T10:00:00", "yanked": False}]
            document["info"]["version"] = "2.16.0"
        (snapshot / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "published.py"
    out.write_text(PUBLISHED.read_text(encoding="utf-8"), encoding="utf-8")
    assert refresh.main(["--snapshot", str(snapshot), "--out", str(out), "--check"]) == 1
    assert out.read_text(encoding="utf-8") == PUBLISHED.read_text(encoding="utf-8")  # --check writes nothing
    capsys.readouterr()
    assert refresh.main(["--snapshot", str(snapshot), "--out", str(out), "--date", "2026-12-21"]) == 0
    diff = capsys.readouterr().out
    assert "+    ('torch', '2.16.0', '2026-12-20', ('cp312',), ('linux-x86_64',))," in diff
    assert "+DATA_DATE = '2026-12-21'" in diff
    assert "to review: PyPI has torch 2.16.0, newer than releases.py (2.15.0); add its row" in diff
    assert "DATA_DATE = '2026-12-21'" in out.read_text(encoding="utf-8")


def test_an_unreachable_source_is_one_line_and_changes_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as server:  # a port nothing listens on: the connection is refused at once
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
    monkeypatch.setattr(refresh, "PYPI_URL", f"http://127.0.0.1:{port}/pypi/{{}}/json")
    out = tmp_path / "published.py"
    out.write_text("unchanged", encoding="utf-8")
    assert refresh.main(["--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"refresh: cannot reach http://127.0.0.1:{port}/pypi/torch/json (")
    assert err.endswith("nothing was changed") and "\n" not in err
    assert out.read_text(encoding="utf-8") == "unchanged"


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "torch.json").write_text("not json", encoding="utf-8")
    assert refresh.main(["--snapshot", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--date", "yesterday"]) == 2


def test_platform_tags() -> None:
    assert [refresh.platform_of(t) for t in ("manylinux_2_28_x86_64", "manylinux2014_aarch64", "win_amd64",
                                             "macosx_14_0_arm64", "macosx_10_9_x86_64", "win_arm64", "any")] == [
        "linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64", "macos-x86_64", "windows-arm64", None]


def test_the_hand_kept_tables_agree_with_pypi() -> None:
    """Each release row's Python range is what its torch wheels carry, and its newest patch is on PyPI."""
    for release in compat.RELEASES:
        if release.python[0] < (3, 8) or release.minor in ("2.0", "2.1") or release.minor.startswith("1."):
            continue  # PyPI data starts at 2.0; 2.0/2.1 list 3.8-3.11 as the tables do
        tags = python_tags("torch", release.latest.torch)
        assert tags, release.minor
        lo, hi = release.python
        assert has_python("torch", release.latest.torch, f"{lo[0]}.{lo[1]}.0"), release.minor
        assert has_python("torch", release.latest.torch, f"{hi[0]}.{hi[1]}.0"), release.minor
        beyond = has_python("torch", release.latest.torch, f"{hi[0]}.{hi[1] + 1}.0")
        assert not beyond or any("experimental" in note for note in release.notes), release.minor
    newest = {package: version for package, version, _ in PYPI_REQUIRES}
    assert newest["torch"] == compat.newest_torch()
    assert newest["torchvision"] == compat.RELEASES[0].latest.torchvision
    requires = dict((p, lines) for p, _, lines in PYPI_REQUIRES)
    assert f"torch{compat.torchvision_requirement(newest['torchvision'])}" in requires["torchvision"]
    assert any("nvidia-cudnn-cu13==9.26.0.51" in line for line in requires["torch"])
    toolkit = next(line for line in requires["torch"] if line.startswith("cuda-toolkit"))
    pinned = toolkit.split("==")[1].split(";")[0].strip()  # "13.2.2": the PyPI wheel's CUDA
    assert compat.cuda_variant(pinned) == compat.RELEASES[0].pypi_default
    assert compat.bundled_cudnn(compat.newest_torch(), compat.RELEASES[0].pypi_default) == 92600
    assert DATA_DATE == compat.DATA_DATE and len(PYPI_WHEELS) > 50


LISTING = """<!DOCTYPE html><html><body>
<a href="/whl/cu130/torch-2.15.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=00">torch-2.15.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl</a>
<a href="/whl/cu132/torch-2.15.0%2Bcu132-cp315-cp315-win_amd64.whl">x</a>
<a href="/whl/cu129/torch-2.13.0%2Bcu129-cp312-cp312-manylinux_2_28_aarch64.whl">x</a>
<a href="/whl/torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl">no local version</a>
<a href="/whl/cu118/torch-1.13.1%2Bcu117-cp310-cp310-linux_x86_64.whl">below the floor</a>
</body></html>"""


def test_the_wheel_index_listing_becomes_variant_rows() -> None:
    from gpudoctor.compat.wheel_index import rows_from_listing, variants_from_rows
    rows = rows_from_listing("torch", LISTING, refresh.platform_of, (2, 0))
    assert rows == [
        ("torch", "2.13.0", "cu129", ("cp312",), ("linux-aarch64",)),
        ("torch", "2.15.0", "cu130", ("cp312",), ("linux-x86_64",)),
        ("torch", "2.15.0", "cu132", ("cp315",), ("windows-x86_64",)),
    ]
    assert variants_from_rows(rows, "torch", "2.15.0", "linux-x86_64") == ("cu130",)
    assert variants_from_rows(rows, "torch", "2.14.1", "linux-x86_64") == ()


def test_the_wheel_index_is_read_from_a_snapshot_and_written(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = tmp_path / "snap"
    snapshot.mkdir()
    for name in refresh.PACKAGES:
        (snapshot / f"{name}.json").write_bytes((SNAPSHOT / f"{name}.json").read_bytes())
        (snapshot / f"index-{name}.html").write_text(LISTING if name == "torch" else "", encoding="utf-8")
    out = tmp_path / "published.py"
    assert refresh.main(["--snapshot", str(snapshot), "--wheel-index", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "    ('torch', '2.15.0', 'cu130', ('cp312',), ('linux-x86_64',))," in text
    assert "https://download.pytorch.org/whl/torch/ as read on" in text
    capsys.readouterr()
    assert refresh.main(["--snapshot", str(SNAPSHOT), "--wheel-index", "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("refresh: cannot read ")
