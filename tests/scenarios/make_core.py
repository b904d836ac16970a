"""Writes the foundation scenario fixtures (facts JSON of machines we do not have): run it, review the diff, commit the JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, Optional, Tuple

from gpudoctor.facts import (
    CompanionFacts,
    Distribution,
    DriverFacts,
    EnvFacts,
    Facts,
    Gpu,
    GpuProcess,
    LibraryFacts,
    Meta,
    PlatformFacts,
    ToolkitFacts,
    TorchDevice,
    TorchFacts,
)

HERE = Path(__file__).resolve().parent
CREATED = "2026-09-28T10:00:00Z"

CU12_DEPS_26 = (
    "nvidia-cuda-nvrtc-cu12==12.6.77; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
    "nvidia-cuda-runtime-cu12==12.6.77; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
    "nvidia-cudnn-cu12==9.5.1.17; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
    "nvidia-cublas-cu12==12.6.4.1; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
    "nvidia-nccl-cu12==2.21.5; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
    "triton==3.2.0; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
)
COMMON_DEPS = ("filelock", "typing-extensions>=4.10.0", "sympy>=1.13.3", "networkx", "jinja2", "fsspec")
ARCH_CU12_SM90 = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
ARCH_CU13 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")


def linux(python: str = "3.11.9", exe: str = "/home/ana/venv/bin/python", distro: str = "Ubuntu 22.04.4 LTS",
          release: str = "6.5.0-41-generic", libc: str = "glibc 2.35", nvidia_nodes: bool = True) -> PlatformFacts:
    return PlatformFacts(
        system="Linux", release=release, machine="x86_64", distro=distro, libc=libc,
        python_version=python, python_executable=exe, python_implementation="CPython",
        wsl=None, container=None, conda_env=None, virtualenv=True,
        dev_nvidia=("/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl") if nvidia_nodes else (),
    )


def nvml_driver(version: str, cuda: str, gpus: int, modules: Tuple[str, ...] = ("nvidia", "nvidia_drm", "nvidia_modeset", "nvidia_uvm")) -> DriverFacts:
    return DriverFacts(source="nvml", version=version, cuda_version=cuda, kernel_module_version=version,
                       kernel_modules=modules, gpu_count=gpus)


def gpu(index: int, name: str, cc: Tuple[int, int], mib: int, bus: str, uuid: str, used: int = 5, **kw: object) -> Gpu:
    fields: Dict[str, object] = dict(
        compute_mode="default", persistence_mode=False, mig_mode=None, pcie_gen_current=4, pcie_gen_max=4,
        pcie_width_current=16, pcie_width_max=16, utilization_percent=0, temperature_c=38,
    )
    fields.update(kw)
    return Gpu(index=index, name=name, uuid=uuid, pci_bus_id=bus, compute_capability=cc, memory_total_mib=mib,
               memory_used_mib=used, **fields)  # type: ignore[arg-type]


def torch_ok(version: str, cuda: Optional[str], arch: Optional[Tuple[str, ...]], cudnn: Optional[int],
             devices: Tuple[TorchDevice, ...], location: str = "/home/ana/venv/lib/python3.11/site-packages/torch",
             warnings: Tuple[str, ...] = (), init_error: Optional[str] = None,
             available: Optional[bool] = None) -> TorchFacts:
    return TorchFacts(
        installed=True, version=version, location=location, cuda=cuda, cuda_compiled=cuda is not None,
        arch_flags=arch, cudnn_version=cudnn, is_available=bool(devices) if available is None else available,
        init_error=init_error, warnings=warnings, device_count=len(devices), devices=devices,
        loaded_libraries=(location + "/lib/libtorch_cpu.so", location + "/lib/libtorch_python.so"),
    )


def vision(version: str, cuda: Optional[str], location: str = "/home/ana/venv/lib/python3.11/site-packages/torchvision",
           **kw: object) -> CompanionFacts:
    return CompanionFacts(installed=True, version=version, location=location, cuda=cuda, **kw)  # type: ignore[arg-type]


def dists(torch: Optional[Tuple[str, Tuple[str, ...]]], vision_dist: Optional[Tuple[str, Tuple[str, ...]]],
          site: str = "/home/ana/venv/lib/python3.11/site-packages", extra: Tuple[Tuple[str, str], ...] = ()) -> Tuple[Distribution, ...]:
    out = []
    if torch:
        out.append(Distribution("torch", torch[0], site, COMMON_DEPS + torch[1]))
    if vision_dist:
        out.append(Distribution("torchvision", vision_dist[0], site, ("numpy",) + vision_dist[1] + ("pillow!=8.3.*,>=5.3.0",)))
    out += [Distribution(name, version, site) for name, version in extra]
    return tuple(out)


def env(**variables: str) -> EnvFacts:
    return EnvFacts(variables=tuple(sorted(variables.items())))


def meta() -> Meta:
    return Meta(gpudoctor_version="0.1.0", created=CREATED, source="live", redacted=False)


def rtx5090_cu126() -> Facts:
    uuid = "GPU-5a1c0d62-7f3e-4b8a-9c51-2e7d9b0f4a11"
    warning = (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation. "
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90. "
        "If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/"
    )
    return Facts(
        meta=meta(), platform=linux(python="3.12.3", distro="Ubuntu 24.04.2 LTS", release="6.8.0-57-generic", libc="glibc 2.39",
                                    exe="/home/ana/venv/bin/python"),
        driver=nvml_driver("570.133.07", "12.8", 1),
        gpus=(gpu(0, "NVIDIA GeForce RTX 5090", (12, 0), 32607, "00000000:01:00.0", uuid, used=412,
                  processes=(GpuProcess(2211, "/usr/lib/xorg/Xorg", 388),)),),
        torch=torch_ok("2.6.0+cu126", "12.6", ARCH_CU12_SM90, 90501,
                       (TorchDevice(0, "NVIDIA GeForce RTX 5090", (12, 0), 32120, 170, uuid, "0000:01:00.0"),),
                       location="/home/ana/venv/lib/python3.12/site-packages/torch", warnings=(warning,)),
        torchvision=vision("0.21.0+cu126", "12.6", location="/home/ana/venv/lib/python3.12/site-packages/torchvision"),
        packages=dists(("2.6.0+cu126", CU12_DEPS_26), ("0.21.0+cu126", ("torch==2.6.0",)),
                       site="/home/ana/venv/lib/python3.12/site-packages",
                       extra=(("nvidia-cudnn-cu12", "9.5.1.17"), ("nvidia-cuda-nvrtc-cu12", "12.6.77"),
                              ("nvidia-cuda-runtime-cu12", "12.6.77"), ("nvidia-cublas-cu12", "12.6.4.1"),
                              ("nvidia-nccl-cu12", "2.21.5"), ("triton", "3.2.0"))),
        libraries=LibraryFacts(libcuda_paths=("/lib/x86_64-linux-gnu/libcuda.so.1",)),
        env=env(),
    )


def gt645m_min35() -> Facts:
    site = "/home/ana/.local/lib/python3.8/site-packages"
    warning = (
        "Found GPU0 NVIDIA GeForce GT 645M which is of cuda capability 3.0. PyTorch no longer supports this GPU "
        "because it is too old. The minimum cuda capability supported by this library is 3.7."
    )
    return Facts(
        meta=meta(), platform=linux(python="3.8.10", exe="/usr/bin/python3", distro="Ubuntu 20.04.6 LTS",
                                    release="5.15.0-107-generic", libc="glibc 2.31"),
        driver=nvml_driver("470.256.02", "11.4", 1),
        gpus=(gpu(0, "NVIDIA GeForce GT 645M", (3, 0), 1999, "00000000:01:00.0", "GPU-0b2e6a41-93d3-c1f0-6d2b-8a7e40c5d913",
                  pcie_gen_max=3),),
        torch=torch_ok("1.12.1+cu102", "10.2", ("sm_37", "sm_50", "sm_60", "sm_70"), 7605,
                       (TorchDevice(0, "NVIDIA GeForce GT 645M", (3, 0), 1999, 2),), location=site + "/torch",
                       warnings=(warning,)),
        torchvision=vision("0.13.1+cu102", "10.2", location=site + "/torchvision"),
        packages=dists(("1.12.1+cu102", ("typing-extensions",)), ("0.13.1+cu102", ("torch (==1.12.1)",)), site=site),
        env=env(),
    )


def driver470_cu121() -> Facts:
    init_error = (
        "The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by "
        "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
        "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
        "version of the CUDA driver."
    )
    return Facts(
        meta=meta(), platform=linux(python="3.10.12", exe="/home/ana/venv/bin/python"),
        driver=nvml_driver("470.82.01", "11.4", 1),
        gpus=(gpu(0, "NVIDIA GeForce RTX 3080", (8, 6), 10240, "00000000:2B:00.0", "GPU-7d4c1f0e-2a6b-11ee-9b3c-0242ac120002"),),
        torch=torch_ok("2.1.2+cu121", "12.1", ARCH_CU12_SM90, None, (), location="/home/ana/venv/lib/python3.10/site-packages/torch",
                       init_error=init_error, available=False),
        torchvision=vision("0.16.2+cu121", "12.1", location="/home/ana/venv/lib/python3.10/site-packages/torchvision"),
        packages=dists(("2.1.2+cu121", ("triton==2.1.0",)), ("0.16.2+cu121", ("torch==2.1.2",)),
                       site="/home/ana/venv/lib/python3.10/site-packages"),
        env=env(),
    )


def cpu_wheel_rtx4080() -> Facts:
    site = "C:\\Users\\ana\\projects\\mnist\\.venv\\Lib\\site-packages"
    return Facts(
        meta=meta(),
        platform=PlatformFacts(system="Windows", release="10.0.26100", machine="AMD64", distro="Windows 11 Pro 24H2",
                               python_version="3.12.10", python_executable="C:\\Users\\ana\\projects\\mnist\\.venv\\Scripts\\python.exe",
                               python_implementation="CPython", virtualenv=True, microsoft_store_python=False),
        driver=DriverFacts(source="nvml", version="576.52", cuda_version="12.9", gpu_count=1),
        gpus=(gpu(0, "NVIDIA GeForce RTX 4080", (8, 9), 16376, "00000000:01:00.0", "GPU-c3a9e2f4-58b1-4d0e-a7f6-91b2d3e4f5a6", used=1021),),
        torch=TorchFacts(installed=True, version="2.13.0+cpu", location=site + "\\torch", cuda=None, cuda_compiled=False,
                         arch_flags=None, cudnn_version=None, is_available=False, device_count=0),
        torchvision=vision("0.28.0+cpu", None, location=site + "\\torchvision"),
        packages=dists(("2.13.0+cpu", ()), ("0.28.0+cpu", ("torch==2.13.0",)), site=site),
        env=env(CUDA_PATH="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"),
        toolkit=ToolkitFacts(nvcc_path="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\nvcc.exe",
                             nvcc_version="12.4", cuda_home="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4",
                             source="CUDA_PATH"),
    )


def nvml_mismatch() -> Facts:
    init_error = (
        "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
        "calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display "
        "driver / cuda driver combination"
    )
    return Facts(
        meta=meta(), platform=linux(python="3.10.12"),
        driver=DriverFacts(source="proc", version=None, cuda_version=None, kernel_module_version="550.54.14",
                           nvml_error="version_mismatch", nvml_error_text="Driver/library version mismatch",
                           smi_error_text="Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.90",
                           kernel_modules=("nvidia", "nvidia_drm", "nvidia_modeset", "nvidia_uvm"), gpu_count=None),
        gpus=(),
        torch=torch_ok("2.4.1+cu121", "12.1", ARCH_CU12_SM90, None, (), location="/home/ana/venv/lib/python3.10/site-packages/torch",
                       init_error=init_error, available=False),
        torchvision=vision("0.19.1+cu121", "12.1", location="/home/ana/venv/lib/python3.10/site-packages/torchvision"),
        packages=dists(("2.4.1+cu121", ("triton==3.0.0",)), ("0.19.1+cu121", ("torch==2.4.1",)),
                       site="/home/ana/venv/lib/python3.10/site-packages"),
        env=env(),
        probe_errors=(("gpus", "NVML could not initialise: Driver/library version mismatch"),),
    )


def cvd_empty_2gpu() -> Facts:
    site = "/home/ana/venv/lib/python3.11/site-packages"
    return Facts(
        meta=meta(), platform=linux(),
        driver=nvml_driver("550.127.05", "12.4", 2),
        gpus=(gpu(0, "NVIDIA GeForce RTX 3090", (8, 6), 24576, "00000000:01:00.0", "GPU-1f6b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"),
              gpu(1, "NVIDIA GeForce RTX 3090", (8, 6), 24576, "00000000:21:00.0", "GPU-9e8d7c6b-5a4f-3e2d-1c0b-a9f8e7d6c5b4")),
        torch=torch_ok("2.5.1+cu124", "12.4", ARCH_CU12_SM90, 90100, (), location=site + "/torch", available=False),
        torchvision=vision("0.20.1+cu124", "12.4", location=site + "/torchvision"),
        packages=dists(("2.5.1+cu124", ("triton==3.1.0",)), ("0.20.1+cu124", ("torch==2.5.1",)), site=site),
        env=env(CUDA_VISIBLE_DEVICES=""),
    )


def healthy_h100() -> Facts:
    site = "/opt/conda/envs/train/lib/python3.12/site-packages"
    uuid = "GPU-3b9f2d1e-8c7a-4f6e-b5d4-c3b2a1f0e9d8"
    return Facts(
        meta=meta(),
        platform=linux(python="3.12.11", exe="/opt/conda/envs/train/bin/python", distro="Ubuntu 24.04.3 LTS",
                       release="6.8.0-79-generic", libc="glibc 2.39"),
        driver=nvml_driver("580.95.05", "13.0", 1),
        gpus=(gpu(0, "NVIDIA H100 80GB HBM3", (9, 0), 81559, "00000000:18:00.0", uuid, used=1, persistence_mode=True,
                  mig_mode=False, pcie_gen_current=5, pcie_gen_max=5, ecc_mode=True, ecc_uncorrected_volatile=0,
                  ecc_uncorrected_aggregate=0),),
        torch=torch_ok("2.14.1+cu130", "13.0", ARCH_CU13, 92400,
                       (TorchDevice(0, "NVIDIA H100 80GB HBM3", (9, 0), 81079, 132, uuid, "0000:18:00.0"),), location=site + "/torch"),
        torchvision=vision("0.29.1+cu130", "13.0", location=site + "/torchvision"),
        packages=dists(("2.14.1", ("cuda-toolkit[cublas,cudart]==13.0.3; platform_system == \"Linux\"",
                                   "nvidia-cudnn-cu13==9.24.0.43; platform_system == \"Linux\"")),
                       ("0.29.1", ("torch>=2.14.0",)), site=site,
                       extra=(("nvidia-cudnn-cu13", "9.24.0.43"), ("cuda-toolkit", "13.0.3"),
                              ("nvidia-cublas", "13.1.0.3"), ("nvidia-cuda-runtime", "13.0.96"), ("triton", "3.8.0"))),
        env=env(),
    )


def torchvision_nms() -> Facts:
    site = "/home/ana/cpu-env/lib/python3.11/site-packages"
    traceback = (
        "Traceback (most recent call last):\n"
        "  File \"<string>\", line 1, in <module>\n"
        f"  File \"{site}/torchvision/__init__.py\", line 10, in <module>\n"
        "    from torchvision import _meta_registrations, datasets, io, models, ops, transforms, utils  # usort:skip\n"
        f"  File \"{site}/torchvision/_meta_registrations.py\", line 163, in <module>\n"
        "    @torch.library.register_fake(\"torchvision::nms\")\n"
        f"  File \"{site}/torch/library.py\", line 1069, in register\n"
        "    use_lib._register_fake(op_name, func, _stacklevel=stacklevel + 1)\n"
        "RuntimeError: operator torchvision::nms does not exist"
    )
    return Facts(
        meta=meta(), platform=linux(exe="/home/ana/cpu-env/bin/python", nvidia_nodes=False),
        driver=DriverFacts(nvml_error="library_not_found", nvml_error_text="NVML Shared Library Not Found",
                           smi_error_text="nvidia-smi not found"),
        torch=torch_ok("2.13.0+cpu", None, None, None, (), location=site + "/torch", available=False),
        torchvision=vision("0.28.0+cu130", None, location=site + "/torchvision",
                           import_error="RuntimeError: operator torchvision::nms does not exist", import_traceback=traceback,
                           ops_error=f"Failed to load '_C' extension: OSError: Could not load this library: "
                                     f"{site}/torchvision/_C.so"),
        packages=dists(("2.13.0+cpu", ()), ("0.28.0", ("torch (==2.13.0)",)), site=site),
        env=env(),
        probe_errors=(("gpus", "NVML library not found"),),
    )


def torch_missing() -> Facts:
    return Facts(
        meta=meta(), platform=linux(python="3.12.3", exe="/home/ana/proj/.venv/bin/python", distro="Ubuntu 24.04.2 LTS",
                                    release="6.8.0-57-generic", libc="glibc 2.39"),
        driver=nvml_driver("575.57.08", "12.9", 1),
        gpus=(gpu(0, "NVIDIA GeForce RTX 4090", (8, 9), 24564, "00000000:01:00.0", "GPU-e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e1f0", used=350),),
        torch=TorchFacts(installed=False, import_error="ModuleNotFoundError: No module named 'torch'"),
        torchvision=CompanionFacts(installed=False),
        torchaudio=CompanionFacts(installed=False),
        env=env(),
    )


def no_gpu_cpu_laptop() -> Facts:
    site = "/home/ana/venv/lib/python3.12/site-packages"
    return Facts(
        meta=meta(), platform=linux(python="3.12.3", exe="/home/ana/venv/bin/python", distro="Ubuntu 24.04.2 LTS",
                                    release="6.8.0-57-generic", libc="glibc 2.39", nvidia_nodes=False),
        driver=DriverFacts(nvml_error="library_not_found", nvml_error_text="NVML Shared Library Not Found",
                           smi_error_text="nvidia-smi not found", kernel_modules=("i915",)),
        torch=torch_ok("2.14.1+cpu", None, None, None, (), location=site + "/torch", available=False),
        torchvision=vision("0.29.1+cpu", None, location=site + "/torchvision"),
        packages=dists(("2.14.1+cpu", ()), ("0.29.1+cpu", ("torch>=2.14.0",)), site=site),
        env=env(),
        probe_errors=(("gpus", "NVML library not found"),),
    )


def build() -> Dict[str, Facts]:
    return {
        "rtx5090-cu126": rtx5090_cu126(),
        "gt645m-min35": gt645m_min35(),
        "driver470-cu121": driver470_cu121(),
        "cpu-wheel-rtx4080": cpu_wheel_rtx4080(),
        "nvml-mismatch": nvml_mismatch(),
        "cvd-empty-2gpu": cvd_empty_2gpu(),
        "healthy-h100": healthy_h100(),
        "torchvision-nms": torchvision_nms(),
        "torch-missing": torch_missing(),
        "no-gpu-cpu-laptop": no_gpu_cpu_laptop(),
    }


def main(argv: list[str]) -> int:
    for name, facts in build().items():
        (HERE / f"{name}.json").write_text(facts.to_json() + "\n", encoding="utf-8")
        print(f"wrote {name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
