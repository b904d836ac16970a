"""The catalogue of built-in checks, in report order; the `builtin` entry point of `gpudoctor.checks` names it."""

from __future__ import annotations

from typing import List

from gpudoctor.checks import (
    devices,
    devices_map,
    driver,
    driver_state,
    env_vars,
    gpu_arch,
    gpu_health,
    libs,
    packages,
    packages_duplicates,
    packages_pins,
    paste,
    paste_jetson,
    paste_jobs,
    paste_kernels,
    paste_libraries,
    platform,
    platform_arch,
    toolkit,
    torch_builds,
    torch_cuda,
    torch_install,
    torchvision,
    verify,
    verify_distributed,
    windows,
)
from gpudoctor.registry import Check

CHECKS: List[Check] = [
    *driver.CHECKS,
    *torch_install.CHECKS,
    *torch_cuda.CHECKS,
    *gpu_arch.CHECKS,
    *torchvision.CHECKS,
    *devices.CHECKS,
    *driver_state.CHECKS,
    *devices_map.CHECKS,
    *gpu_health.CHECKS,
    *env_vars.CHECKS,
    *libs.CHECKS,
    *packages_duplicates.CHECKS,
    *packages.CHECKS,
    *packages_pins.CHECKS,
    *toolkit.CHECKS,
    *windows.CHECKS,
    *platform.CHECKS,
    *platform_arch.CHECKS,
    *torch_builds.CHECKS,
    *paste.CHECKS,
    *paste_jobs.CHECKS,
    *paste_jetson.CHECKS,
    *paste_libraries.CHECKS,
    *paste_kernels.CHECKS,
    *verify.CHECKS,
    *verify_distributed.CHECKS,
]
