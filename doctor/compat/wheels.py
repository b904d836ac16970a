"""GPU architectures compiled into the official torch wheels, per release, variant, OS and CPU architecture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from gpudoctor.compat.base import (
    C,
    Confidence,
    S,
    U,
    normalise_machine,
    normalise_system,
    normalise_variant,
    variant_cuda,
)
from gpudoctor.compat.cc import tokens_from_arch_list
from gpudoctor.compat.published import INDEX_WHEELS
from gpudoctor.compat.releases import release_for_torch, split_local_version
from gpudoctor.compat.wheel_index import variants_from_rows
from gpudoctor.compat.wheels_history import HISTORIC_ARCH_ROWS


@dataclass(frozen=True)
class ArchList:
    """What torch.cuda.get_arch_list() returns for an official wheel, and how sure that is."""

    tokens: Tuple[str, ...]  # ("sm_50", ..., "compute_120"); () for a CPU build
    confidence: Confidence
    source: str
    variant: str = ""
    cuda: Optional[str] = None  # the CUDA the wheel was built with, "12.6"
    note: str = ""


LINUX_X86 = "linux-x86_64"
LINUX_ARM = "linux-aarch64"
WINDOWS = "windows-x86_64"

_K37_70 = "3.7;5.0;6.0;7.0"
_K37_86 = "3.7;5.0;6.0;7.0;7.5;8.0;8.6"
_M50_90 = "5.0;6.0;7.0;7.5;8.0;8.6;9.0"
_K118 = "5.0;6.0;7.0;7.5;8.0;8.6;3.7;9.0"
_V70_120 = "7.0;7.5;8.0;8.6;9.0;10.0;12.0"
_T75_120 = "7.5;8.0;8.6;9.0;10.0;12.0"
_ARM13 = "8.0;9.0;10.0;11.0;12.0"
_W11 = "3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0;8.6"
_W118 = "3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0"
_W12 = "5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0"

_BUILDER = "pytorch/builder release/{} manywheel/build.sh, build_cuda.sh"
_MOI90 = "cuobjdump of the pytorch/pytorch 2.6.0/2.7.0 docker images (moi90/pytorch_compute_capabilities)"
_CI = "pytorch/pytorch .ci/manywheel/build_cuda.sh (2.8 set)"
_RELMD = "RELEASE.md matrix 'For Release 2.9 and 2.10' (removed in PR #175253)"
_CODE_CC = "PYTORCH_RELEASES_CODE_CC in torch 2.13.0/2.14.1 torch/cuda/__init__.py"
_NO_PTX_KNOWN = "release wheels' compute_120 PTX UNCONFIRMED"
_WIN_BAT = "pytorch/builder and pytorch/pytorch windows/cuda1xx.bat"
_WIN130 = "pytorch/pytorch .ci/pytorch/windows/cuda130.bat; no PTX on Windows"
_CU129 = "cu129 wheels built on test-infra release/2.9-2.13's test channel (build_matrix.py); arch list UNCONFIRMED"
# 2.7's and 2.8's only aarch64 CUDA builds: test-infra's go-live matrices list 12.8-aarch64 (2.7) and
# 12.9-aarch64 (2.8) alone, as does pytorch/pytorch's 2.7-era CUDA_AARCH64_ARCHES.
_ARM28 = "test-infra 2.8 go-live matrix (12.9-aarch64 only); arch list as aarch64 cu128 of 2.7 (PR #146378)"

# (platform, torch minors, variants, TORCH_CUDA_ARCH_LIST, confidence, source, note, only these patch releases)
_ROWS: Tuple[Tuple[str, str, str, str, Confidence, str, str, str], ...] = (
    (LINUX_X86, "1.9 1.10 1.11 1.12", "cu102", _K37_70, C, _BUILDER.format("1.9-1.12"), "", ""),
    (LINUX_X86, "1.9 1.10", "cu111", _K37_86, C, _BUILDER.format("1.9, 1.10"), "", ""),
    (LINUX_X86, "1.10", "cu113", _K37_86, U, _BUILDER.format("1.10"), "pip cu113 wheels for 1.10 UNCONFIRMED", ""),
    (LINUX_X86, "1.11 1.12", "cu113", _K37_86, C, _BUILDER.format("1.11, 1.12"), "", ""),
    (LINUX_X86, "1.11", "cu115", _K37_86, U, _BUILDER.format("1.11"), "pip cu115 wheels UNCONFIRMED", ""),
    (LINUX_X86, "1.12", "cu116", _K37_86, C, _BUILDER.format("1.12"), "", ""),
    (LINUX_X86, "1.13", "cu116 cu117", _K37_86, C, _BUILDER.format("1.13"), "", ""),
    (LINUX_X86, "2.0", "cu117", _K37_86, C, _BUILDER.format("2.0"), "", ""),
    (LINUX_X86, "2.0", "cu118", "3.7;5.0;6.0;7.0;7.5;8.0;8.6;9.0", C, _BUILDER.format("2.0"), "", ""),
    (LINUX_X86, "2.1 2.2 2.3 2.4 2.5", "cu118", _K118, C, _BUILDER.format("2.1-2.5"), "", ""),
    (LINUX_X86, "2.1 2.2 2.3 2.4 2.5", "cu121", _M50_90, C, _BUILDER.format("2.1-2.5"), "", ""),
    (LINUX_X86, "2.4 2.5", "cu124", _M50_90, C, _BUILDER.format("2.4, 2.5"), "", ""),
    (LINUX_X86, "2.6 2.7", "cu118", _K118, S, _MOI90, "", ""),
    (LINUX_X86, "2.6", "cu124 cu126", _M50_90, S, _MOI90, "", ""),
    (LINUX_X86, "2.7", "cu126", _M50_90, S, _MOI90, "", ""),
    (LINUX_X86, "2.7", "cu128", _T75_120 + "+PTX", S, "two user outputs of 2.7.1+cu128 get_arch_list()", "", ""),
    (LINUX_X86, "2.8", "cu126", _M50_90, C, _CI, "", ""),
    (LINUX_X86, "2.8", "cu128", _V70_120, C, _CI, "", ""),
    (LINUX_X86, "2.8", "cu129", _V70_120, C, _CI, "12.0+PTX on main; " + _NO_PTX_KNOWN, ""),
    (LINUX_X86, "2.9 2.10", "cu126", _M50_90, C, _RELMD, "", ""),
    (LINUX_X86, "2.9 2.10", "cu128", _V70_120, C, "maintainer output of 2.10.0+cu128 (#182250)", "", ""),
    (LINUX_X86, "2.9 2.10", "cu130", _T75_120, C, "RELEASE.md (12.0+PTX on Linux)", _NO_PTX_KNOWN, ""),
    (LINUX_X86, "2.11", "cu126", _M50_90, C, "maintainer output of 2.11.0+cu126 (#182250)", "", ""),
    (LINUX_X86, "2.11", "cu128", _T75_120, C, "maintainer output of 2.11.0+cu128 (#182250)", "", ""),
    (LINUX_X86, "2.11", "cu130", _T75_120, C, "PR #175567 (PTX removed in release)", "", ""),
    (LINUX_X86, "2.12 2.13 2.14", "cu126", _M50_90, C, _CODE_CC, "", ""),
    (LINUX_X86, "2.13", "cu130", _T75_120 + "+PTX", C, "PR #188925: 2.13.0 cu130 shipped 12.0+PTX", "", "2.13.0"),
    (LINUX_X86, "2.12 2.13 2.14", "cu130 cu132", _T75_120, C, _CODE_CC + "; the 2.14.1+cu130 wheel", "", ""),
    (LINUX_X86, "2.13", "cu129", _T75_120, C, "pytorch/test-infra release/2.13 build matrix; PR #188443", "", ""),
    (LINUX_X86, "2.9 2.10", "cu129", _V70_120, U, "as cu128 of the release (test-infra builds cu129)", _CU129, ""),
    (LINUX_X86, "2.11", "cu129", _T75_120, U, "as cu128 of the release (test-infra builds cu129)", _CU129, ""),
    (LINUX_X86, "2.12", "cu129", _T75_120, U, "as cu129 of 2.13 (test-infra release/2.12)", _CU129, "2.12.1"),
    (LINUX_X86, "2.15", "cu132", _T75_120, C, "the torch 2.15.0 wheel (kernels sm_75..sm_120, no PTX)", "", ""),
    (LINUX_X86, "2.15", "cu130", _T75_120, S, "as cu132 of 2.15; cu130 of 2.12-2.14", "", ""),
    (LINUX_ARM, "2.4 2.5", "cu124", "9.0", U, _BUILDER.format("2.4"), "release wheels for aarch64 UNCONFIRMED", ""),
    (LINUX_ARM, "2.6", "cu126", "9.0", S, "PR diff .ci/aarch64_linux/aarch64_ci_build.sh", "", ""),
    (LINUX_ARM, "2.9 2.10 2.11 2.12", "cu126", "8.0;9.0", S, "PR #163764 / #162455", "", ""),
    (LINUX_ARM, "2.13 2.14", "cu126", "8.0;9.0", C, _CODE_CC, "", ""),
    (LINUX_ARM, "2.7 2.9 2.10", "cu128", "9.0;10.0;12.0", S, "PR #146378", "", ""),
    (LINUX_ARM, "2.8", "cu129", "9.0;10.0;12.0", U, _ARM28, _CU129, ""),
    (LINUX_ARM, "2.11", "cu128", "8.0;9.0;10.0;12.0", S, "RELEASE.md 2.11 aarch64 table (#172663)", "", ""),
    (LINUX_ARM, "2.9 2.10", "cu130", _ARM13, U, "PR #164471 review", "sm_110 for 2.9/2.10 UNCONFIRMED", ""),
    (LINUX_ARM, "2.11 2.12", "cu130", _ARM13, S, "RELEASE.md aarch64 tables", "PTX UNCONFIRMED", ""),
    (LINUX_ARM, "2.12", "cu132", _ARM13, S, "RELEASE.md aarch64 tables", "PTX UNCONFIRMED", ""),
    (LINUX_ARM, "2.13 2.14", "cu130 cu132", _ARM13, C, _CODE_CC, "PTX UNCONFIRMED", ""),
    (LINUX_ARM, "2.15", "cu130 cu132", _ARM13, S, "as 2.14 (" + _CODE_CC + ")", "PTX UNCONFIRMED", ""),
    (LINUX_ARM, "2.9 2.10 2.11 2.13", "cu129", "8.0;9.0;10.0;12.0", U, "as aarch64 cu128 of 2.11", _CU129, ""),
    (LINUX_ARM, "2.12", "cu129", "8.0;9.0;10.0;12.0", U, "as aarch64 cu128 of 2.11", _CU129, "2.12.1"),
    (WINDOWS, "1.9 1.10 1.11 1.12", "cu102", "3.7+PTX;5.0;6.0;6.1;7.0;7.5", C, _WIN_BAT, "", ""),
    (WINDOWS, "1.9 1.10", "cu111", _W11, C, _WIN_BAT, "", ""),
    (WINDOWS, "1.10", "cu113", _W11, U, _WIN_BAT, "pip cu113 wheels for 1.10 UNCONFIRMED", ""),
    (WINDOWS, "1.11 1.12", "cu113", _W11, C, _WIN_BAT, "", ""),
    (WINDOWS, "1.11", "cu115", _W11, C, _WIN_BAT, "", ""),
    (WINDOWS, "1.12", "cu116", _W11, C, _WIN_BAT, "", ""),
    (WINDOWS, "1.13", "cu116 cu117", _W11, C, _WIN_BAT, "", ""),
    (WINDOWS, "2.0", "cu117", _W11, C, _WIN_BAT, "", ""),
    (WINDOWS, "2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7", "cu118", _W118, C, _WIN_BAT, "", ""),
    (WINDOWS, "2.1 2.2 2.3 2.4 2.5", "cu121", _W12, C, _WIN_BAT, "", ""),
    (WINDOWS, "2.4 2.5", "cu124", _W12, C, _WIN_BAT, "", ""),
    (WINDOWS, "2.6", "cu124", _W12, U, "assumed as the 2.4-2.5 cuda124.bat", "", ""),
    (WINDOWS, "2.6 2.7 2.8", "cu126", _W12, C, "pytorch/pytorch .ci/pytorch/windows/cuda126.bat", "", ""),
    (WINDOWS, "2.7", "cu128", _T75_120, U, "one stored .ci/pytorch/windows/cuda128.bat version", "", ""),
    (WINDOWS, "2.8", "cu128 cu129", _V70_120, S, "PR #158126 text", "", ""),
    (WINDOWS, "2.9 2.10 2.11", "cu126", _M50_90, U, "PR #160644 (one list for Linux and Windows)", "", ""),
    (WINDOWS, "2.12 2.13 2.14", "cu126", _M50_90, S, _CODE_CC + " (x86_64)", "", ""),
    (WINDOWS, "2.9 2.10", "cu128", _V70_120, S, "PR #164470", "", ""),
    (WINDOWS, "2.11", "cu128", _T75_120, S, "PR #164470, #160644 (as Linux)", "", ""),
    (WINDOWS, "2.9 2.10 2.11 2.12 2.13 2.14", "cu130", _T75_120, C, _WIN130, "", ""),
    (WINDOWS, "2.12 2.13 2.14", "cu132", _T75_120, S, _CODE_CC + " (x86_64); no PTX on Windows", "", ""),
    (WINDOWS, "2.15", "cu130 cu132", _T75_120, S, "as Linux x86_64 of 2.15; no PTX on Windows", "", ""),
)

_ROCM_GFX = {
    "rocm6.0": "gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100",
    "rocm6.1": "gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101",
    "rocm6.2": "gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100",
    "rocm6.2.4": "gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101 gfx1102 gfx1200 gfx1201",
    "rocm6.3": "gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101 gfx1102 gfx1200 gfx1201",
}


def _index() -> Dict[Tuple[str, str, str, str], ArchList]:
    table: Dict[Tuple[str, str, str, str], ArchList] = {}
    for platform, minors, variants, arch, conf, source, note, patch in _ROWS + HISTORIC_ARCH_ROWS:
        tokens = tokens_from_arch_list(arch)
        for minor in minors.split():
            for variant in variants.split():
                item = ArchList(tokens, conf, source, variant, variant_cuda(variant), note)
                table[(platform, minor, variant, patch)] = item
    return table


_TABLE = _index()


def platform_key(system: Optional[str], machine: Optional[str]) -> Optional[str]:
    """ "linux-x86_64" | "linux-aarch64" | "windows-x86_64" for platforms with CUDA wheels, else None."""
    os_name, arch = normalise_system(system), normalise_machine(machine)
    if os_name == "Linux" and arch in ("x86_64", "aarch64"):
        return f"linux-{arch}"
    if os_name == "Windows" and arch == "x86_64":
        return WINDOWS
    return None


def default_variant(torch_version: Optional[str], system: Optional[str], machine: Optional[str]) -> Optional[str]:
    """What a plain `pip install torch==X` from PyPI gets: Linux x86_64 the release's CUDA default; else "cpu".

    Windows and macOS PyPI wheels are CPU-only (MPS on Apple silicon); Linux aarch64 PyPI wheels are CPU-only
    before 2.11 (pytorch/pytorch#160162, #168065) and CUDA 13 builds from 2.11 on (the wheels' metadata).
    None for unknown releases or platforms.
    """
    release = release_for_torch(torch_version)
    os_name, arch = normalise_system(system), normalise_machine(machine)
    if release is None or os_name is None:
        return None
    if os_name == "Linux":
        if arch == "x86_64":
            return release.pypi_default
        return release.aarch64_default if arch == "aarch64" else None
    return "cpu"


def wheel_arch_list(torch_version: Optional[str], variant: Optional[str] = None, system: Optional[str] = "Linux",
                    machine: Optional[str] = "x86_64") -> Optional[ArchList]:
    """The official wheel's get_arch_list() tokens, with confidence and source; None when not known.

    ``variant`` None means the local part of ``torch_version`` ("2.6.0+cu126"), else the PyPI default for that
    OS and machine. A CPU build answers an empty token tuple; ROCm builds answer their gfx targets where known.
    """
    public, local = split_local_version(torch_version or "")
    release = release_for_torch(public)
    chosen = normalise_variant(variant or local or default_variant(public, system, machine))
    if release is None or chosen is None:
        return None
    if chosen == "cpu":
        return ArchList((), C, "CPU-only build: no CUDA kernels", "cpu")
    if chosen.startswith("rocm"):
        gfx = _ROCM_GFX.get(chosen)
        if gfx is None:
            return None
        return ArchList(tuple(gfx.split()), S, "astral-sh/uv crates/uv-torch backend.rs", chosen)
    platform = platform_key(system, machine)
    if platform is None:
        return None
    patch = public if public.count(".") == 2 else f"{release.minor}.0"
    return _TABLE.get((platform, release.minor, chosen, patch)) or _TABLE.get((platform, release.minor, chosen, ""))


def variant_serves(variant: str, cc: Tuple[int, int], system: Optional[str] = None,
                   machine: Optional[str] = None) -> Optional[bool]:
    """Whether any official wheel of this CUDA variant ("cu124") has kernels a GPU of compute capability ``cc`` runs,
    on this platform (every platform when it is not known); None when the data holds no wheel of the variant."""
    from gpudoctor.compat.arch import arch_support

    known = platform_key(system, machine)
    lists = [item for (platform, _, chosen, _), item in _TABLE.items()
             if chosen == variant and (known is None or platform == known)]
    if not lists:
        return None
    return any(arch_support(item.tokens, cc, build_cuda=item.cuda).supported for item in lists)


def published_variants(torch_version: Optional[str], system: Optional[str], machine: Optional[str]) -> Tuple[str, ...]:
    """The CUDA variants of a release with wheels for this OS and machine (in the release's order).

    Where the refreshed data holds the PyTorch wheel index's listing for that release, only the variants it
    lists count.
    """
    release = release_for_torch(torch_version)
    platform = platform_key(system, machine)
    if release is None or platform is None:
        return ()
    latest = release.latest.torch
    listed = variants_from_rows(INDEX_WHEELS, "torch", latest, platform)
    return tuple(v for v in release.cuda_variants
                 if ((platform, release.minor, v, "") in _TABLE or (platform, release.minor, v, latest) in _TABLE)
                 and (not listed or v in listed))  # a read wheel index outranks the hand-kept rows
