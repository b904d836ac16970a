"""Where rendered text goes: stdout (coloured only on a real terminal), files, and a spinner on stderr."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from typing import Any, Callable, Iterator, Optional, TextIO
from gpudoctor.errors import UserError


class OutputError(UserError, ValueError):
    """The output file cannot be written; the message is one line for the user."""


_ASCII = str.maketrans({"✓": "v", "✗": "x", "☠": "X", "•": "*", "…": "...", "·": "-"})


def interactive(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal that can redraw a line (not a pipe, a file or TERM=dumb)."""
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def wants_colour(stream: TextIO) -> bool:
    """True on an interactive terminal unless NO_COLOR is set."""
    return "NO_COLOR" not in os.environ and interactive(stream)


def _encodable(text: str, stream: TextIO) -> str:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except LookupError:
        return text
    except UnicodeEncodeError:
        return text.translate(_ASCII).encode(encoding, errors="replace").decode(encoding, errors="replace")


def emit(text: str, styled: Optional[Callable[[], Any]] = None, stream: Optional[TextIO] = None) -> None:
    """Write ``text`` to stdout; on a colour terminal print ``styled()`` (a rich renderable) instead."""
    out = stream if stream is not None else sys.stdout
    if out is None:
        raise OutputError("standard output is closed; write the report to a file with -o FILE")
    if styled is not None and wants_colour(out):
        from rich.console import Console

        console = Console(file=out, markup=False, emoji=False, highlight=False, soft_wrap=True)
        console.print(styled(), end="")
        return
    try:
        out.write(_encodable(text, out))
        out.flush()
    except BrokenPipeError:  # the reader (`| head`) has gone: stop writing, quietly
        _silence(out)
    except OSError as exc:  # a full disk, a closed descriptor
        _silence(out)
        raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") from None


def _silence(out: TextIO) -> None:
    """Send what is left in ``out`` to the null device, so that exiting does not fail on it again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def note(message: str) -> None:
    """A one-line message for the user on stderr (none when stderr is closed)."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(_encodable(message + "\n", sys.stderr))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def deliver(text: str, output: Optional[str], styled: Optional[Callable[[], Any]] = None, summary: str = "") -> None:
    """``text`` to stdout, or as UTF-8 to the file ``output`` with ``summary`` on stderr."""
    if not output or output == "-":
        emit(text, styled)
        return
    write_atomically(output, text)
    note(f"{summary} Written to {output}.".lstrip())


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` as UTF-8 to a temporary file beside ``path``, then rename it into place.

    A failure part-way (a full disk, a bad character, Ctrl-C) leaves an existing ``path`` as it was and no
    temporary file behind. A new file gets the mode ``open`` would give it; a replaced one keeps its mode.
    """
    folder = os.path.dirname(os.path.abspath(path))
    try:
        info = os.stat(path)
        mode = stat.S_IMODE(info.st_mode)
        if not stat.S_ISREG(info.st_mode):  # /dev/stdout, a pipe: write into it, never replace it
            _write_through(path, text)
            return
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".part", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def _write_through(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as out:
            out.write(text)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def check_writable(path: Optional[str]) -> None:
    """Raise OutputError unless ``path`` looks writable (None and "-" mean stdout)."""
    why = _unwritable(path) if path and path != "-" else None
    if why:
        raise OutputError(f"cannot write {path}: {why}")


def _unwritable(path: str) -> Optional[str]:
    if os.path.isdir(path):
        return "is a directory"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"no such directory {os.path.dirname(path) or parent}"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "permission denied"
    return None if os.access(parent, os.W_OK) else "permission denied (cannot create files there)"


@contextlib.contextmanager
def spinner(message: str) -> Iterator[None]:
    """A spinner on stderr while the body runs, shown only when stderr is an interactive terminal."""
    if not interactive(sys.stderr):
        yield
        return
    from rich.console import Console

    console = Console(stderr=True, markup=False, emoji=False, highlight=False)
    with console.status(message):
        yield
