"""Maintainer command: re-read what PyPI publishes for torch, torchvision and torchaudio and rewrite published.py.

    python -m gpudoctor.compat.refresh                 # read PyPI, rewrite the data file, print the diff
    python -m gpudoctor.compat.refresh --check         # exit 1 when the data file is out of date
    python -m gpudoctor.compat.refresh --snapshot DIR  # read DIR/<package>.json instead of the network
    python -m gpudoctor.compat.refresh --record DIR    # also save what was read, trimmed, as a snapshot
    python -m gpudoctor.compat.refresh --wheel-index   # also read download.pytorch.org/whl/<package>/

From PyPI's JSON metadata it takes, per release since torch 2.0: the first upload date, the Python tags and
the platforms of the wheels, and the newest release's Requires-Dist (torchvision's torch requirement, the
CUDA toolkit and cuDNN the PyPI torch wheel pins). With --wheel-index it also lists the +cuXXX builds the
PyTorch wheel index holds per platform and Python, which then decide which variants exist. The hand-kept tables (releases.py, wheels.py, cudnn.py)
are checked against this file by the tests. An unreachable source ends the command with one line.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import json
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from gpudoctor.compat.releases import RELEASES
from gpudoctor.compat.wheel_index import INDEX_URL, IndexRow, rows_from_listing

PACKAGES = ("torch", "torchvision", "torchaudio")
FLOORS = {"torch": (2, 0), "torchvision": (0, 15), "torchaudio": (2, 0)}
PYPI_URL = "https://pypi.org/pypi/{}/json"
OUT = Path(__file__).with_name("published.py")
_REQUIRES = re.compile(r"^(torch|cuda-toolkit|nvidia-cudnn-cu\d+|nvidia-cuda-runtime-cu\d+)\b", re.IGNORECASE)
_WHEEL = re.compile(r"^(?P<name>[A-Za-z0-9_]+)-(?P<version>[^-]+)-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>.+)\.whl$")
_LIMIT = 64 * 1024 * 1024


class RefreshError(Exception):
    """A source could not be read or understood; the message is one line."""


Row = Tuple[str, str, str, Tuple[str, ...], Tuple[str, ...]]


def platform_of(tag: str) -> Optional[str]:
    """A wheel's platform tag as gpudoctor names platforms: "manylinux_2_28_x86_64" -> "linux-x86_64"."""
    lowered = tag.lower()
    for key, name in (("x86_64", "x86_64"), ("amd64", "x86_64"), ("aarch64", "aarch64"), ("arm64", "arm64")):
        if lowered.endswith(key):
            if "linux" in lowered:
                return f"linux-{name}"
            if lowered.startswith("win"):
                return f"windows-{name}"
            if lowered.startswith("macosx"):
                return f"macos-{name}"
    return None


def _version_key(version: str) -> Optional[Tuple[int, ...]]:
    if not re.match(r"^\d+(\.\d+)*$", version):
        return None  # pre-releases and dev builds are not published releases
    return tuple(int(part) for part in version.split("."))


def rows_from_json(name: str, document: Dict[str, object]) -> List[Row]:
    """(package, version, first upload date, python tags, platforms) for every release above the floor."""
    releases = document.get("releases")
    if not isinstance(releases, dict):
        raise RefreshError(f"{name}: the JSON has no 'releases' mapping")
    rows: List[Row] = []
    for version, files in releases.items():
        key = _version_key(str(version))
        if key is None or key[:2] < FLOORS[name] or not isinstance(files, list):
            continue
        pythons, platforms, dates = set(), set(), []
        for item in files:
            if not isinstance(item, dict) or item.get("yanked"):
                continue
            match = _WHEEL.match(str(item.get("filename", "")))
            if not match:
                continue
            pythons.add(match.group("abi") if match.group("abi").startswith("cp3") else match.group("py"))
            plat = platform_of(match.group("plat"))
            if plat:
                platforms.add(plat)
            dates.append(str(item.get("upload_time", ""))[:10])
        if platforms:
            rows.append((name, str(version), min(dates), tuple(sorted(pythons, key=_py_key)), tuple(sorted(platforms))))
    return sorted(rows, key=lambda row: _version_key(row[1]) or ())


