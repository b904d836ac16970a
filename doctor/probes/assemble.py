"""Assembles the probes' results into the sections of Facts, and merges their probe errors."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from gpudoctor.facts import DriverFacts, DriverSource, Gpu, PlatformFacts
from gpudoctor.probes.installer import probe_installer
from gpudoctor.probes.linux import LinuxResult
from gpudoctor.probes.nvml import NvmlResult
from gpudoctor.probes.platform import PlatformResult, is_store_python
from gpudoctor.probes.python import PythonTarget
from gpudoctor.probes.smi import SmiResult
from gpudoctor.probes.torch import TorchResult

Errors = List[Tuple[str, str]]


def driver_and_gpus(
    nvml: NvmlResult, smi: Optional[SmiResult], linux: LinuxResult, errors: Errors
) -> Tuple[DriverFacts, Tuple[Gpu, ...]]:
    """NVML's view, or nvidia-smi's when NVML could not be used, plus the kernel side from /proc and systemd."""
    driver, gpus = nvml.driver, nvml.gpus
    errors.extend(nvml.errors)
    if not nvml.ok:
        got_smi = smi is not None and smi.driver.source is not None
        if smi is not None:
            driver = replace(
                driver,
                source=smi.driver.source,
                version=smi.driver.version,
                cuda_version=smi.driver.cuda_version,
                smi_error_text=smi.driver.smi_error_text,
                gpu_count=smi.driver.gpu_count,
            )
            gpus = smi.gpus
        if not got_smi:
            errors.extend(("gpus", reason) for section, reason in nvml.errors if section == "driver")
        if smi is not None:
            errors.extend(smi.errors)
    if driver.source is None and linux.kernel_module_version:
        driver = replace(driver, source=DriverSource.PROC.value)
    driver = replace(
        driver,
        kernel_module_version=linux.kernel_module_version,
        kernel_modules=linux.kernel_modules,
        fabric_manager=linux.fabric_manager,
        fabric_manager_version=linux.fabric_manager_version,
    )
    return driver, gpus


def platform_facts(base: PlatformResult, linux: LinuxResult, target: PythonTarget, child: TorchResult) -> PlatformFacts:
    """The OS from this process; the Python, libc and machine from the target interpreter itself."""
    py = child.python
    executable = (py.executable if py else None) or target.executable
    version = (py.version if py else None) or target.version
    found = probe_installer(executable, version, system=base.system)
    return PlatformFacts(
        system=base.system,
        release=base.release,
        machine=(py.machine if py else None) or base.machine,
        distro=base.distro,
        libc=py.libc if py else None,
        python_version=version,
        python_executable=executable,
        python_implementation=py.implementation if py else None,
        wsl=linux.wsl,
        container=linux.container,
        conda_env=py.conda_env if py else None,
        virtualenv=py.virtualenv if py else None,
        dev_nvidia=linux.dev_nvidia if base.system == "Linux" else None,
        microsoft_store_python=is_store_python(executable) if base.system == "Windows" else None,
        installer=found.installer.value if found.installer else None,
        installer_evidence=found.evidence,
        torch_from_conda=found.torch_from_conda,
    )


def merge_errors(errors: Errors) -> Tuple[Tuple[str, str], ...]:
    """One entry per section, in first-seen order; several reasons for a section are joined with "; "."""
    merged: Dict[str, List[str]] = {}
    for section, reason in errors:
        reasons = merged.setdefault(section, [])
        if reason not in reasons:
            reasons.append(reason)
    return tuple((section, "; ".join(reasons)) for section, reasons in merged.items())
