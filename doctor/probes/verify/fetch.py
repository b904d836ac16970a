"""Finds MNIST and CIFAR-10 in torchvision's folder layout and downloads what is missing, checked, renamed into place.

Standard library only: gpudoctor calls it before any worker starts, under its own interpreter.
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import os
import shutil
import tarfile
import tempfile
import urllib.request
from pathlib import Path
from typing import Callable, Optional, Sequence, Tuple

from gpudoctor.errors import UserError

# The files and checksums torchvision's MNIST and CIFAR10 classes use (tests compare them with torchvision's).
MNIST_MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/")
MNIST_FILES = (
    ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
    ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
    ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
    ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
)
CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_ARCHIVE = ("cifar-10-python.tar.gz", "c58f30108f718f92721af3b95e74349a")
CIFAR10_FOLDER = "cifar-10-batches-py"
CIFAR10_FILES = tuple(f"data_batch_{i}" for i in range(1, 6)) + ("test_batch", "batches.meta")

Progress = Callable[[str, int, Optional[int]], None]  # (file name, bytes so far, total bytes or None)


class DataUnavailable(UserError):
    """The data set is not on disk and could not be downloaded; the message is one line for the user."""


def default_root() -> Path:
    """The user cache directory for data sets: $XDG_CACHE_HOME/gpudoctor/data, else ~/.cache/gpudoctor/data."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpudoctor" / "data"


def resolve_root(dataset: str, data_dir: Optional[str]) -> Path:
    """The root folder torchvision expects (holding MNIST/ or cifar-10-batches-py/); also accepts those folders."""
    if not data_dir:
        return default_root()
    root = Path(data_dir).expanduser()
    if dataset == "mnist":
        inner_given = root.name == "MNIST" and (root / "raw").is_dir() and not (root / "MNIST").exists()
    else:
        inner_given = root.name == CIFAR10_FOLDER and (root / "data_batch_1").is_file()
    return root.parent if inner_given else root


def missing(dataset: str, root: Path) -> Tuple[str, ...]:
    """Files the dataset class will look for that are not there, relative to ``root``."""
    if dataset == "mnist":
        raw = Path("MNIST") / "raw"
        return tuple(str(raw / n[:-3]) for n, _ in MNIST_FILES if not (root / raw / n[:-3]).is_file())
    return tuple(str(Path(CIFAR10_FOLDER) / n) for n in CIFAR10_FILES if not (root / CIFAR10_FOLDER / n).is_file())


def ensure(dataset: str, root: Path, progress: Optional[Progress] = None, timeout: float = 30.0) -> Path:
    """Make the files of ``dataset`` present under ``root`` (from local archives, else downloaded); return ``root``."""
    if not missing(dataset, root):
        return root
    folders = [root / "MNIST" / "raw", root / "MNIST", root] if dataset == "mnist" else [root / CIFAR10_FOLDER, root]
    new = [f for f in folders if not f.exists()]
    try:
        if dataset == "mnist":
            _ensure_mnist(root, progress, timeout)
        else:
            _ensure_cifar10(root, progress, timeout)
    except (DataUnavailable, OSError) as exc:
        _remove_if_empty(new)
        reason = str(exc) if isinstance(exc, DataUnavailable) else f"{type(exc).__name__}: {exc}"
        raise DataUnavailable(_advice(dataset, root, reason)) from None
    except BaseException:  # Ctrl-C: leave nothing behind either
        _remove_if_empty(new)
        raise
    return root


def _umask_mode() -> int:
    """The mode ``open`` gives a new file: 0o666 less the umask (mkstemp's files are 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _remove_if_empty(folders: Sequence[Path]) -> None:
    """Take back the folders a failed fetch created (deepest first), so it leaves nothing behind."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            pass


def _advice(dataset: str, root: Path, reason: str) -> str:
    if dataset == "mnist":
        where = root / "MNIST" / "raw"
        files = ", ".join(n for n, _ in MNIST_FILES)
        what = f"MNIST is not in {root} and could not be downloaded ({reason}). Put {files} in {where}"
        other = "a folder holding MNIST/raw"
    else:
        what = (
            f"CIFAR-10 is not in {root} and could not be downloaded ({reason}). Put {CIFAR10_ARCHIVE[0]} "
            f"(from {CIFAR10_URL}) in {root}"
        )
        other = f"a folder holding {CIFAR10_FOLDER}"
    return f"{what}, or pass --data-dir {other}; --train synthetic needs no files."


def _ensure_mnist(root: Path, progress: Optional[Progress], timeout: float) -> None:
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for name, md5 in MNIST_FILES:
        target = raw / name[:-3]
        if target.is_file():
            continue
        archive = raw / name
        if not archive.is_file():
            _download([m + name for m in MNIST_MIRRORS], archive, md5, progress, timeout)
        _gunzip(archive, target)


def _ensure_cifar10(root: Path, progress: Optional[Progress], timeout: float) -> None:
    root.mkdir(parents=True, exist_ok=True)
    name, md5 = CIFAR10_ARCHIVE
    archive = root / name
    if not archive.is_file():
        _download([CIFAR10_URL], archive, md5, progress, timeout)
    _extract_cifar10(archive, root / CIFAR10_FOLDER)


def _download(urls: Sequence[str], target: Path, md5: str, progress: Optional[Progress], timeout: float) -> None:
    """Fetch the first URL that answers into a temporary file beside ``target``; rename it only if its MD5 matches."""
    errors = []
    for url in urls:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=str(target.parent))
        try:
            digest = hashlib.md5()
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:
                total = response.headers.get("Content-Length")
                size = int(total) if total and total.isdigit() else None
                done = 0
                while True:
                    chunk = response.read(1 << 16)
                    if not chunk:
                        break
                    out.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(target.name, done, size)
            if digest.hexdigest() != md5:
                raise DataUnavailable(f"{url} gave a file whose MD5 {digest.hexdigest()} is not the expected {md5}")
            os.chmod(tmp, _umask_mode())
            os.replace(tmp, target)
            return
        except (OSError, ValueError, http.client.HTTPException, DataUnavailable) as exc:
            errors.append(str(exc) if isinstance(exc, DataUnavailable) else f"{url}: {type(exc).__name__}: {exc}")
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    raise DataUnavailable("; ".join(errors))


def _gunzip(archive: Path, target: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as out, gzip.open(archive, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, target)
    except (OSError, EOFError) as exc:
        raise DataUnavailable(f"{archive} is damaged ({type(exc).__name__}: {exc}); delete it and try again") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _extract_cifar10(archive: Path, folder: Path) -> None:
    """Copy the known members out of the archive (never a path it names) into a temporary folder, then move them."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=str(folder.parent)))
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for name in CIFAR10_FILES:
                if (folder / name).is_file():
                    continue
                member = tar.extractfile(f"{CIFAR10_FOLDER}/{name}")
                if member is None:
                    raise DataUnavailable(f"{archive} has no {CIFAR10_FOLDER}/{name}")
                with member, open(tmp / name, "wb") as out:
                    shutil.copyfileobj(member, out, 1 << 20)
        for name in CIFAR10_FILES:
            if (tmp / name).is_file():
                os.replace(tmp / name, folder / name)
    except (tarfile.TarError, KeyError, EOFError) as exc:
        raise DataUnavailable(f"{archive} is damaged ({type(exc).__name__}: {exc}); delete it and try again") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
