"""The catalogue of built-in checks, in report order; the `builtin` entry point of `gpudoctor.checks` names it."""

from __future__ import annotations

from typing import List

from gpudoctor.checks import (
    device_map,
    devices,
    driver,
    driver_state,
    duplicates,
    env_vars,
    gpu_arch,
    gpu_health,
    kernel_pins,
    libs,
    packages,
    paste,
    platform,
    toolkit,
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
    *gpu_arch.CHECKS,
    *torchvision.CHECKS,
    *devices.CHECKS,
    *driver_state.CHECKS,
    *device_map.CHECKS,
    *gpu_health.CHECKS,
    *env_vars.CHECKS,
    *libs.CHECKS,
    *duplicates.CHECKS,
    *packages.CHECKS,
    *kernel_pins.CHECKS,
    *toolkit.CHECKS,
    *windows.CHECKS,
    *platform.CHECKS,
    *paste.CHECKS,
    *verify.CHECKS,
    *verify_distributed.CHECKS,
]
