"""Finding and fetching MNIST and CIFAR-10: torchvision's layout, checked downloads, no half-written file left."""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import importlib.util
import re
import socket
import threading
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import pytest

from gpudoctor.probes.verify import fetch

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"
MNIST_NAMES = ["t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", "train-images-idx3-ubyte", "train-labels-idx1-ubyte"]


def datagen():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("verify_datagen", FIXTURES / "datagen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def listing(folder: Path) -> List[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_file_table_matches_torchvision() -> None:
    datasets = pytest.importorskip("torchvision.datasets")
    assert list(fetch.MNIST_MIRRORS) == datasets.MNIST.mirrors
    assert [list(r) for r in fetch.MNIST_FILES] == [list(r) for r in datasets.MNIST.resources]
    cifar = datasets.CIFAR10
    assert (fetch.CIFAR10_URL, fetch.CIFAR10_ARCHIVE, fetch.CIFAR10_FOLDER) == (
        cifar.url,
        (cifar.filename, cifar.tgz_md5),
        cifar.base_folder,
    )
    assert list(fetch.CIFAR10_FILES) == [n for n, _ in cifar.train_list + cifar.test_list] + [cifar.meta["filename"]]


def test_default_root_honours_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fetch.default_root() == tmp_path / "xdg" / "gpudoctor" / "data"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert fetch.default_root() == tmp_path / "home" / ".cache" / "gpudoctor" / "data"
    assert fetch.resolve_root("mnist", None) == tmp_path / "home" / ".cache" / "gpudoctor" / "data"


def test_resolve_root_takes_torchvision_roots_and_the_folders_inside(tmp_path: Path) -> None:
    seed_root = tmp_path / "Data" / "MNIST"  # seed 001: root="../Data/MNIST" -> ../Data/MNIST/MNIST/raw
    (seed_root / "MNIST" / "raw").mkdir(parents=True)
    assert fetch.resolve_root("mnist", str(seed_root)) == seed_root
    inner = tmp_path / "other" / "MNIST"
    (inner / "raw").mkdir(parents=True)
    assert fetch.resolve_root("mnist", str(inner)) == tmp_path / "other"
    cifar = tmp_path / "c" / "cifar-10-batches-py"
    cifar.mkdir(parents=True)
    (cifar / "data_batch_1").write_bytes(b"x")
    assert fetch.resolve_root("cifar10", str(cifar)) == tmp_path / "c"
    assert fetch.resolve_root("cifar10", str(tmp_path / "new")) == tmp_path / "new"


def test_local_gz_files_are_extracted_beside_them(tmp_path: Path) -> None:
    datagen().write_mnist(tmp_path, 20, 10, gz=True)
    assert fetch.missing("mnist", tmp_path) == tuple(
        f"MNIST/raw/{n}" for n in [MNIST_NAMES[2], MNIST_NAMES[3], MNIST_NAMES[0], MNIST_NAMES[1]]
    )
    assert fetch.ensure("mnist", tmp_path) == tmp_path
    assert listing(tmp_path) == sorted(
        [f"MNIST/raw/{n}" for n in MNIST_NAMES] + [f"MNIST/raw/{n}.gz" for n in MNIST_NAMES]
    )
    assert fetch.missing("mnist", tmp_path) == ()


def test_a_local_cifar_archive_is_unpacked(tmp_path: Path) -> None:
    source = tmp_path / "source"
    datagen().write_cifar10(source, 4, 4)
    target = tmp_path / "root"
    target.mkdir()
    datagen().tar_cifar10(source, target / "cifar-10-python.tar.gz")
    fetch.ensure("cifar10", target)
    assert listing(target) == sorted(
        ["cifar-10-python.tar.gz"] + [f"cifar-10-batches-py/{n}" for n in fetch.CIFAR10_FILES]
    )
    assert (target / "cifar-10-batches-py" / "test_batch").read_bytes() == (
        source / "cifar-10-batches-py" / "test_batch"
    ).read_bytes()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Tuple[str, Path]]:
    """An HTTP server on localhost serving tmp_path/served."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", served
    httpd.shutdown()
    httpd.server_close()


def served_mnist(served: Path, tmp_path: Path) -> Tuple[Tuple[str, str], ...]:
    datagen().write_mnist(tmp_path / "gen", 20, 10, gz=True)
    files = []
    for name, _ in fetch.MNIST_FILES:
        content = (tmp_path / "gen" / "MNIST" / "raw" / name).read_bytes()
        (served / name).write_bytes(content)
        files.append((name, hashlib.md5(content).hexdigest()))
    return tuple(files)


def test_download_checks_md5_renames_and_reports_progress(
    server: Tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, served = server
    monkeypatch.setattr(fetch, "MNIST_MIRRORS", ("http://127.0.0.1:9/", url))  # the first mirror is down
    monkeypatch.setattr(fetch, "MNIST_FILES", served_mnist(served, tmp_path))
    seen: List[Tuple[str, int, Optional[int]]] = []
    root = tmp_path / "cache"
    fetch.ensure("mnist", root, lambda n, d, t: seen.append((n, d, t)))
    assert listing(root) == sorted([f"MNIST/raw/{n}" for n in MNIST_NAMES] + [f"MNIST/raw/{n}.gz" for n in MNIST_NAMES])
    sizes = {p.name: p.stat().st_size for p in served.iterdir()}
    assert sorted({(n, t) for n, d, t in seen if d == t}) == sorted(sizes.items())
    with gzip.open(root / "MNIST" / "raw" / "train-labels-idx1-ubyte.gz") as fh:
        assert fh.read() == (root / "MNIST" / "raw" / "train-labels-idx1-ubyte").read_bytes()


def test_a_corrupt_download_leaves_nothing_behind(
    server: Tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, served = server
    files = served_mnist(served, tmp_path)
    monkeypatch.setattr(fetch, "MNIST_MIRRORS", (url,))
    monkeypatch.setattr(fetch, "MNIST_FILES", ((files[0][0], "0" * 32),) + files[1:])
    root = tmp_path / "cache"
    with pytest.raises(fetch.DataUnavailable) as info:
        fetch.ensure("mnist", root)
    got = hashlib.md5((served / files[0][0]).read_bytes()).hexdigest()
    assert str(info.value) == (
        f"MNIST is not in {root} and could not be downloaded ({url}train-images-idx3-ubyte.gz gave a file whose MD5 "
        f"{got} is not the expected {'0' * 32}). Put train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
        f"t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz in {root}/MNIST/raw, or pass --data-dir a folder "
        "holding MNIST/raw; --train synthetic needs no files."
    )
    assert not root.exists()  # the folders this fetch created are taken back too


def test_offline_without_a_copy_says_where_to_put_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(fetch, "CIFAR10_URL", f"http://127.0.0.1:{port}/cifar-10-python.tar.gz")
    with pytest.raises(fetch.DataUnavailable) as info:
        fetch.ensure("cifar10", tmp_path, timeout=5)
    message = str(info.value)
    reason = re.fullmatch(r"CIFAR-10 is not in .* could not be downloaded \((.*)\)\. Put .*", message)
    assert reason is not None and reason.group(1).startswith(
        f"http://127.0.0.1:{port}/cifar-10-python.tar.gz: URLError:"
    )
    assert message == (
        f"CIFAR-10 is not in {tmp_path} and could not be downloaded ({reason.group(1)}). Put cifar-10-python.tar.gz "
        f"(from http://127.0.0.1:{port}/cifar-10-python.tar.gz) in {tmp_path}, or pass --data-dir a folder holding "
        "cifar-10-batches-py; --train synthetic needs no files."
    )
    assert listing(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no empty cifar-10-batches-py left either
