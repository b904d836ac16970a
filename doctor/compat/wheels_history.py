"""GPU architectures of the torch 1.0-1.8 wheels (TORCH_CUDA_ARCH_LIST of pytorch/builder's build scripts).

Builder kept no release branches before 1.8 (lts/release/1.8), so the lists are read from its default branch at
each release's date: SECONDARY, since a release may have been built from a slightly different state. Rows where the
lists changed during the release weeks are UNCONFIRMED. Linux from manywheel/build.sh, Windows from
windows/cudaXY.bat; a Windows variant without a script at the release date is left out.
"""

from __future__ import annotations

from typing import Tuple

from gpudoctor.compat.base import C, Confidence, S, U

_LINUX = "linux-x86_64"
_AT = "pytorch/builder manywheel/build.sh on its default branch at {} (the {} release)"
_LTS = "pytorch/builder lts/release/1.8 manywheel/build.sh"

# Kepler sm_35 era: "3.5;5.0+PTX" plus per-CUDA additions.
_K35_80 = "3.5;5.0+PTX;6.0;6.1"
_K35_90 = "3.5;5.0+PTX;6.0;7.0"
_K35_92 = "3.5;5.0+PTX;6.0;6.1;7.0"
_K35_10 = "3.5;5.0+PTX;6.0;6.1;7.0;7.5"
# From early 2020 the base became "3.7+PTX;5.0" (K80 and newer; K40/K20 sm_35 dropped).
_K37P_92 = "3.7+PTX;5.0;6.0;6.1;7.0"
_K37P_10 = "3.7+PTX;5.0;6.0;6.1;7.0;7.5"
# From July 2020: "3.7;5.0;6.0;7.0" without PTX or 6.1.
_K37 = "3.7;5.0;6.0;7.0"
_K37_75 = "3.7;5.0;6.0;7.0;7.5"
_K37_80 = "3.7;5.0;6.0;7.0;7.5;8.0"
_K37_86 = "3.7;5.0;6.0;7.0;7.5;8.0;8.6"

_WIN = "windows-x86_64"
_WAT = "pytorch/builder windows/cuda{}.bat on its default branch at {}"
_W37_92 = _K37P_92
_W37_10 = _K37P_10
_W37_11 = "3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0"
_W37_111 = "3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0;8.6"

_IN_FLUX = "builder changed these lists between 2020-07-07 and 2020-07-30, during the 1.6 release weeks"

