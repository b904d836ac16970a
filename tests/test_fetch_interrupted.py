"""A download cut off mid-body or by Ctrl-C leaves no .part file and no new folder; a finished one is not 0600."""

from __future__ import annotations

import hashlib
import http.server
import os
import socket
import stat
import threading
from pathlib import Path
from typing import Iterator

import pytest
from gpudoctor.probes.verify import fetch

BODY = b"x" * 200_000


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if "whole" in self.path:
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)
            return
        self.send_response(200)  # a chunked body whose connection drops after the first chunk
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.write(b"%x\r\n" % 1000 + b"y" * 1000 + b"\r\n")
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_connection_dropped_inside_a_chunked_body_is_unavailable_data(server: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "data"
    monkeypatch.setattr(fetch, "CIFAR10_URL", f"{server}/dropped")
    with pytest.raises(fetch.DataUnavailable, match="IncompleteRead"):
        fetch.ensure("cifar10", root, timeout=60)
    assert list(tmp_path.iterdir()) == []  # neither the .part file nor the folders it made


def test_ctrl_c_during_a_download_leaves_nothing_behind(server: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(name: str, done: int, total: object) -> None:
        raise KeyboardInterrupt

    root = tmp_path / "data"
    monkeypatch.setattr(fetch, "MNIST_MIRRORS", (f"{server}/",))
    monkeypatch.setattr(fetch, "MNIST_FILES", (("whole.gz", hashlib.md5(BODY).hexdigest()),))
    with pytest.raises(KeyboardInterrupt):
        fetch.ensure("mnist", root, progress=interrupt, timeout=60)
    assert list(tmp_path.iterdir()) == []


def test_a_downloaded_file_gets_the_usual_mode(server: str, tmp_path: Path) -> None:
    target = tmp_path / "whole"
    fetch._download([f"{server}/whole"], target, hashlib.md5(BODY).hexdigest(), None, 60)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["whole"]
