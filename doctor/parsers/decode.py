"""Turns the bytes of an input into text (UTF-8, UTF-16 or a mix of both); InputError says what cannot be read."""

from __future__ import annotations

import codecs
import re

from gpudoctor.errors import UserError


class InputError(UserError, ValueError):
    """Input that cannot be diagnosed; the message is one line for the user."""


UTF16_RUN = re.compile(rb"(?:\xff\xfe)?(?:[\t\n\r\x20-\x7e]\x00){4,}")


def utf16_runs(data: bytes) -> bytes:
    """UTF-8 text with UTF-16-LE stretches in it (a file appended to by another shell): each stretch re-encoded."""
    return UTF16_RUN.sub(lambda m: m.group().removeprefix(b"\xff\xfe").decode("utf-16-le").encode(), data)


def decode_text(data: bytes, name: str) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # PowerShell's `>` writes UTF-16
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(f"{name}: not readable text (broken UTF-16)") from None
    if b"\x00" in data and len(data) >= 4 and data[1::2].count(0) * 10 > len(data) * 4:  # UTF-16-LE, no BOM
        try:
            return data.decode("utf-16-le")
        except UnicodeDecodeError:
            pass
    if b"\x00" in data:
        data = utf16_runs(data)  # PowerShell's `>>` appends UTF-16 to a UTF-8 file
    if b"\x00" in data:
        raise InputError(f"{name}: binary data, not a report (it contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    bad = text.count("\ufffd")
    ascii_bytes = len(data) - sum(1 for byte in data if byte >= 0x80)
    if bad > max(8, len(text) // 100) and ascii_bytes * 10 < len(data) * 9:  # mostly ASCII: mixed encodings
        raise InputError(f"{name}: binary data or an unknown encoding, not a report ({bad} undecodable bytes)")
    return text