# (platform, torch minors, variants, TORCH_CUDA_ARCH_LIST, confidence, source, note, only these patch releases)
HISTORIC_ARCH_ROWS: Tuple[Tuple[str, str, str, str, Confidence, str, str, str], ...] = (
    (_LINUX, "1.0", "cu80", _K35_80, S, _AT.format("2018-12-05", "1.0.0"), "", ""),
    (_LINUX, "1.0", "cu90", _K35_90, S, _AT.format("2018-12-05", "1.0.0"), "", ""),
    (_LINUX, "1.0", "cu100", _K35_10, S, _AT.format("2019-02-05", "1.0.1"), "", "1.0.1"),
    (_LINUX, "1.0", "cu100", _K35_10, U, _AT.format("2019-02-05", "1.0.1"),
     "builder had no CUDA 10.0 case at the 1.0.0 date; assumed as 1.0.1", ""),
    (_LINUX, "1.1", "cu90", _K35_90, S, _AT.format("2019-04-28", "1.1.0"), "", ""),
    (_LINUX, "1.1", "cu100", _K35_10, S, _AT.format("2019-04-28", "1.1.0"), "", ""),
    (_LINUX, "1.2", "cu92", _K35_92, S, _AT.format("2019-08-06", "1.2.0"), "", ""),
    (_LINUX, "1.2", "cu100", _K35_10, S, _AT.format("2019-08-06", "1.2.0"), "", ""),
    (_LINUX, "1.3", "cu92", _K35_92, S, _AT.format("2019-10-08", "1.3.0"), "", ""),
    (_LINUX, "1.3", "cu101", _K35_10, S, _AT.format("2019-10-08", "1.3.0"), "", ""),
    (_LINUX, "1.4", "cu92", _K37P_92, S, _AT.format("2020-01-13", "1.4.0"), "", ""),
    (_LINUX, "1.4", "cu101", _K37P_10, S, _AT.format("2020-01-13", "1.4.0"), "", ""),
    (_LINUX, "1.5", "cu92", _K37P_92, S, _AT.format("2020-04-19", "1.5.0"), "", ""),
    (_LINUX, "1.5", "cu101 cu102", _K37P_10, S, _AT.format("2020-04-19", "1.5.0"), "", ""),
    (_LINUX, "1.6", "cu92 cu101", _K37, U, _AT.format("2020-07-27", "1.6.0"), _IN_FLUX, ""),
    (_LINUX, "1.6", "cu102", _K37_75, U, _AT.format("2020-07-27", "1.6.0"), _IN_FLUX, ""),
    (_LINUX, "1.7", "cu92", _K37, S, _AT.format("2020-10-26", "1.7.0"), "", ""),
    (_LINUX, "1.7", "cu101 cu102", _K37_75, S, _AT.format("2020-10-26 and 2020-12-09", "1.7.0/1.7.1"), "", ""),
    (_LINUX, "1.7", "cu110", _K37_80, S, _AT.format("2020-10-26 and 2020-12-09", "1.7.0/1.7.1"), "", ""),
    (_LINUX, "1.8", "cu101 cu102", _K37, S, _AT.format("2021-03-02 and 2021-03-24", "1.8.0/1.8.1"), "", ""),
    (_LINUX, "1.8", "cu111", _K37_86, S, _AT.format("2021-03-24", "1.8.1") + "; " + _LTS,
     "1.8.0 cu111 was built while builder's 11.1 list was being pruned (UNCONFIRMED which list it got)", ""),
    (_LINUX, "1.8", "cu102", _K37, C, _LTS, "", "1.8.2"),
    (_LINUX, "1.8", "cu111", _K37_86, C, _LTS, "", "1.8.2"),
    (_WIN, "1.0", "cu80", _K35_80, S, _WAT.format("80", "2018-12-05"), "", ""),
    (_WIN, "1.0", "cu90", _K35_90, S, _WAT.format("90", "2018-12-05"), "", ""),
    (_WIN, "1.0", "cu100", _K35_92, S, _WAT.format("100", "2018-12-05"), "1.0.1 may add 7.5 (UNCONFIRMED)", ""),
    (_WIN, "1.1", "cu90", _K35_90, S, _WAT.format("90", "2019-04-28"), "", ""),
    (_WIN, "1.1", "cu100", _K35_10, S, _WAT.format("100", "2019-04-28"), "", ""),
    (_WIN, "1.2", "cu100", _K35_10, S, _WAT.format("100", "2019-08-06"), "", ""),
    (_WIN, "1.3", "cu92", _K35_92, S, _WAT.format("92", "2019-10-08"), "", ""),
    (_WIN, "1.3", "cu101", _K35_10, S, _WAT.format("101", "2019-10-08"), "", ""),
    (_WIN, "1.4", "cu92", _W37_92, S, _WAT.format("92", "2020-01-13"), "", ""),
    (_WIN, "1.4", "cu101", _W37_10, S, _WAT.format("101", "2020-01-13"), "", ""),
    (_WIN, "1.5 1.6 1.7", "cu92", _W37_92, S, _WAT.format("92", "each release date"), "", ""),
    (_WIN, "1.5 1.6 1.7 1.8", "cu101 cu102", _W37_10, S, _WAT.format("10x", "each release date"), "", ""),
    (_WIN, "1.7", "cu110", _W37_11, S, _WAT.format("110", "2020-10-26 and 2020-12-09"), "", ""),
    (_WIN, "1.8", "cu111", _W37_111, S, _WAT.format("111", "2020-12-09") + "; " + _LTS.replace("manywheel/build.sh",
                                                                                            "windows/cuda111.bat"), "", ""),
    (_WIN, "1.8", "cu102", _W37_10, C, _LTS.replace("manywheel/build.sh", "windows/cuda102.bat"), "", "1.8.2"),
    (_WIN, "1.8", "cu111", _W37_111, C, _LTS.replace("manywheel/build.sh", "windows/cuda111.bat"), "", "1.8.2"),
)