def _py_key(tag: str) -> Tuple[int, str]:
    digits = re.sub(r"\D", "", tag)
    return (int(digits[1:] or 0) if digits.startswith("3") else 0, tag)


def requires_from_json(name: str, document: Dict[str, object]) -> Tuple[str, str, Tuple[str, ...]]:
    """(package, newest version, the Requires-Dist lines gpudoctor reads) from the JSON's info."""
    info = document.get("info")
    if not isinstance(info, dict) or not isinstance(info.get("version"), str):
        raise RefreshError(f"{name}: the JSON has no info.version")
    lines = tuple(sorted(str(r) for r in info.get("requires_dist") or () if _REQUIRES.match(str(r))))
    return (name, info["version"], lines)


def fetch(name: str, timeout: float = 30.0) -> Dict[str, object]:
    """PyPI's JSON for one project; RefreshError (one line) when it cannot be read."""
    url = PYPI_URL.format(name)
    return _parse(url, fetch_bytes(url, timeout))


def fetch_bytes(url: str, timeout: float = 30.0) -> bytes:
    """The body at a URL; RefreshError (one line) when it cannot be read."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - a fixed https URL
            body: bytes = response.read(_LIMIT + 1)
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise RefreshError(f"cannot reach {url} ({reason}); nothing was changed") from None
    if len(body) > _LIMIT:
        raise RefreshError(f"{url} answered more than {_LIMIT} bytes; nothing was changed")
    return body


def _parse(where: str, body: bytes) -> Dict[str, object]:
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RefreshError(f"{where} is not JSON ({error.__class__.__name__}); nothing was changed") from None
    if not isinstance(document, dict):
        raise RefreshError(f"{where} is not a JSON object; nothing was changed")
    return document


def trimmed(name: str, document: Dict[str, object]) -> Dict[str, object]:
    """Only the releases and fields the refresh reads, so a recorded snapshot stays small."""
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    assert isinstance(info, dict)
    releases = document.get("releases") if isinstance(document.get("releases"), dict) else {}
    assert isinstance(releases, dict)
    keep = ("filename", "upload_time", "yanked")
    return {"info": {k: info.get(k) for k in ("name", "version", "requires_python", "requires_dist")},
            "releases": {v: [{k: f.get(k) for k in keep} for f in files if isinstance(f, dict)]
                         for v, files in releases.items() if isinstance(files, list)
                         and (_version_key(str(v)) or (0, 0))[:2] >= FLOORS[name]}}


def render(date: str, sources: Sequence[str], rows: Sequence[Row],
           requires: Sequence[Tuple[str, str, Tuple[str, ...]]], index: Sequence[IndexRow] = ()) -> str:
    """The text of published.py."""
    lines = [
        '"""Facts read from the published wheels\' own metadata; rewritten by ``python -m gpudoctor.compat.refresh``."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Tuple",
        "",
        f"DATA_DATE = {date!r}",
        "SOURCES: Tuple[str, ...] = (",
        *(f"    {source!r}," for source in sources),
        ")",
        "",
        "# (package, version, first upload, Python tags, platforms) of every PyPI release since torch 2.0.",
        "PYPI_WHEELS: Tuple[Tuple[str, str, str, Tuple[str, ...], Tuple[str, ...]], ...] = (",
        *(f"    {row!r}," for row in rows),
        ")",
        "",
        "# (package, newest version, its Requires-Dist lines on torch, the CUDA toolkit and cuDNN).",
        "PYPI_REQUIRES: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (",
        *(f"    {row!r}," for row in requires),
        ")",
        "",
        "# (package, version, variant, Python tags, platforms) on download.pytorch.org; () when not read.",
        "INDEX_WHEELS: Tuple[Tuple[str, str, str, Tuple[str, ...], Tuple[str, ...]], ...] = (",
        *(f"    {row!r}," for row in index),
        ")",
        "",
    ]
    return "\n".join(lines)


