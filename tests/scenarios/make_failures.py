"""Writes scenario fixtures for failures of the reference list not covered elsewhere: run it, review, commit the JSON."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Dict

from make_core import (
    ARCH_CU13,
    CU12_DEPS_26,
    dists,
    env,
    gpu,
    linux,
    meta,
    nvml_driver,
    torch_ok,
    vision,
)

from gpudoctor.facts import DriverFacts, Facts, LibraryFacts, TorchDevice

HERE = Path(__file__).resolve().parent
SITE = "/home/ana/venv/lib/python3.11/site-packages"
ARCH_CU111 = ("sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86")


def driver_insufficient() -> Facts:
    """failures.md #6: an old driver under a CUDA 11 wheel, seen as 'driver version is insufficient'."""
    error = ("CUDA initialization: CUDA driver version is insufficient for CUDA runtime version "
             "(Triggered internally at  /pytorch/c10/cuda/CUDAFunctions.cpp:115.)")
    return Facts(
        meta=meta(), platform=linux(python="3.8.10", exe="/home/ana/venv/bin/python", distro="Ubuntu 18.04.6 LTS",
                                    release="4.15.0-213-generic", libc="glibc 2.27"),
        driver=nvml_driver("418.226.00", "10.1", 1),
        gpus=(gpu(0, "GeForce GTX 1080 Ti", (6, 1), 11178, "00000000:01:00.0", "GPU-6f1e2d3c-4b5a-4c6d-8e7f-9a0b1c2d3e4f"),),
        torch=torch_ok("1.9.0+cu111", "11.1", ARCH_CU111, 8005, (), location=SITE + "/torch", init_error=error,
                       available=False),
        torchvision=vision("0.10.0+cu111", "11.1"),
        packages=dists(("1.9.0+cu111", ()), ("0.10.0+cu111", ("torch==1.9.0",)), site=SITE),
        libraries=LibraryFacts(libcuda_paths=("/usr/lib/x86_64-linux-gnu/libcuda.so.1",)),
        env=env(),
    )


def torchvision_cuda_major() -> Facts:
    """failures.md #9: torchvision built with another CUDA major than torch."""
    error = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. "
             "PyTorch has CUDA Version=12.1 and torchvision has CUDA Version=11.8. "
             "Please reinstall the torchvision that matches your PyTorch install.")
    uuid = "GPU-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    return Facts(
        meta=meta(), platform=linux(),
        driver=nvml_driver("535.183.01", "12.2", 1),
        gpus=(gpu(0, "NVIDIA GeForce RTX 3090", (8, 6), 24576, "00000000:01:00.0", uuid),),
        torch=torch_ok("2.1.2+cu121", "12.1", ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"), 8902,
                       (TorchDevice(0, "NVIDIA GeForce RTX 3090", (8, 6), 24135, 82, uuid, "00000000:01:00.0"),),
                       location=SITE + "/torch"),
        torchvision=vision("0.16.2+cu118", None, import_error=error),
        packages=dists(("2.1.2+cu121", ()), ("0.16.2+cu118", ("torch==2.1.2",)), site=SITE),
        env=env(),
    )


def no_driver() -> Facts:
    """failures.md #21: an NVIDIA GPU on the PCI bus and no kernel driver loaded."""
    error = ("CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
             "and installed a driver from http://www.nvidia.com/Download/index.aspx")
    return Facts(
        meta=meta(), platform=linux(python="3.12.3", distro="Ubuntu 24.04.2 LTS", release="6.8.0-57-generic",
                                    libc="glibc 2.39", nvidia_nodes=False),
        driver=DriverFacts(nvml_error="driver_not_loaded", nvml_error_text="Driver Not Loaded",
                           smi_error_text="NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                           "Make sure that the latest NVIDIA driver is installed and running.",
                           kernel_modules=()),
        torch=torch_ok("2.14.1+cu130", "13.0", ARCH_CU13, 92400, (), location=SITE + "/torch", init_error=error,
                       available=False),
        torchvision=vision("0.29.1+cu130", "13.0"),
        packages=dists(("2.14.1+cu130", ()), ("0.29.1+cu130", ("torch>=2.14.0",)), site=SITE),
        env=env(),
        extra=(("nvidia_pci", "0000:01:00.0 10de:2786 0300"),),
    )


def v100_on_cu130() -> Facts:
    """failures.md #4 and #23: Volta on a cu130 wheel; a bare ==2.13.0 reinstall would keep +cu130."""
    uuid = "GPU-7c6b5a49-3827-4615-9a0b-c1d2e3f40516"
    warning = (
        "Found GPU0 Tesla V100-SXM2-16GB which is of compute capability (CC) 7.0. The following list shows the CCs "
        "this version of PyTorch was built for and the hardware CCs it supports: 7.5 which supports hardware CC >=7.5,<8.0 "
        "... Your installed torch==2.13.0 does not include kernels for this GPU. Reinstall the same version against a CUDA "
        "build that does, e.g.: For CUDA 12.6 use pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu126"
    )
    base = torchvision_cuda_major()
    return replace(
        base,
        driver=nvml_driver("580.95.05", "13.0", 1),
        gpus=(gpu(0, "Tesla V100-SXM2-16GB", (7, 0), 16384, "00000000:00:1E.0", uuid),),
        torch=torch_ok("2.13.0+cu130", "13.0", ARCH_CU13 + ("compute_120",), 92000,
                       (TorchDevice(0, "Tesla V100-SXM2-16GB", (7, 0), 15970, 80, uuid, "00000000:00:1E.0"),),
                       location=SITE + "/torch", warnings=(warning,)),
        torchvision=vision("0.28.0+cu130", "13.0"),
        packages=dists(("2.13.0+cu130", ()), ("0.28.0+cu130", ("torch==2.13.0",)), site=SITE),
    )


def build() -> Dict[str, Facts]:
    return {
        "failure06-driver-insufficient": driver_insufficient(),
        "failure09-torchvision-cuda-major": torchvision_cuda_major(),
        "failure21-no-driver": no_driver(),
        "failure23-v100-cu130": v100_on_cu130(),
    }


def main() -> int:
    for name, facts in build().items():
        (HERE / f"{name}.json").write_text(facts.to_json() + "\n", encoding="utf-8")
        print(f"wrote {name}.json")
    return 0


if __name__ == "__main__":
    _ = CU12_DEPS_26
    sys.exit(main())
