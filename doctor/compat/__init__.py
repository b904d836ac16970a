"""Compatibility knowledge: drivers, CUDA, wheels' GPU architectures, releases and GPU names, with their lookups.

Every table row carries a Confidence (CONFIRMED, SECONDARY, UNCONFIRMED) from the reference data, and
findings built on SECONDARY or UNCONFIRMED rows say so.  This module is pure: no torch, no I/O
beyond reading its own bundled data.

Public API (implemented in the submodules, re-exported here):

    Confidence                                  enum CONFIRMED | SECONDARY | UNCONFIRMED
    parse_cc(text) -> (major, minor) | None     "8.6", "sm_86", "compute_86", "86", "sm_90a" -> (9, 0)
    format_cc((8, 6)) -> "8.6"                  ValueError for junk
    driver_cuda_version(driver_version) -> str | None
        highest CUDA the driver branch supports ("550.54.14" -> "12.4", "565.57.01" -> "12.7",
        Windows "551.61" -> "12.4")
    driver_requirement(cuda_version, system) -> DriverRequirement | None
        minimum driver to run a wheel built with that CUDA (minor-version compatibility), plus the
        toolkit driver (needed for PTX JIT), with confidence; None for junk or CUDA < 10
    driver_can_run(driver_version, cuda_version, system) -> bool | None
    split_local_version("2.6.0+cu126") -> ("2.6.0", "cu126")
    wheel_arch_list(torch_version, variant, system, machine) -> ArchList | None
        the official wheel's get_arch_list() tokens with confidence and source
    default_variant(torch_version, system, machine) -> str | None   what PyPI gives ("cpu" off Linux x86_64)
    published_variants(torch_version, system, machine) -> tuple     CUDA variants with wheels there
    variant_serves(variant, cc, system, machine) -> bool | None     any wheel of the variant runs on that GPU
    arch_support(arch_flags, cc, driver_cuda=None, build_cuda=None) -> ArchSupport
        whether a GPU of compute capability cc can run a build with these tokens (SASS same major,
        minor >= code minor, Tegra exclusions; PTX JIT for newer GPUs). An empty arch list gives
        supported False with reason None (undecidable); a junk cc raises ValueError
    gpu_cc_from_name(name) -> (major, minor) | None       "NVIDIA GeForce RTX 4080" -> (8, 9)
    gpu_cc_info(name) -> ((major, minor), Confidence) | None
    gpu_info(name) -> GpuInfo | None                      also ambiguous names (cc None, with a note)
    release_for_torch(torch_version) -> Release | None    matrix row: torchvision, torchaudio, pythons, variants
    pairing(torch_version) -> Pairing | None              torch/torchvision/torchaudio of one patch release
    matching_torchvision(torch_version) -> str | None     "2.6.0" -> "0.21.0"
    matching_torchaudio(torch_version) -> str | None
    torch_for_torchvision(torchvision_version) -> str | None
    bundled_cudnn(torch_version, variant) -> int | None   torch.backends.cudnn.version() form
    index_url(variant) -> str                             "https://download.pytorch.org/whl/cu126"
    variant_cuda("cu126") -> "12.6";  cuda_variant("12.6") -> "cu126"
    torchvision_requirement("0.29.2") -> ">=2.14.0"    the torch requirement a torchvision declares, where recorded
    torchaudio_published("2.11.0", "cu132") -> False    whether an index carries that torchaudio; None: unknown

Where the data ends: DATA_DATE, newest_torch(), newer_than_data(torch_version),
torchvision_newer_than_data(version), horizon_text(what) ("gpudoctor's data ends at torch X (data of D); what
is newer: this rests on its own metadata") and data_line() for reports. published.py holds what PyPI
publishes, rewritten by ``python -m gpudoctor.compat.refresh`` (see refresh.py); pypi.py answers from it.

Also exported: the value types (ArchList, ArchSupport, DriverBranch, DriverRequirement, GpuInfo,
Pairing, Release, CC), RELEASES (newest first: what may be recommended, torch 1.9 on), ALL_RELEASES (RELEASES and
the historic 1.0-1.8 rows that only judge old reports), driver_branch(driver_version),
bundled_cudnn_info(torch_version, variant) -> (version, Confidence, source), cudnn_version_text(90501)
-> "9.5.1", normalise_variant("CU126") -> "cu126".
"""

from __future__ import annotations

from gpudoctor.compat.arch import ArchSupport, arch_support
from gpudoctor.compat.base import CC, Confidence, cuda_variant, normalise_variant, variant_cuda
from gpudoctor.compat.cc import format_cc, parse_cc
from gpudoctor.compat.cudnn import bundled_cudnn, bundled_cudnn_info, cudnn_version_text
from gpudoctor.compat.driver_tables import DriverBranch
from gpudoctor.compat.drivers import (
    DriverRequirement,
    driver_branch,
    driver_can_run,
    driver_cuda_version,
    driver_requirement,
)
from gpudoctor.compat.gpus import GpuInfo, gpu_cc_from_name, gpu_cc_info, gpu_info
from gpudoctor.compat.horizon import (
    data_line,
    horizon_text,
    newer_than_data,
    newest_torch,
    torchvision_newer_than_data,
)
from gpudoctor.compat.published import DATA_DATE
from gpudoctor.compat.releases import (
    ALL_RELEASES,
    RELEASES,
    Pairing,
    Release,
    index_url,
    matching_torchaudio,
    matching_torchvision,
    pairing,
    release_for_torch,
    split_local_version,
    torch_for_torchvision,
    torchaudio_published,
    torchvision_requirement,
)
from gpudoctor.compat.wheels import ArchList, default_variant, published_variants, variant_serves, wheel_arch_list

__all__ = [
    "ALL_RELEASES",
    "CC",
    "DATA_DATE",
    "RELEASES",
    "ArchList",
    "ArchSupport",
    "Confidence",
    "DriverBranch",
    "DriverRequirement",
    "GpuInfo",
    "Pairing",
    "Release",
    "arch_support",
    "bundled_cudnn",
    "bundled_cudnn_info",
    "cuda_variant",
    "cudnn_version_text",
    "data_line",
    "default_variant",
    "driver_branch",
    "driver_can_run",
    "driver_cuda_version",
    "driver_requirement",
    "format_cc",
    "gpu_cc_from_name",
    "gpu_cc_info",
    "gpu_info",
    "horizon_text",
    "index_url",
    "matching_torchaudio",
    "matching_torchvision",
    "newer_than_data",
    "newest_torch",
    "normalise_variant",
    "pairing",
    "parse_cc",
    "published_variants",
    "release_for_torch",
    "split_local_version",
    "torch_for_torchvision",
    "torchaudio_published",
    "torchvision_requirement",
    "torchvision_newer_than_data",
    "variant_cuda",
    "variant_serves",
    "wheel_arch_list",
]
