"""The names of the error messages a paste is read for: stable values that checks read from ``facts.extra``."""

from __future__ import annotations

import enum


class Sig(enum.Enum):
    """A recognised error message; the value is stable and is what checks read from ``facts.extra``."""

    NO_KERNEL_IMAGE = "no-kernel-image"
    SM_INCOMPATIBLE = "sm-incompatible"
    GPU_TOO_OLD = "gpu-too-old"
    DRIVER_INSUFFICIENT = "driver-insufficient"
    DRIVER_TOO_OLD = "driver-too-old"
    NOT_COMPILED = "not-compiled-with-cuda"
    NO_DRIVER = "no-driver"
    NO_DEVICE = "no-device"
    HIP_NO_DEVICE = "hip-no-device"
    ERR_802 = "error-802"
    ERR_803 = "error-803"
    ERR_804 = "error-804"
    ERR_999 = "error-999"
    NVML_MISMATCH = "nvml-mismatch"
    NVML_UNKNOWN = "nvml-unknown-error"
    SMI_NO_DRIVER = "smi-no-driver"
    DOCKER_NO_GPU = "docker-no-gpu-driver"
    INVALID_ORDINAL = "invalid-device-ordinal"
    TORCHVISION_NMS = "torchvision-nms"
    TORCHVISION_CUDA = "torchvision-cuda-mismatch"
    SHADOWED_CUDA = "shadowed-cuda-libs"
    CUDNN_MISSING = "cudnn-missing"
    LIB_MISSING = "cuda-lib-missing"
    LIBCUDA_MISSING = "libcuda-missing"
    WIN_DLL = "windows-dll"
    NO_TORCH = "torch-not-installed"
    DEVICE_BUSY = "device-busy"
    MATH_LIB_INIT = "math-library-init-failed"
    CUDNN_MISMATCH = "cudnn-version-mismatch"
    SECURE_BOOT = "secure-boot"
    PTX_TOOLCHAIN = "ptx-toolchain"
    MODULE_MISSING = "kernel-module-missing"
    UVM_MISSING = "uvm-not-loaded"
    CONTAINER_NO_DRIVER = "container-without-driver"  # an NGC image's banner: the container reaches no driver
    DOCKER_GPUS_FLAG = "docker-gpus-flag"
    TOOLKIT_TIMEOUT = "container-toolkit-timeout"
    EXT_TOOLKIT = "extension-toolkit-mismatch"
    EXT_NEWER_TOOLKIT = "extension-newer-toolkit"  # built with a newer CUDA than the libcudart it loads
    PAGING_FILE = "windows-paging-file"
    GPU_LOST = "gpu-fell-off-the-bus"
    FLASH_ATTN_ARCH = "flash-attn-needs-ampere"
    FLASH_ATTN_ABI = "flash-attn-abi"
    TORCHAUDIO_ABI = "torchaudio-abi"
    EXTENSION_ABI = "extension-abi"
    TORCH_FILES_MIXED = "torch-files-mixed"
    XFORMERS_MISMATCH = "xformers-mismatch"
    ARCH_MISMATCH = "incompatible-architecture"
    BNB_NO_GPU = "bitsandbytes-without-gpu"
    CUDA_HOME_UNSET = "cuda-home-unset"
    CUDA_UNAVAILABLE = "cuda-unavailable"
    CONTAINER_CLI = "container-toolkit-no-driver"
    TORCH_NOT_FOUND = "torch-version-not-found"
    OUT_OF_MEMORY = "out-of-memory"
    DEVICE_ASSERT = "device-side-assert"
    MISALIGNED = "misaligned-address"
    LAUNCH_CONFIG = "invalid-launch-configuration"
    GPU_SLOWER = "gpu-slower-than-cpu"
    GPU_STARVED = "gpu-waits-for-data"
    SAID_UNUSED = "gpu-unused-unexplained"  # the reporter says the GPU is not found or used; no message says why
    GLIBCXX = "libstdcxx-too-old"
    UNCALLED = "is-available-not-called"
    COLAB_NO_GPU = "colab-no-gpu"
    VM_NO_GPU = "vm-no-gpu"
    BUILD_NO_GPU = "gpu-check-at-build"  # a GPU check inside `docker build`, whose steps get no GPU  # a desktop hypervisor's guest, which gets no GPU
    EXT_BUILD_NO_CUDA = "extension-build-without-cuda"
    DUPLICATE_GPU = "ranks-share-a-gpu"
    NCCL_P2P = "nccl-peer-access"
    NVCC_ARCH = "nvcc-unsupported-arch"
    ECC_UNCORRECTABLE = "uncorrectable-ecc"  # the GPU's memory reported an uncorrectable error
    NVRTC_ARCH = "nvrtc-unknown-arch"  # torch's run-time compiler (NVRTC, of torch's CUDA) does not know the GPU
    ILLEGAL_ACCESS = "illegal-memory-access"
    BF16_UNSUPPORTED = "bfloat16-needs-ampere"
    FP16_SLOW = "float16-not-efficient"  # CTranslate2 (faster-whisper): the GPU has no fast float16
    CUDNN_PLAN = "cudnn-plan-declined"
    HIP_NO_KERNEL = "hip-no-kernel"  # a ROCm build without kernels for the AMD GPU's gfx target
    NCCL_NOT_BUILT = "nccl-not-built"  # the nccl backend asked of a torch without NCCL (Windows, macOS, CPU builds)
    LIBRARY_CPU = "library-cpu-build"  # onnxruntime, JAX, DGL, PaddlePaddle installed as their CPU-only packages
    TV_OPS_UNIMPORTED = "torchvision-ops-not-imported"  # torch.ops.torchvision.* called where torchvision was not imported
    CUDNN_INFER_WARNING = "cudnn-cnn-infer-warning"  # torch's cuDNN frontend warning: one plan refused, another used
    CUFFT_INTERNAL = "cufft-internal-error"
    NCCL_SYSTEM = "nccl-system-error"
    NCCL_CUDA = "nccl-cuda-error"
    CONDA_NO_CUDA = "conda-no-cudatoolkit"
    LINK_CUDA = "linker-without-cuda-libs"
    DEVICE_MISMATCH = "tensors-on-different-devices"
    SPAWN_GUARD = "spawn-without-main-guard"
    FORKED_CUDA = "cuda-in-forked-subprocess"
    LOADER_SHM = "dataloader-shared-memory"
    RAY_NO_GPU = "ray-task-without-gpu"  # "No CUDA GPUs are available" in a Ray task started without a GPU
    TRITON_CUDA = "triton-misreads-cuda"  # a Triton release that does not know the CUDA version it finds
    NAN_HALF = "nans-in-half-precision"  # a web UI's NansException: the model's half precision, not the install
    TRITON_MISSING = "triton-not-available"  # xFormers without a matching Triton: only its Triton kernels are off
    TRITON_OLD_GPU = "gpu-too-old-for-triton"  # torch.compile's Triton backend on a GPU below compute capability 7.0
    CUDA_MALLOC = "cuda-malloc-unsupported"  # cudaMallocAsync, which ComfyUI turns on, refused by the GPU or driver
    HOST_COMPILER = "nvcc-host-compiler"  # nvcc refusing a gcc or Visual Studio newer than it supports
    NVRTC_WORKAROUND = "cudnn-nvrtc-workaround"  # torch's cuDNN path without an unversioned libnvrtc.so: a warning
    DTYPE_MISMATCH = "tensors-of-different-dtypes"  # "expected scalar type Half but found Float": the code's dtypes
    GPU_LOADED = "model-loaded-on-gpu"
