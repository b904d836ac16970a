"""What ``diagnose`` reads: a file, standard input or a pipe, as facts; input that cannot be read is one line.

A named pipe that nothing writes to would block ``open`` for ever; JSON nested deeper than Python's
recursion limit and integers past its 4,300-digit limit would end in an internal error. Each is an input error.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Optional

from gpudoctor.facts import Facts
from gpudoctor.parsers import report
from gpudoctor.errors import UserError

__all__ = ["PipeError", "load", "read_pipe"]


class PipeError(UserError, ValueError):
    """The input cannot be read as a report; the message is one line."""


def read_pipe(path: str) -> Optional[bytes]:
    """The bytes of ``path`` when it is a named pipe (None when it is not); an error when nothing writes to it."""
    try:
        if path == "-" or not stat.S_ISFIFO(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None  # read_input says what is wrong with it
    try:
        try:
            first = os.read(fd, report.MAX_BYTES + 1)
        except BlockingIOError:
            first = b"..."  # a writer is there but has written nothing yet
        else:
            if not first:
                raise PipeError(f"{path}: a pipe that nothing writes to")
        os.set_blocking(fd, True)
        data = b"" if first == b"..." else first
        while len(data) <= report.MAX_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            data += chunk
        return data
    except OSError as exc:
        if exc.errno == errno.EAGAIN:  # pragma: no cover - set_blocking above makes this rare
            raise PipeError(f"{path}: cannot read the pipe ({exc.strerror})") from None
        raise PipeError(f"{path}: cannot read the pipe ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def load(source: str) -> Facts:
    """Facts from the file, pipe or standard input ``source`` names."""
    data = read_pipe(source)
    if data is not None:
        if len(data) > report.MAX_BYTES:
            raise PipeError(f"{source}: larger than {report.MAX_BYTES // (1024 * 1024)} MB, too large for a report")
        text, name = report._decode(data, source), source
    else:
        text, name = report.read_input(source)
    try:
        return report.load_facts(text, name)
    except RecursionError:
        raise PipeError(f"{name}: nested too deeply to be a report") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise PipeError(f"{name}: holds a number with more than 4,300 digits; not a report") from None
        raise