def build(documents: Dict[str, Dict[str, object]], date: str, listings: Optional[Dict[str, str]] = None) -> str:
    rows: List[Row] = []
    requires = []
    index: List[IndexRow] = []
    for name in PACKAGES:
        rows += rows_from_json(name, documents[name])
        requires.append(requires_from_json(name, documents[name]))
        if listings is not None:
            index += rows_from_listing(name, listings[name], platform_of, FLOORS[name])
    sources = tuple(f"{PYPI_URL.format(name)} as read on {date}" for name in PACKAGES)
    if listings is not None:
        sources += tuple(f"{INDEX_URL.format(name)} as read on {date}" for name in PACKAGES)
    return render(date, sources, rows, requires, index)


def rows_of(documents: Dict[str, Dict[str, object]]) -> List[Row]:
    return [row for name in PACKAGES for row in rows_from_json(name, documents[name])]


def _listings(snapshot: Optional[Path]) -> Dict[str, str]:
    found = {}
    for name in PACKAGES:
        if snapshot is not None:
            path = snapshot / f"index-{name}.html"
            try:
                found[name] = path.read_text(encoding="utf-8", errors="replace")
            except OSError as error:
                raise RefreshError(f"cannot read {path} ({error.strerror}); nothing was changed") from None
        else:
            found[name] = fetch_bytes(INDEX_URL.format(name)).decode("utf-8", errors="replace")
    return found


def to_review(rows: Sequence[Row]) -> List[str]:
    """What the hand-kept tables (releases.py) lack against what PyPI publishes: newer releases to add."""
    newest = {"torch": RELEASES[0].latest.torch, "torchvision": RELEASES[0].latest.torchvision}
    notes = []
    for package, known in newest.items():
        published = [row[1] for row in rows if row[0] == package]
        last = max(published, key=lambda v: _version_key(v) or (), default=None)
        if last and (_version_key(last) or ()) > (_version_key(known) or ()):
            notes.append(f"to review: PyPI has {package} {last}, newer than releases.py ({known}); add its row")
    return notes


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpudoctor.compat.refresh", description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, help="read <package>.json from this folder, not the network")
    parser.add_argument("--record", type=Path, help="save what was read, trimmed, into this folder")
    parser.add_argument("--out", type=Path, default=OUT, help="the data file to write (default: published.py)")
    parser.add_argument("--date", help="the data date (default: today, UTC)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file would change")
    parser.add_argument("--wheel-index", action="store_true",
                        help="also read download.pytorch.org/whl/<package>/ (index-<package>.html in a snapshot)")
    args = parser.parse_args(argv)
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    kept = re.search(r"^DATA_DATE = '([0-9-]+)'$", old, re.MULTILINE)
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    date = args.date or (kept.group(1) if args.check and kept else today)
    if not re.match(r"^\d{4}-\d{2}-\d{2}$", date):
        print(f"refresh: --date must look like 2026-11-24, not {date!r}", file=sys.stderr)
        return 2
    try:
        documents = {}
        for name in PACKAGES:
            if args.snapshot is not None:
                path = args.snapshot / f"{name}.json"
                try:
                    documents[name] = _parse(str(path), path.read_bytes())
                except OSError as error:
                    raise RefreshError(f"cannot read {path} ({error.strerror}); nothing was changed") from None
            else:
                documents[name] = fetch(name)
        listings = _listings(args.snapshot) if args.wheel_index else None
        text = build(documents, date, listings)
    except RefreshError as error:
        print(f"refresh: {error}", file=sys.stderr)
        return 2
    if args.record is not None:
        args.record.mkdir(parents=True, exist_ok=True)
        for name, document in documents.items():
            (args.record / f"{name}.json").write_text(json.dumps(trimmed(name, document), sort_keys=True, indent=0) + "\n",
                                                      encoding="utf-8")
        for name, listing in (listings or {}).items():
            (args.record / f"index-{name}.html").write_text(listing, encoding="utf-8")
    diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), str(args.out), "refreshed", lineterm=""))
    print("\n".join(diff) if diff else f"{args.out}: up to date")
    for note in to_review(rows_of(documents)):
        print(note)
    if args.check:
        return 1 if diff else 0
    if diff:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
