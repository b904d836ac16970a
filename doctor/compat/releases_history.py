"""Torch 1.0 to 1.8: the releases kept to judge pasted reports of old environments, never to recommend."""

from __future__ import annotations

from typing import Tuple

from gpudoctor.compat.base import C, U
from gpudoctor.compat.release_model import Pairing, Release, _p, _r

_PAGE = "pytorch.github.io _get_started/previous-versions.md (stored commit 04862e37)"
_MEMORY = "not on the stored previous-versions page; from memory of the release announcements"
_AUDIO_U = "torchaudio pairing UNCONFIRMED: the previous-versions page lists no torchaudio before 1.7"
_PY27 = "Python 2.7 and 3.5-3.7 (2.7 is inside the range; 3.0-3.4 are not served)"
_DEFAULT_U = "PyPI default variant UNCONFIRMED (the page says only 'download the wheel')"


def _old(minor: str, vision: str, audio: str, python: str, cuda: str, default: str, rocm: str,
         patches: Tuple[Pairing, ...], notes: Tuple[str, ...] = (), confirmed: bool = True) -> Release:
    """A historic row: read on the previous-versions page (CONFIRMED) unless ``confirmed`` is False."""
    return _r(minor, vision, audio, python, cuda, default, rocm, patches, notes, conf=C if confirmed else U,
              historic=True, source=_PAGE if confirmed else _MEMORY)


# Newest first, like RELEASES. CUDA variants are the Linux x86_64 download.pytorch.org wheels the page lists.
HISTORIC_RELEASES: Tuple[Release, ...] = (
    _old("1.8", "0.9", "0.8", "3.6-3.9", "cu101 cu102 cu111", "cu102", "rocm3.10 rocm4.0.1",
         (_p("1.8.0 0.9.0 0.8.0"), _p("1.8.1 0.9.1 0.8.1"),
          _p("1.8.2 0.9.2 0.8.2", note="LTS: wheels only on download.pytorch.org/whl/lts/1.8/{cu102,cu111,cpu}, "
                                        "Python <= 3.8, no macOS, no ROCm")),
         ("cu101 wheels listed for 1.8.1; for 1.8.0 the page lists only cu102 and cu111 (cu101 UNCONFIRMED)",
          "1.8.0's ROCm 4.0.1 build came without a torchvision wheel (built from source)")),
    _old("1.7", "0.8", "0.7", "3.6-3.9", "cu92 cu101 cu102 cu110", "cu102", "",
         (_p("1.7.0 0.8.0 0.7.0", also=("0.8.1",), note="torchvision 0.8.1 also made for torch 1.7.0 (UNCONFIRMED)"),
          _p("1.7.1 0.8.2 0.7.2")),
         ("Python 3.9 wheels from 1.7.1 on (UNCONFIRMED)", "ROCm wheels of 1.7 not on the page")),
    _old("1.6", "0.7", "0.6", "3.6-3.8", "cu92 cu101 cu102", "cu102", "",
         (_p("1.6.0 0.7.0 0.6.0", ta_conf=U),), (_AUDIO_U, "Python range UNCONFIRMED (from memory)")),
    _old("1.5", "0.6", "0.5", "3.5-3.8", "cu92 cu101 cu102", "cu102", "",
         (_p("1.5.0 0.6.0 0.5.0", ta_conf=U), _p("1.5.1 0.6.1 0.5.1", ta_conf=U)),
         (_AUDIO_U, "the last release with Python 3.5 wheels; Python range UNCONFIRMED (from memory)")),
    _old("1.4", "0.5", "0.4", "2.7-3.8", "cu92 cu101", "cu101", "",
         (_p("1.4.0 0.5.0 0.4.0", ta_conf=U),),
         (_AUDIO_U, "the last release with Python 2.7 wheels: Python 2.7 and 3.5-3.8 (UNCONFIRMED, from memory)")),
    _old("1.3", "0.4", "0.3", "2.7-3.7", "cu92 cu101", "cu101", "",
         (_p("1.3.0 0.4.1 0.3.0", U, U), _p("1.3.1 0.4.2 -", U, U, note="torchaudio for 1.3.1 not known")),
         ("the whole row UNCONFIRMED: " + _MEMORY, _PY27), confirmed=False),
    _old("1.2", "0.4", "", "2.7-3.7", "cu92 cu100", "cu100", "",
         (_p("1.2.0 0.4.0 -"),), ("no torchaudio wheel paired with 1.2", _PY27 + " UNCONFIRMED")),
    _old("1.1", "0.3", "", "2.7-3.7", "cu90 cu100", "cu100", "",
         (_p("1.1.0 0.3.0 -"),), (_DEFAULT_U, "no torchaudio wheel paired with 1.1", _PY27 + " UNCONFIRMED")),
    _old("1.0", "0.2", "", "2.7-3.7", "cu80 cu90 cu100", "cu90", "",
         (_p("1.0.0 0.2.1 -"), _p("1.0.1 0.2.2 -")),
         (_DEFAULT_U, "no torchaudio wheel paired with 1.0", _PY27 + " UNCONFIRMED",
          "cu80 wheels for 1.0.0 only (1.0.1 lists cu90 and cu100)")),
)
