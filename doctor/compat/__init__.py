"""Compatibility knowledge: drivers, CUDA, wheels' GPU architectures, releases, GPU names, and the fix recommender.

Every table row carries a Confidence (CONFIRMED, SECONDARY, UNCONFIRMED) from the reference data, and
findings built on SECONDARY or UNCONFIRMED rows say so.  This module is pure: no torch, no I/O
beyond reading its own bundled data.

Public API (implemented in the submodules, re-exported here):

    Confidence                                  enum CONFIRMED | SECONDARY | UNCONFIRMED
    parse_cc(text) -> (major, minor) | None     "8.6", "sm_86", "compute_86", "86", "sm_90a" -> (9, 0)
    format_cc((8, 6)) -> "8.6"
    driver_cuda_version(driver_version) -> str | None
        highest CUDA the driver branch supports ("550.54.14" -> "12.4", "565.57.01" -> "12.7")
    driver_requirement(cuda_version, system) -> DriverRequirement
        minimum driver to run a wheel built with that CUDA (minor-version compatibility), plus the
        toolkit driver, with confidence
    driver_can_run(driver_version, cuda_version, system) -> bool | None
    split_local_version("2.6.0+cu126") -> ("2.6.0", "cu126")
    wheel_arch_list(torch_version, variant, system, machine) -> ArchList | None
        the official wheel's get_arch_list() tokens with confidence and source
    arch_support(arch_flags, cc, driver_cuda=None) -> ArchSupport
        whether a GPU of compute capability cc can run a build with these tokens (SASS same major,
        minor >= code minor, Tegra exclusions; PTX JIT for newer GPUs when the driver is new enough)
    gpu_cc_from_name(name) -> (major, minor) | None       "NVIDIA GeForce RTX 4080" -> (8, 9)
    release_for_torch(torch_version) -> Release | None    matrix row: torchvision, torchaudio, pythons, variants
    matching_torchvision(torch_version) -> str | None     "2.6.0" -> "0.21.0"
    torch_for_torchvision(torchvision_version) -> str | None
    bundled_cudnn(torch_version, variant) -> int | None   torch.backends.cudnn.version() form
    index_url(variant) -> str                             "https://download.pytorch.org/whl/cu126"
    recommend(ccs, driver_version, system, machine, python_version, current_torch) -> Recommendation
"""

from __future__ import annotations
