"""Each torch release's build matrix from pytorch/test-infra's history, and the data file written from it.

The source is a git directory (bare or not), a checkout or the file itself, or a recorded snapshot (a folder
with ``index.json``). From a git directory, every version of the file on HEAD's history is parsed: a release's
matrix is the ``release`` channel at the commit that made it the stable version (its go-live: SECONDARY
evidence of what was published). Each ``release/X.Y`` branch's last version gives its candidate's ``test``
channel, and HEAD gives the ``test`` and ``nightly`` channels of releases that are not out yet (both
UNCONFIRMED: they say what was built, not what was published).
"""

from __future__ import annotations

import datetime
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from gpudoctor.compat.base import Confidence, S, U
from gpudoctor.compat.matrix_parse import MATRIX_PATH, Channel, MatrixError, channel_matrix, parse, trimmed
from gpudoctor.compat.releases import release_for_torch
from gpudoctor.compat.wheels import published_variants

FLOOR = (2, 0)
_SHA = re.compile(r"^[0-9a-f]{7,40}$")
_BRANCH = re.compile(r"^release/(\d+)\.(\d+)$")
_RELEASED = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
_CONFIDENCE = {Channel.RELEASE: S, Channel.TEST: U, Channel.NIGHTLY: U}


@dataclass(frozen=True)
class Record:
    """One version of the file that was read: where it came from, and its text."""

    ref: str  # "HEAD" or "release/2.13"
    commit: str
    date: str  # committer date, "2026-07-08"
    subject: str
    text: str


@dataclass(frozen=True)
class MatrixRow:
    """One torch release's build matrix as one channel of one commit gives it."""

    torch: str
    channel: str
    confidence: Confidence
    ref: str
    commit: str
    date: str
    linux: Tuple[str, ...]
    aarch64: Optional[Tuple[str, ...]]
    windows: Optional[Tuple[str, ...]]
    python: Tuple[str, ...]
    stable: Optional[str]
    cudnn: Tuple[Tuple[str, str], ...]

    @property
    def minor(self) -> str:
        return ".".join(self.torch.split(".")[:2])


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise MatrixError(f"git could not read {repo} ({error.__class__.__name__})") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise MatrixError(f"git could not read {repo} ({reason[0] if reason else done.returncode})")
    return done.stdout.decode("utf-8", "replace")


def _is_git(path: Path) -> bool:
    """A bare repository, or the top of a work tree (a plain copy inside another repository is not)."""
    answers = []
    for question in ("--is-bare-repository", "--show-toplevel"):
        try:
            done = subprocess.run(["git", "-C", str(path), "rev-parse", question], capture_output=True, timeout=30,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
        answers.append(done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else "")
    return answers[0] == "true" or bool(answers[1]) and Path(answers[1]).resolve() == path.resolve()


def _log(repo: Path, ref: str, limit: Optional[int] = None) -> List[Tuple[str, str, str]]:
    args = ["log", "--format=%H%x09%cI%x09%s", *([f"-{limit}"] if limit else []), ref, "--", MATRIX_PATH]
    found = []
    for line in _git(repo, *args).splitlines():
        sha, date, subject = (line.split("\t", 2) + ["", ""])[:3]
        if _SHA.match(sha):
            found.append((sha, date[:10], subject))
    return found


def read_git(repo: Path) -> List[Record]:
    """Every version of the file on HEAD's history (newest first), then each release branch's last version."""
    records = [Record("HEAD", sha, date, subject, _git(repo, "show", f"{sha}:{MATRIX_PATH}"))
               for sha, date, subject in _log(repo, "HEAD")]
    for line in _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/release/").splitlines():
        if _BRANCH.match(line.strip()):
            for sha, date, subject in _log(repo, line.strip(), 1):
                records.append(Record(line.strip(), sha, date, subject, _git(repo, "show", f"{sha}:{MATRIX_PATH}")))
    return records


def read_snapshot(folder: Path) -> Tuple[str, List[Record]]:
    """(source, records) of a snapshot written by ``record``."""
    try:
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        records = [Record(str(item["ref"]), str(item["commit"]), str(item["date"]), str(item["subject"]),
                          (folder / Path(str(item["file"])).name).read_text(encoding="utf-8"))
                   for item in index["records"]]
        return str(index["source"]), records
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise MatrixError(f"{folder} is not a recorded test-infra snapshot ({error.__class__.__name__})") from None


def read_source(path: Path) -> Tuple[str, List[Record]]:
    """(source text, records) from a git directory, a snapshot folder, a checkout, or the file itself."""
    if (path / "index.json").is_file():
        return read_snapshot(path)
    if path.is_dir() and _is_git(path):
        records = read_git(path)
        head = records[0].commit if records else "?"
        return f"pytorch/test-infra {MATRIX_PATH} (git history to {head[:12]})", records
    file = path / MATRIX_PATH if path.is_dir() else path
    try:
        text = file.read_text(encoding="utf-8")
        changed = datetime.datetime.fromtimestamp(file.stat().st_mtime, datetime.timezone.utc).strftime("%Y-%m-%d")
    except (OSError, UnicodeDecodeError) as error:
        raise MatrixError(f"cannot read {file} ({error.__class__.__name__})") from None
    source = f"pytorch/test-infra {MATRIX_PATH} (a file without history, modified {changed})"
    return source, [Record("HEAD", "unknown", changed, "", text)]


def _released(version: str) -> Optional[Tuple[int, ...]]:
    match = _RELEASED.match(version)
    return tuple(int(x) for x in match.groups()) if match else None


def select(records: Sequence[Record]) -> Tuple[List[Record], List[MatrixRow]]:
    """(the records used, one row per torch release and channel): go-live release rows, candidates, nightly."""
    parsed = []
    for item in records:
        try:
            parsed.append((item, parse(item.text, f"{item.ref}:{item.commit[:12]}")))
        except MatrixError:
            if len(records) == 1:
                raise  # one broken version in a long history is skipped; a single file must parse
    rows: Dict[Tuple[str, str], Tuple[Record, MatrixRow]] = {}

    def add(record: Record, channel: Channel, matrix: object) -> None:
        found = channel_matrix(matrix, channel)  # type: ignore[arg-type]
        key = _released(found.torch) if found else None
        if found is None or key is None or key[:2] < FLOOR or (found.torch, channel.value) in rows:
            return
        rows[(found.torch, channel.value)] = (record, MatrixRow(
            found.torch, channel.value, _CONFIDENCE[channel], record.ref, record.commit, record.date, found.linux,
            found.aarch64, found.windows, found.python, found.stable, found.cudnn))

    head = [(record, matrix) for record, matrix in parsed if record.ref == "HEAD"]
    for record, matrix in reversed(head):  # oldest first: the first commit naming a stable version is its go-live
        add(record, Channel.RELEASE, matrix)
    for record, matrix in parsed:
        if record.ref != "HEAD":
            add(record, Channel.TEST, matrix)
    for channel in (Channel.TEST, Channel.NIGHTLY):
        if head:
            add(head[0][0], channel, head[0][1])
    chosen = sorted(rows.values(), key=lambda item: (_released(item[1].torch) or (), item[1].channel))
    wanted = {id(record) for record, _ in chosen}
    used = [item for item in records if id(item) in wanted]  # in the order read: HEAD's newest first
    return used, [row for _, row in chosen]


def record(folder: Path, source: str, records: Sequence[Record]) -> None:
    """Save the records used, trimmed to what is read, with an index, so the refresh can run offline."""
    folder.mkdir(parents=True, exist_ok=True)
    items = []
    for item in records:
        name = f"{item.ref.replace('/', '-')}-{item.commit[:12]}.py"
        (folder / name).write_text(trimmed(item.text), encoding="utf-8")
        items.append({"ref": item.ref, "commit": item.commit, "date": item.date, "subject": item.subject,
                      "file": name})
    (folder / "index.json").write_text(json.dumps({"source": source, "records": items}, indent=1) + "\n",
                                       encoding="utf-8")
    written = {item["file"] for item in items}
    for stale in folder.glob("*.py"):  # versions an earlier recording used and this one does not
        if stale.name not in written:
            stale.unlink()


def render(source: str, rows: Sequence[MatrixRow]) -> str:
    """The text of build_matrix.py."""
    head = max((row.date for row in rows), default="")
    lines = [
        '"""Each torch release\'s build matrix as pytorch/test-infra states it; rewritten by the refresh command."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Optional, Tuple",
        "",
        f"MATRIX_SOURCE = {source!r}",
        f"MATRIX_DATE = {head!r}  # the newest commit read",
        "",
        "# (torch, channel, confidence, ref, commit, commit date, Linux x86_64 CUDA variants, Linux aarch64 CUDA",
        "#  variants (None: the file has no aarch64 CUDA list), Windows CUDA variants, Python versions,",
        "#  the variant installed without --index-url (None: not stated), ((variant, cuDNN major), ...)).",
        "# release rows: the release channel at the go-live commit, SECONDARY; test/nightly rows: what was built",
        "# for a candidate or nightly, UNCONFIRMED.",
        "Row = Tuple[str, str, str, str, str, str, Tuple[str, ...], Optional[Tuple[str, ...]],",
        "            Optional[Tuple[str, ...]], Tuple[str, ...], Optional[str], Tuple[Tuple[str, str], ...]]",
        "BUILD_MATRIX: Tuple[Row, ...] = (",
    ]
    for row in rows:
        values = (row.torch, row.channel, row.confidence.value, row.ref, row.commit, row.date, row.linux, row.aarch64,
                  row.windows, row.python, row.stable, row.cudnn)
        lines.append(f"    {values!r},")
    lines += [")", ""]
    return "\n".join(lines)


def rows_of(data: Sequence[Tuple[object, ...]]) -> Tuple[MatrixRow, ...]:
    """The generated tuples as MatrixRow values."""
    found = []
    for item in data:
        torch, channel, conf, ref, commit, date, linux, arm, win, python, stable, cudnn = item
        found.append(MatrixRow(str(torch), str(channel), Confidence(conf), str(ref), str(commit), str(date),
                               linux, arm, win, python, stable, cudnn))  # type: ignore[arg-type]
    return tuple(found)



def refresh_text(path: Path, record_to: Optional[Path] = None) -> Tuple[str, List[str]]:
    """(the new build_matrix.py text, notes to review) from a source; ``record_to`` saves the records used."""
    source, records = read_source(path)
    used, rows = select(records)
    if not rows:
        raise MatrixError(f"{path} gave no torch release matrix")
    if record_to is not None:
        record(record_to, source, used)
    return render(source, rows), to_review(rows)


def to_review(rows: Sequence[MatrixRow]) -> List[str]:
    """What the hand-kept tables lack against the release and candidate rows: releases and variants to add."""
    notes = []
    for row in rows:
        if row.channel == Channel.NIGHTLY.value:
            continue
        if release_for_torch(row.torch) is None:
            notes.append(f"to review: test-infra has a torch {row.torch} {row.channel} matrix; releases.py lacks "
                         f"{row.minor} ({row.commit[:12]})")
            continue
        for name, system, machine in (("linux", "Linux", "x86_64"), ("aarch64", "Linux", "aarch64"),
                                      ("windows", "Windows", "AMD64")):
            missing = [v for v in getattr(row, name) or () if v not in published_variants(row.torch, system, machine)]
            if missing:
                notes.append(f"to review: test-infra's torch {row.torch} {row.channel} matrix ({row.commit[:12]}) "
                             f"builds {name} {', '.join(missing)}; the tables lack it")
    return notes
