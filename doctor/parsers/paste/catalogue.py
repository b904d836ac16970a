"""The error messages a paste is read for: each known message, its cheap pre-test, its pattern, what it means,
and the fact its line is evidence for. The order is load-bearing: a line is named by the first message it matches."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional, Pattern, Tuple

from gpudoctor.parsers.paste.sigs import Sig

__all__ = ["BY_SIG", "CATALOGUE", "IMPORT", "INIT", "WARN", "Sig", "Signature"]


@dataclass(frozen=True)
class Signature:
    """``literal`` is a cheap pre-test; ``regex`` the message, matched ignoring case; ``target`` the fact the
    matched line is evidence for (None: the signature itself is the fact); ``healthy`` marks messages that only a
    working CUDA stack can print."""

    sig: Sig
    literal: str
    regex: str
    cause: str
    target: Optional[str] = None
    healthy: bool = False

    @functools.cached_property
    def pattern(self) -> Pattern[str]:
        """The compiled message, on first use: a paste is tested only for the messages whose pre-test word it
        holds, so most of the catalogue is never compiled in a run, and compiling it all was part of start-up."""
        return re.compile(self.regex, re.I)


def _s(sig: Sig, literal: str, pattern: str, cause: str, target: Optional[str] = None, healthy: bool = False) -> Signature:
    return Signature(sig, literal.lower(), pattern, cause, target, healthy)


_UNAVAILABLE = "torch cannot use a GPU here (a framework or torch says so), and the paste does not show why"
INIT, IMPORT, WARN = "torch.init_error", "torch.import_error", "torch.warnings"
# causes that several messages share
_HIP = "HIP (ROCm) finds no GPU"
_BUSY = "the GPU is in exclusive compute mode and another process holds it, or it is prohibited"
_LOST = "the GPU stopped responding to the driver (power, cooling, PCIe link or firmware)"
_OOM = "the GPU works but ran out of memory: reduce the batch size or model size"
_COLAB = "the Colab runtime has no GPU (its usage limits, or none free)"
_EXT_SETUP = ("a CUDA extension's setup script found torch without CUDA (a CPU build, or no GPU it can see) and cannot "
              "build its kernels")
_LIB_CPU = ("a library with CUDA kernels of its own (onnxruntime, JAX, DGL, PaddlePaddle) is installed as its CPU-only "
            "package")
_STUB = "the program loads the CUDA toolkit's stub libcuda (lib64/stubs) instead of the driver's"
_ECC = "the GPU's memory reported an uncorrectable ECC error: a hardware fault, not the install"
_IMAGE_DRIVER = "the host's NVIDIA driver is older than the CUDA the container image requires"
_NVML_DIFFER = ("the NVIDIA user-space library and kernel module differ (a driver update without a reboot, or a second "
                "driver package)")
_FLASH_AMPERE = "flash-attn refuses this GPU: its kernels need Ampere (sm_80) or newer; torch itself works"
_LIBCUDA = "the driver library libcuda.so is not on the loader's path (under WSL it lives in /usr/lib/wsl/lib)"
_CUDNN_PATH = "cuDNN, which the program loads at run time, is not on the library search path (or is another major version)"
_WIN_DLL = "a DLL that torch loads failed on Windows (missing VC++ runtime, a wrong-bitness or broken install)"
_CUDNN_SHADOW = "another cuDNN, found first on the library path, shadows the one torch was built with"
_APEX_NVCC = "building a CUDA extension (apex): nvcc's CUDA is another release than the one torch was built with"
_ASSERT = "the GPU works; a kernel assertion failed in the code (usually an index out of range)"
_NCCL_CUDA = "NCCL hit a CUDA error between the GPUs"
_MIXED_DEVICES = "the GPU works; the code mixes CPU and GPU tensors"
_SM_SAID = "the torch build has no kernels for this GPU's architecture (sm_XX), as the paste says"
_BNB_CPU = "bitsandbytes loaded its CPU-only library: it found no usable CUDA runtime for its own kernels"
_EXT_NO_CUDA = "a compiled extension was built without its CUDA kernels (no CUDA toolkit or GPU where it was built)"
_LAUNCH = "the GPU works; a kernel was launched with a grid or block size it cannot run (a bug in that code)"
_SHM = "NCCL could not create its shared memory in /dev/shm (a container's small default)"
_TV_CUDA = "torchvision was built for another CUDA than torch"
_SECURE_BOOT = "Secure Boot refuses the unsigned NVIDIA kernel module, so the driver never loads"
_E803 = ("error 803: the user-space driver library and the kernel module differ (a driver update without a reboot, "
         "or a container's compat libraries)")
_E804 = "error 804: CUDA forward-compatibility libraries on a GPU that does not support them (often a container image)"
_NO_KERNELS = "the torch build has no kernels for this GPU's architecture"
_DRIVER_OLD = "the NVIDIA driver is older than the CUDA runtime torch was built with"
_E999 = "error 999: the driver is in a bad state (often after suspend: nvidia_uvm needs reloading)"
_E802 = "error 802: on NVSwitch systems the fabric manager is not running"
_TV_TORCH = "torchvision was built for a different torch"
_MIXED = "torch's own libraries do not match each other: files of two torch versions are mixed"
_EXT_ABI = "a compiled extension was built against another torch than the installed one (a C++ symbol of torch is undefined)"
_LIB = "a CUDA library torch needs cannot be found"
_CPU_TORCH = "torch is a CPU-only build (or macOS, which has no CUDA)"
_NO_NVCC = "building a CUDA extension needs the CUDA toolkit (nvcc); torch's wheels do not include it"
_ORT = "onnxruntime's CUDA provider cannot load the CUDA and cuDNN libraries of the versions it was built for"
_TF_LIBS = ("TensorFlow could not load the CUDA or cuDNN libraries of the versions it was built for (the 'Could not load "
            "dynamic library' lines name them)")
_NO_RUNTIME = "Docker has no 'nvidia' runtime: the NVIDIA Container Toolkit is not installed or not configured for it"
_QUANT_KERNELS = "the quantization library's CUDA kernels are not installed (a wheel built without them, or for another torch)"
_NO_GPU_RUNTIME = "Docker has no GPU runtime: the NVIDIA Container Toolkit is not installed or not configured"
_DTYPES = "the GPU works; the code mixes tensor dtypes (half and float)"
_WATCHDOG = "the GPU works; a kernel ran longer than the display's watchdog allows (Windows' TDR)"
_TA_TORCH = "torchaudio was built for another torch release than the installed one (undefined symbol)"
_SPCONV = "spconv is its CPU-only build: the spconv-cuXXX package for torch's CUDA has the GPU kernels"
_TRITON_OLD = "Triton (torch.compile's backend, and libraries built on it) needs compute capability 7.0 or newer"
_APEX = ("apex was installed without its CUDA extensions (built without --cuda_ext, or where no CUDA toolkit was found), "
         "so its fused ops are missing")
_GGML = "llama.cpp (ggml) was built without kernels for this GPU's architecture (CMAKE_CUDA_ARCHITECTURES)"
_NO_NCCL = ("this torch has no NCCL (builds for Windows and macOS have none, nor do CPU-only builds), but the program "
            "starts the nccl backend")
_CT2 = ("CTranslate2 (faster-whisper, WhisperX) cannot load a CUDA library of the major version it was built for: that "
        "CUDA's cuBLAS and cuDNN must be on the library search path (PATH on Windows)")
_PAGING = "Windows could not map torch's CUDA DLLs: its paging file (virtual memory) is too small"
_NOT_FOUND = "pip cannot find that build of torch (or its nvidia-* dependency) for this Python and index"
_P2P = "NCCL's peer-to-peer transport between the GPUs fails"
_NCCL_SETUP = "NCCL could not set up communication between the ranks"
_E209 = "the program has no kernels for this GPU's architecture (error 209)"
_STARVED = "the GPU works; it waits for its data (too few DataLoader workers, slow storage or preprocessing)"
CATALOGUE: Tuple[Signature, ...] = (
    # torch warns and goes on when cuDNN's cnn_infer library does not open (torch 2.0/2.1 with cuDNN 8)
    _s(Sig.CUDNN_INFER_WARNING, "cnn_infer", r"Attempt to open cnn_infer failed",
       "torch could not open cuDNN's cnn_infer library and warned (the run goes on without it)"),
    _s(Sig.NO_KERNEL_IMAGE, "hiperrornobinaryforgpu", r"hipErrorNoBinaryForGpu",  # ROCm's: no code object for the gfx
       "the torch build or an extension has no kernels for this GPU's architecture", WARN),
    _s(Sig.HIP_NO_KERNEL, "hip", r"\bHIP error: (?:invalid device function|no kernel image is available)|"
       r"\bhipErrorInvalidDeviceFunction\b",
       "the ROCm build (or an extension) has no kernels for this AMD GPU's gfx target", WARN),
    _s(Sig.NO_KERNEL_IMAGE, "invalid device function", r"\binvalid device function\b",
       "the torch build or an extension has no kernels for this GPU's architecture (invalid device function)", WARN),
    # CUDA's name for error 209, as programs that print the driver API's words say it (mumax3)
    _s(Sig.NO_KERNEL_IMAGE, "no binary for gpu", r"\bNo binary for GPU\b",
       _NO_KERNELS),
    # the driver API's name for error 209 as bindings print it: Rust's Cuda(NoBinaryForGpu), CUDA_ERROR_NO_BINARY_FOR_GPU
    _s(Sig.NO_KERNEL_IMAGE, "nobinaryforgpu", r"\bNoBinaryForGpu\b", _NO_KERNELS),
    _s(Sig.NO_KERNEL_IMAGE, "no_binary_for_gpu", r"\bCUDA_ERROR_NO_BINARY_FOR_GPU\b", _NO_KERNELS),
    _s(Sig.NO_KERNEL_IMAGE, "not compiled for sm", r"\bnot compiled for SM ?\d+",
       "the program has no kernels for this GPU's architecture (not compiled for its SM)", WARN),
    _s(Sig.NO_KERNEL_IMAGE, "no kernel image", r"no kernel image (?:is )?available(?: for execution(?: on)?(?: the| this)? device)?|"
       r"[\"'`“]no kernel image[\"'`”]",  # the message retold in quotes
       _NO_KERNELS, WARN),
    _s(Sig.NO_KERNEL_IMAGE, "has no device code compatible with cuda arch", r"has no device code compatible with CUDA "
       r"arch \d+", _GGML),
    _s(Sig.NO_KERNEL_IMAGE, "ggml was not compiled with", r"ggml was not compiled with (?:any CUDA arch|support for this "
       r"arch)", _GGML),
    _s(Sig.GPU_TOO_OLD, "the minimum required cuda capability is", r"Ignoring visible gpu device \([^)\n]*\) with Cuda "
       r"compute capability \d+\.\d+\. The minimum required Cuda capability is",
       "the GPU's compute capability is below the minimum the program's build supports"),
    _s(Sig.GPU_TOO_OLD, "not supported for the current gpu. min", r"not supported for the current GPU\. Min(?:imum)? "
       r"capability: \d+", "the quantization kernels need a newer GPU than this one"),
    _s(Sig.TRITON_OLD_GPU, "too old to be supported by the triton", r"too old to be supported by the triton GPU compiler",
       _TRITON_OLD),
    _s(Sig.TRITON_OLD_GPU, "cannot select: intrinsic %llvm.nvvm.shfl.sync", r"Cannot select: intrinsic %llvm\.nvvm\.shfl\.sync",
       _TRITON_OLD),
    # a library's own minimum: "GPUs with compute capability below 7.0 are not supported" (vLLM)
    _s(Sig.GPU_TOO_OLD, "compute capability", r"compute capability (?:below|less than|lower than|<)\s*\d+\.\d+\s+(?:is|are)\s+"
       r"(?:not|no longer) supported", "the GPU's compute capability is below the minimum the program's build supports"),
    # the same refusal retold in a sentence: "versions that do not support this card (too old a CUDA capability)"
    _s(Sig.NO_KERNEL_IMAGE, "capabilit", r"(?:cuda|compute) capabilit(?:y|ies)\b(?:[^.\n]|\.(?=\d)){0,60}?\b(?:too old|too low|"
       r"too new|not supported|unsupported|no longer supported)|\b(?:too old|too low|too new|not supported by|"
       r"no longer supports?|unsupported)\b[^.\n]{0,40}?(?:cuda|compute) capabilit",
       _NO_KERNELS),
    _s(Sig.SM_INCOMPATIBLE, "is not compatible with", r"sm_\d+\)?\s+is not compatible with (?:the )?current PyTorch",
       "the GPU's architecture is not in the torch build's arch list", WARN),
    _s(Sig.SM_INCOMPATIBLE, "capability sm_", r"\bCUDA capability sm_\d{2,3} is not compatible\b",
       "the GPU's architecture is not in the torch build's arch list", WARN),
    # the same told in words: "an older torch, which does not support sm120 (Blackwell)"
    _s(Sig.SM_INCOMPATIBLE, "support sm", r"\b(?:does not|doesn'?t|do not|don'?t|did not|didn'?t|no longer|not)\s+"
       r"support\s+sm_?\d{2,3}\b", _SM_SAID, WARN),
    _s(Sig.SM_INCOMPATIBLE, "supports sm", r"\b(?:no longer|not|never)\s+supports\s+sm_?\d{2,3}\b", _SM_SAID, WARN),
    # NGC images' entrypoint banners: a GPU newer than the image's CUDA, or older than what it still supports
    _s(Sig.NO_KERNEL_IMAGE, "not yet supported in this version of the container", r"GPU, which is not yet supported in "
       r"this version of the container", "the container image's CUDA and libraries predate this GPU: use a newer release "
       "of the image"),
    _s(Sig.NO_KERNEL_IMAGE, "no supported gpu(s) detected to run this container", r"No supported GPU\(s\) detected to run "
       r"this container", "the container image has no support for this machine's GPU (too new or too old for its release)"),
    _s(Sig.GPU_TOO_OLD, "which is not supported by this container", r"GPU, which is not supported by this container",
       "the GPU is older than the oldest architecture the container image's release supports"),
    # hashcat: "This hardware has outdated CUDA compute capability (2.1)."
    _s(Sig.GPU_TOO_OLD, "outdated cuda compute capability", r"outdated CUDA compute capability",
       "the GPU's compute capability is below the minimum the program supports"),
    _s(Sig.GPU_TOO_OLD, "no longer supports this gpu", r"PyTorch no longer supports this GPU because it is too old",
       "the GPU is older than the oldest architecture this torch build has kernels for", WARN),
    # ollama's GPU discovery: "CUDA GPU is too old. Falling back to CPU mode. Compute Capability detected: 5.2"
    _s(Sig.GPU_TOO_OLD, "cuda gpu is too old", r"CUDA GPU is too old\b",
       "the GPU's compute capability is below the oldest the program's CUDA build has kernels for"),
    _s(Sig.DRIVER_INSUFFICIENT, "insufficient", r"cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER|\bInsufficientDriver\b",
       "the NVIDIA driver is older than the CUDA runtime the program was built with", INIT),
    _s(Sig.DRIVER_INSUFFICIENT, "driver version is insufficient", r"CUDA driver version is insufficient for CUDA? runtime version",
       _DRIVER_OLD, INIT),
    # nvidia-docker 1.0's own check of the image's CUDA against the host driver
    _s(Sig.DRIVER_INSUFFICIENT, "unsupported cuda version: driver", r"unsupported CUDA version: driver \d+\.\d+ < image \d+\.\d+",
       _IMAGE_DRIVER, INIT),
    # a CUDA runtime newer than the driver's libcuda: "libcuda.so.418.74: undefined symbol: cuCtxCreate_v3"
    _s(Sig.DRIVER_INSUFFICIENT, "undefined symbol: cu", r"libcuda\.so[\w.]*:\s*undefined symbol: cu[A-Z]\w*",
       "the NVIDIA driver's libcuda lacks an entry point the program's CUDA runtime needs: the driver is too old"),
    # NGC images' entrypoint: "This container was built for NVIDIA Driver Release 450.36 or later, but version 440.100 was
    # detected and compatibility mode is UNAVAILABLE."
    _s(Sig.DRIVER_INSUFFICIENT, "this container was built for nvidia driver release", r"This container was built for NVIDIA "
       r"Driver Release \d+(?:\.\d+)* or later", _IMAGE_DRIVER, INIT),
    _s(Sig.DRIVER_INSUFFICIENT, "unsatisfied condition: cuda", r"requirement error: unsatisfied condition: cuda\s*>=\s*\d+\.\d+",
       _IMAGE_DRIVER, INIT),
    _s(Sig.DRIVER_TOO_OLD, "driver on your system is too old", r"NVIDIA driver on your system is too old(?: \(found version \d+\))?",
       _DRIVER_OLD, INIT),
    # the same message retold: "the message says my Nvidia version is too old"
    _s(Sig.DRIVER_TOO_OLD, "too old", r"\b(?:says|said|saying|tells? me|told me|complains?)\s+(?:that\s+)?(?:my|the)\s+"
       r"(?:NVIDIA\s+|Nvidia\s+|nvidia\s+)?(?:driver|version|driver version)\s+is\s+too\s+old\b",
       _DRIVER_OLD),
    _s(Sig.NOT_COMPILED, "pytorch is cpu-only but", r"PyTorch is CPU-only but an? cu\d{2,3} GPU build was expected",
       _CPU_TORCH, INIT),
    _s(Sig.NOT_COMPILED, "not compiled with cuda", r"Torch not compiled with CUDA enabled",
       _CPU_TORCH, INIT),
    # TensorFlow finding no libcuda: "Could not find cuda drivers on your machine, GPU will not be used."
    _s(Sig.NO_DRIVER, "could not find cuda drivers", r"Could not find cuda drivers on your machine",
       "the program finds no NVIDIA driver (libcuda) on this machine"),
    _s(Sig.NO_DRIVER, "nvidia driver", r"Found no NVIDIA driver on your system|\bNo NVIDIA drivers? (?:was |were )?found "
       r"on (?:your|this) system",
       "no NVIDIA driver is loaded", INIT),
    _s(Sig.HIP_NO_DEVICE, "rocm-capable devi", r"no ROCm-capable devi[cd]e is detected", _HIP, INIT),
    _s(Sig.HIP_NO_DEVICE, "device", r"hipErrorNoDevice|hipErrorInvalidDevice",
       _HIP, INIT),
    _s(Sig.HIP_NO_DEVICE, "no hip gpus", r"No HIP GPUs are available", _HIP, INIT),
    # an NGC image's banner when the container reaches no driver
    _s(Sig.CONTAINER_NO_DRIVER, "driver was not detected", r"The NVIDIA Driver was not detected\.\s+GPU functionality "
       r"will not be available", "the container reaches no NVIDIA driver: it was started without the NVIDIA runtime"),
    _s(Sig.UVM_MISSING, "uvm", r"Could not load UVM kernel module|failed to open /dev/nvidia-uvm|"
       r"modprobe: FATAL: Module nvidia[-_]uvm not found",
       "the nvidia_uvm kernel module is not loaded (CUDA needs it; nvidia-smi does not)"),
    _s(Sig.HIP_NO_DEVICE, "rock module", r"ROCk module is NOT loaded", _HIP),  # rocminfo: the amdgpu driver is not loaded
    # CUDA's numbered errors as other programs print them: 35 insufficient driver, 209 no kernel image, 30 unknown
    _s(Sig.DRIVER_INSUFFICIENT, "35", r"(?:failed with error #|error code\s*:\s*)35\b|(?:[Cc]uda error\s*\(|\()35(?:\)| vs\. 0\))",
       "the NVIDIA driver is older than the CUDA runtime the program was built with (error 35)", INIT),
    # Stable Diffusion web UI Forge's check for a GPU its torch has no kernels for
    _s(Sig.NO_KERNEL_IMAGE, "does not support the current version of torch",
       r"Your device does not support the current version of Torch/CUDA", "the torch build has no kernels for this "
       "GPU's architecture", WARN),
    _s(Sig.NO_KERNEL_IMAGE, "209", r"\bcode=209\b", _E209,
       WARN),
    _s(Sig.NO_KERNEL_IMAGE, "nokernelimage", r"cudaErrorNoKernelImageForDevice",
       _E209, WARN),
    _s(Sig.ERR_999, "30", r"failed with error #30\b|\(30 vs\. 0\) unknown error",
       _E999, INIT),
    _s(Sig.NO_DEVICE, "cuda", r"\bno CUDA[- ]capable devices? (?:is |were |are )?(?:detected|found)|CUDA_ERROR_NO_DEVICE|"
       r"no CUDA-capable (?:device )?(?:is )?detected|No CUDA GPUs (?:are )?available|cudaErrorNoDevice|"
       r"cuda runtime error \((?:100|38)\)(?!\s*:\s*\w)",  # cudaErrorNoDevice's numbers after and before CUDA 10.1
       "CUDA sees no GPU (none visible to this process)", INIT),
    # dorado: "CUDA device requested but no devices found"
    _s(Sig.NO_DEVICE, "cuda device requested but no devices found", r"CUDA device requested but no devices found",
       "CUDA finds no usable GPU (none visible to the process, or none the program's build supports)", INIT),
    _s(Sig.NO_DEVICE, "no devices were found", r"^\s*No devices were found\s*$",
       "nvidia-smi finds no GPU: the driver is loaded but sees none (hidden from this container or VM, or lost)"),
    _s(Sig.ERR_802, "not yet initialized", r"system not yet initialized",
       _E802, INIT),
    _s(Sig.ERR_802, "802", r"\bError 802\b",
       _E802, INIT),
    _s(Sig.ERR_803, "803", r"\bError 803\b", _E803, INIT),
    _s(Sig.ERR_803, "unsupported display driver", r"unsupported display driver / cuda driver combination", _E803, INIT),
    _s(Sig.ERR_804, "804", r"\bError 804\b|\bcuInit\(0\) returned 804\b", _E804, INIT),
    _s(Sig.ERR_804, "forward compatibility", r"forward compatibility was attempted on non supported HW", _E804, INIT),
    _s(Sig.ERR_999, "999", r"\bError 999\b", _E999, INIT),
    _s(Sig.ERR_999, "unknown", r"CUDA unknown error|cudaErrorUnknown|CUDA error: unknown error|"
       r"cuda runtime error \(30\) : unknown error|"  # cudaErrorUnknown's number before CUDA 10.1
       r"\berror=30 : unknown error|\bCUDA_ERROR_UNKNOWN\b",  # Lua torch's THCudaCheck; the driver API's name
       _E999, INIT),
    # the tail of torch's "CUDA initialization: CUDA unknown error - this may be due to ..." warning
    _s(Sig.ERR_999, "setting the available devices to be zero", r"CUDA_VISIBLE_DEVICES after program start\. Setting "
       r"the available devices to be zero", _E999, INIT),
    # XLA's diagnostics: "kernel version 535.129.3 does not match DSO version 545.23.8"
    _s(Sig.NVML_MISMATCH, "does not match dso version", r"kernel version [\d.]+ does not match DSO version [\d.]+",
       _NVML_DIFFER),
    _s(Sig.NVML_MISMATCH, "mismatch", r"NVML/RM version mismatch|\bNVML\b[^.\n]{0,20}\blib(?:rary)? version mismatch",
       _NVML_DIFFER, "driver.nvml_error_text"),
    _s(Sig.NVML_MISMATCH, "version mismatch", r"(?:Failed to initialize NVML: )?Driver/library version mismatch",
       "the NVIDIA kernel module and user-space libraries differ: the driver was updated without a reboot",
       "driver.nvml_error_text"),
    _s(Sig.NVML_UNKNOWN, "nvml: unknown error", r"Failed to initi\w{0,5}ze NVML: Unknown Error",  # also as retyped
       "inside a container the GPU devices were lost (cgroups: systemd reloaded the container's device rules)",
       "driver.nvml_error_text"),
    _s(Sig.SMI_NO_DRIVER, "communicate with the nvidia driver",
       r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver",
       "no NVIDIA driver is loaded", "driver.smi_error_text"),
    _s(Sig.SMI_NO_DRIVER, "couldn't find libnvidia-ml.so", r"NVIDIA-SMI couldn't find libnvidia-ml\.so library",
       "nvidia-smi finds no NVML library: no driver here, or a container whose driver libraries were not mounted",
       "driver.smi_error_text"),
    _s(Sig.SMI_NO_DRIVER, "communicate with the", r"nvidia-smi[^.\n]{0,40}?\b(?:cannot|can'?t|couldn'?t|could not|unable to|"
       r"fails? to)\s+communicate with the (?:NVIDIA )?driver", "no NVIDIA driver is loaded (nvidia-smi, as retold)",
       "driver.smi_error_text"),
    _s(Sig.SMI_NO_DRIVER, "nvidia-smi", r"nvidia-smi[^.\n]{0,60}?\b(?:cannot|can'?t|couldn'?t|could not|unable to|fails? to)\s+"
       r"find the (?:NVIDIA )?driver", "no NVIDIA driver is loaded (nvidia-smi, as retold)", "driver.smi_error_text"),
    _s(Sig.SMI_NO_DRIVER, "nvidia-smi", r"nvidia-smi`?:? (?:command )?not found|nvidia-smi`?[^\n]{0,16}?\bcommand not found|'nvidia-smi' is not recognized as an internal "
       r"or external command|The term 'nvidia-smi' is not recognized",
       "nvidia-smi is not installed: no NVIDIA driver is installed here (or the container was started without it)",
       "driver.smi_error_text"),
    _s(Sig.CONTAINER_CLI, "nvidia-container-cli", r"nvidia-container-cli: (?:initialization error|detection error)",
       "the NVIDIA Container Toolkit cannot load the host driver (libnvidia-ml.so.1): the driver is missing on the "
       "host or the toolkit looks in the wrong place"),
    _s(Sig.DOCKER_NO_GPU, "invalid runtime name: nvidia", r"unknown or invalid runtime name: nvidia",
       _NO_RUNTIME),
    _s(Sig.DOCKER_NO_GPU, "unknown runtime specified nvidia", r"Unknown runtime specified nvidia",
       _NO_RUNTIME),
    _s(Sig.DOCKER_NO_GPU, "with capabilities: [[gpu]]", r"\bwith capabilities: \[\[gpu\]\]",
       _NO_GPU_RUNTIME),
    _s(Sig.DOCKER_NO_GPU, "could not select device driver", r"could not select device driver (?:\"[^\"]*\" )?with capabilities: \[\[gpu\]\]",
       _NO_GPU_RUNTIME),
    _s(Sig.INVALID_ORDINAL, "invalid device ordinal", r"invalid device ordinal",
       "the code asks for a GPU index that this process cannot see (CUDA_VISIBLE_DEVICES or the device count)"),
    _s(Sig.TORCHVISION_NMS, "custom c++ ops", r"Couldn't load custom C\+\+ ops",
       _TV_TORCH, "torchvision.import_error"),
    # torchvision's own compiled library missing a symbol of torch: built for another torch release
    _s(Sig.TORCHVISION_NMS, "undefined symbol", r"torchvision[/\\](?:_C|image)[\w.-]*\.(?:so|pyd)\s*:\s*undefined symbol",
       _TV_TORCH, "torchvision.import_error"),
    # torchvision's operators exist but have no CUDA kernels: a CPU-only torchvision beside a CUDA torch
    _s(Sig.TORCHVISION_CUDA, "torchvision::", r"Could not run 'torchvision::\w+' with arguments from the 'CUDA' backend",
       "torchvision is a CPU-only build beside a CUDA torch: its operators have no CUDA kernels", "torchvision.import_error"),
    _s(Sig.TORCHVISION_NMS, "torchvision::", r"operator torchvision::nms does not exist|No such operator torchvision::\w+|"
       r"Unknown builtin op: torchvision::\w+",
       _TV_TORCH, "torchvision.import_error"),
    # code that calls torchvision's operators through torch.ops: they exist only once torchvision is imported
    _s(Sig.TV_OPS_UNIMPORTED, "torch.ops.torchvision.", r"\btorch\.ops\.torchvision\.\w+\s*\(",
       "the code calls torch.ops.torchvision.* without importing torchvision, whose import registers those operators",
       healthy=True),
    _s(Sig.TORCHVISION_CUDA, "compiled with different cuda", r"PyTorch and torchvision were compiled with different CUDA "
       r"(?:major )?versions", _TV_CUDA, "torchvision.import_error"),
    _s(Sig.TORCHVISION_CUDA, "torchvision has cuda version", r"PyTorch has CUDA Version\s*=\s*[\d.]+ and torchvision has "
       r"CUDA Version\s*=\s*[\d.]+", _TV_CUDA, "torchvision.import_error"),
    _s(Sig.FLASH_ATTN_ARCH, "flashattention only supports", r"FlashAttention only supports Ampere GPUs or newer",
       _FLASH_AMPERE),
    _s(Sig.FLASH_ATTN_ARCH, "ampere gpu", r"\b(?:use|needs?|requires?|asking for|asks for|supports?)\s+(?:an?\s+)?"
       r"Ampere GPUs? or newer", _FLASH_AMPERE),
    _s(Sig.FLASH_ATTN_ABI, "flash_attn", r"flash_attn\w*\.(?:cpython[\w.-]*\.so|pyd)[^\n]*undefined symbol",
       "the flash-attn wheel was built against a different torch (C++ ABI/version) than the installed one"),
    _s(Sig.TORCHAUDIO_ABI, "torchaudio were compiled with different cuda", r"PyTorch and TorchAudio were compiled with "
       r"different CUDA versions", "torchaudio was built for another CUDA than the installed torch"),
    _s(Sig.TORCHAUDIO_ABI, "undefined symbol", r"(?:libtorchaudio\w*\.so|_torch_sox[\w.-]*\.so|torchaudio[/\\][^\s:]*\.(?:so|pyd))"
       r"[^\n]*undefined symbol",
       _TA_TORCH),
    # macOS's dlopen names the symbol its own way: "dlopen(.../torchaudio/lib/_torchaudio.abi3.so, 0x0006): Symbol not found"
    _s(Sig.TORCHAUDIO_ABI, "symbol not found", r"dlopen\([^)\n]*torchaudio[^)\n]*\)[^\n]*Symbol not found", _TA_TORCH),
    _s(Sig.EXTENSION_ABI, "compiled with different cuda", r"PyTorch and (?!torchvision\b)\w+ were compiled with different CUDA",
       "a compiled extension was built for another CUDA than the installed torch"),
    _s(Sig.EXTENSION_ABI, "libtorch_cuda_", r"libtorch_cuda_(?:cu|cpp)\.so: cannot open shared object file",
       "an extension built for torch 1.8-1.12 (whose CUDA library was split in two) runs on another torch"),
    _s(Sig.TORCH_FILES_MIXED, "libtorch", r"libtorch\w*\.so[^\n]*undefined symbol: Py\w+",  # a standalone libtorch first
       _MIXED, IMPORT),
    _s(Sig.TORCH_FILES_MIXED, "undefined symbol", r"(?:libtorch\w*|libc10\w*|torch[/\\]_C[\w.-]*)\.so[^\n]*undefined symbol: [*`'\"]*_ZNK?",
       _MIXED, IMPORT),
    _s(Sig.EXTENSION_ABI, "undefined symbol", r"(?:^|[\s/\\'\"])(?!libtorch|libc10|libcaffe2|libshm)[\w-]+(?:\.(?:cpython|abi3)[\w.-]*)?\.(?:so|pyd)\b"
       r"[^\n]*undefined symbol: [*`'\"]*_ZNK?\d*(?:at|c10|caffe2|torch)\d",
       _EXT_ABI),
    # the same told without the library's name: "an import error about the symbol `_ZN6caffe2...`"
    _s(Sig.EXTENSION_ABI, "symbol", r"\b(?:the|undefined) symbol:?\s+[`*'\"]*_ZNK?\d*(?:at|c10|caffe2|torch)\d\w*",
       _EXT_ABI),
    _s(Sig.XFORMERS_MISMATCH, "xformers was built for", r"xFormers was built for",
       "xformers was built for a different torch, CUDA or Python than the installed ones"),
    # each operator memory_efficient_attention refuses lists why: "xFormers wasn't build with CUDA support" (sic)
    _s(Sig.XFORMERS_MISMATCH, "with cuda support", r"xFormers (?:wasn'?t|was not|is not|isn'?t) buil[dt] with CUDA support",
       "xformers' CUDA extension did not load (built for another torch, or a build without CUDA)"),
    # dlopen on macOS names both sides: the library's architecture and the one the Python process needs
    _s(Sig.ARCH_MISMATCH, "architecture", r"incompatible architecture \(have '?\w+'?, need '?\w+'?\)|"
       r"mach-o,? but wrong architecture",
       "a library (torch's) is built for another CPU architecture than the Python process loading it"),
    _s(Sig.BNB_NO_GPU, "bitsandbytes", r"bitsandbytes was compiled without GPU support|bitsandbytes[^\n]*"
       r"(?:CUDA Setup failed|could not find the CUDA runtime|no GPU detected)",
       _BNB_CPU),
    _s(Sig.BNB_NO_GPU, "setup", r"CUDA Setup failed despite GPU being available|CUDA[ _]SETUP:.*\blibcuda\.so not found",
       _BNB_CPU),
    _s(Sig.BNB_NO_GPU, "libbitsandbytes_cpu", r"^\s*bin\s+\S*libbitsandbytes_cpu\.(?:so|dll)\b|"
       r"CUDA[ _]SETUP:\s*Defaulting to libbitsandbytes_cpu\.(?:so|dll)", _BNB_CPU),
    _s(Sig.EXT_BUILD_NO_CUDA, "no module named", r"No module named ['\"]?(?:fused_layer_norm_cuda|amp_C|fused_adam_cuda|"
       r"fused_dense_cuda|fused_weight_gradient_mlp_cuda|syncbn|apex_C)\b", _APEX),
    _s(Sig.EXT_BUILD_NO_CUDA, "cpu version is not implemented", r"\bCPU version is not implemented\b", _EXT_SETUP),
    _s(Sig.EXT_TOOLKIT, "pytorch is built with cuda version", r"PyTorch is built with CUDA version: \d+\.\d+",
       "the CUDA toolkit the build finds (nvcc) is another version than the CUDA torch was built with"),
    _s(Sig.EXT_BUILD_NO_CUDA, "cannot import name '_c' from", r"cannot import name '_C' from '(?!torch\b)[\w.]+'",
       "the project's compiled ops (_C) were not built (no CUDA toolkit or CUDA_HOME when it was installed)"),
    _s(Sig.EXT_BUILD_NO_CUDA, "mmcv._ext", r"No module named ['\"]?mmcv\._ext\b",
       "mmcv without its compiled ops (mmcv-lite, or mmcv built without them): the full mmcv wheel for this torch and "
       "CUDA comes from OpenMMLab's index"),
    _s(Sig.EXT_BUILD_NO_CUDA, "cuda extension not installed", r"\bCUDA extension not installed\b",
       _QUANT_KERNELS),
    _s(Sig.EXT_BUILD_NO_CUDA, "are not installed, this will result in very slow", r"CUDA kernels for \w+ are not installed, "
       r"this will result in very slow",
       _QUANT_KERNELS),
    _s(Sig.NO_KERNEL_IMAGE, "could not find compatible tinycudann extension", r"Could not find compatible tinycudann "
       r"extension for compute capability",
       "tiny-cuda-nn was built for other GPU architectures (TCNN_CUDA_ARCHITECTURES): rebuild it on this machine"),
    _s(Sig.EXT_TOOLKIT, "does not match the version torch was compiled with", r"Installed CUDA version \d+\.\d+ does not "
       r"match the version torch was compiled with", "DeepSpeed's op builder finds a CUDA toolkit of another version than "
       "torch's CUDA"),
    _s(Sig.HOST_COMPILER, "unsupported gnu version", r"unsupported GNU version! gcc versions later than \d+ are not "
       r"supported", "nvcc refuses the host compiler: the gcc is newer than this CUDA toolkit supports"),
    _s(Sig.HOST_COMPILER, "parameter packs not expanded", r"std_function\.h:\d+:\d+: error: parameter packs not expanded",
       "nvcc of CUDA 11.5 and older cannot parse gcc 11's <functional>: a gcc this CUDA supports, or a newer CUDA"),
    _s(Sig.HOST_COMPILER, "unsupported microsoft visual studio version", r"unsupported Microsoft Visual Studio version!",
       "nvcc refuses the host compiler: the Visual Studio is newer than this CUDA toolkit supports"),
    _s(Sig.EXT_BUILD_NO_CUDA, "cuda is not availabel", r"NotImplementedError: Cuda is not availabel",
       "a CUDA extension's setup script refuses to build: it needs a CUDA toolkit (CUDA_HOME) and torch seeing a GPU"),
    # detectron2, maskrcnn-benchmark, old torchvision and mmcv ops built without CUDA ("Torch not compiled with CUDA
    # enabled" is torch's own and read before)
    _s(Sig.EXT_BUILD_NO_CUDA, "compiled with", r"(?<!Torch )\bnot compiled with (?:GPU|CUDA) support\b",
       _EXT_NO_CUDA),
    # GroundingDINO's warning when its ops did not build, and detectron2's collect_env line saying it built without nvcc
    _s(Sig.EXT_BUILD_NO_CUDA, "failed to load custom c++ ops", r"Failed to load custom C\+\+ ops\. Running on CPU mode Only",
       _EXT_NO_CUDA),
    _s(Sig.EXT_BUILD_NO_CUDA, "cuda compiler", r"^\s*Detectron2 CUDA Compiler\s+not available\b",
       _EXT_NO_CUDA),
    # libraries with CUDA kernels of their own, installed as their CPU-only packages, say so in their own words
    _s(Sig.LIBRARY_CPU, "cudaexecutionprovider", r"Specified provider 'CUDAExecutionProvider' is not in available provider",
       _LIB_CPU),
    _s(Sig.LIBRARY_CPU, "standardgpuresources", r"module 'faiss' has no attribute 'StandardGpuResources'", _LIB_CPU),
    _s(Sig.LIBRARY_CPU, "cuda-enabled jaxlib", r"a CUDA-enabled jaxlib is not installed", _LIB_CPU),
    _s(Sig.LIBRARY_CPU, "device api cuda is not enabled", r"Device API cuda is not enabled", _LIB_CPU),
    _s(Sig.LIBRARY_CPU, "cuda version of dgl", r"install the cuda version of dgl", _LIB_CPU),
    _s(Sig.LIBRARY_CPU, "cpu version paddlepaddle", r"installed CPU version PaddlePaddle", _LIB_CPU),
    # tiny-cuda-nn's setup script, which asks torch for the GPU's compute capability
    _s(Sig.EXT_BUILD_NO_CUDA, "with the cuda backend", r"(?:requires|install) PyTorch (?:to be installed )?with the CUDA backend",
       _EXT_SETUP),
    # mmcv's ops compiled without CUDA: "nms_impl: implementation for device cuda:0 not found"
    _s(Sig.EXT_BUILD_NO_CUDA, "implementation for device cuda", r"\b\w+_impl: implementation for device cuda(?::\d+)? not found",
       "the extension's ops were compiled without CUDA (mmcv-lite, or a build that found no CUDA toolkit): only their "
       "CPU implementation exists"),
    _s(Sig.EXT_BUILD_NO_CUDA, "unknown compute capability", r"Unknown compute capability\. Specify the target compute",
       _EXT_SETUP),
    _s(Sig.CUDA_HOME_UNSET, "cannot find cuda_home", r"Cannot find CUDA_HOME\. CUDA must be available to build the "
       r"package", _NO_NVCC),
    _s(Sig.CUDA_HOME_UNSET, "cuda_home", r"CUDA_HOME environment variable is not set|"
       r"CUDA_HOME does not exist, unable to compile CUDA op|'CUDA_HOME' not set, unable to find cuda-toolkit",
       _NO_NVCC),
    # the toolkit's stub libcuda (lib64/stubs, or one an image carries) found before the driver's
    _s(Sig.SHADOWED_CUDA, "stub library", r"CUDA driver is a stub library", _STUB),
    _s(Sig.SHADOWED_CUDA, "cudaerrorstublibrary", r"\bcudaErrorStubLibrary\b", _STUB),
    _s(Sig.SHADOWED_CUDA, "undefined symbol", r"undefined symbol: (?:__nvJitLink\w*|cusparseSpSV\w*|cublas\w*|\w*cudnn\w*|nccl[A-Z]\w*)",
       "a system CUDA library on LD_LIBRARY_PATH shadows the one in torch's own nvidia-* wheels", IMPORT),
    # the loader's own words when one CUDA library finds another of a different release: "symbol
    # cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference"
    _s(Sig.SHADOWED_CUDA, "not defined in file", r"symbol \w+,? version \S+ not defined in file "
       r"lib(?:cu|nv|nccl)[\w-]*\.so[\w.]*(?: with link time reference)?",
       "two CUDA libraries of different releases meet: one resolves the other from another install (a system CUDA "
       "on the loader path, or nvidia-* wheels of different versions)", IMPORT),
    _s(Sig.CUDNN_MISSING, "libcudnn", r"libcudnn[\w.-]*\.so[\w.]*: cannot open shared object file",
       "torch cannot find its cuDNN library (the nvidia-cudnn wheel is missing or not on the search path)", IMPORT),
    # cudarc (Rust): "Unable to find cuda lib under the names [\"cuda\", \"nvcuda\"]"
    _s(Sig.LIBCUDA_MISSING, "unable to find cuda lib", r"Unable to find cuda lib under the names",
       _LIBCUDA),
    _s(Sig.LIBCUDA_MISSING, "libcuda.so", r"libcuda\.so[\w.]*(?::| ) ?(?:cannot open shared object file|not found)|"
       r"Could not load library libcuda\.so|(?:Failed|Unable) to dlopen libcuda\.so|unable to (?:find|locate|load) libcuda\.so",
       _LIBCUDA, INIT),
    # Open3D's torch ops: "Version mismatch: Open3D needs PyTorch version 1.8.*, but version 2.0.1+cpu is installed!"
    _s(Sig.EXTENSION_ABI, "needs pytorch version", r"Open3D needs PyTorch version \d+\.[\d*]+(?:\.[\d*]+)?, but version "
       r"\S+ is installed", "Open3D's torch ops are built for another torch release than the one installed"),
    _s(Sig.TRITON_CUDA, "10.0 or higher, but got cuda version", r"Triton only supports? CUDA 10\.0 or higher, but got CUDA version: "
       r"1[1-9]\.\d", "the installed Triton release does not know this CUDA version (it reads 12.x as older than 10)"),
    _s(Sig.LIBCUDA_MISSING, "libcuda.so cannot found", r"libcuda\.so cannot found", _LIBCUDA),
    # Lua Torch's cudnn bindings: "'libcudnn (R5) not found in library path."
    _s(Sig.CUDNN_MISSING, "not found in library path", r"libcudnn \(R\d+\) not found in library path",
       "the cuDNN library of the version the bindings ask for is not on the loader's path"),
    _s(Sig.CUDNN_MISSING, "cudnn", r"Could not (?:locate|load library) (?:lib)?cudnn\w*\.(?:dll|so[\w.]*)|"
       r"Unable to load any of \{?libcudnn|Invalid handle\. Cannot load symbol cudnn\w+",
       _CUDNN_PATH),
    # TensorFlow's loader: "Could not load dynamic library 'cudart64_100.dll'; dlerror: cudart64_100.dll not found"
    # onnxruntime-gpu's CUDA provider failing to load CUDA or cuDNN of the versions it was built for
    # cuDNN missing as programs and people say it: "it cannot find \"cudnn64_5.dll\"", "cuDNN is not found"
    _s(Sig.CUDNN_MISSING, "cudnn64_", r"(?:cannot|can'?t|could not|couldn'?t|unable to) (?:find|load|locate)\s+[\"'`]?cudnn64_\d+\.dll",
       _CUDNN_PATH),
    _s(Sig.CUDNN_MISSING, "cudnn not found", r"\bcuDNN not found\b",
       _CUDNN_PATH),
    _s(Sig.CUDNN_MISSING, "cudnn is not found", r"\bcuDNN is not found\b",
       _CUDNN_PATH),
    _s(Sig.CUDNN_MISSING, "able to be loaded", r"CUDA[_ ]PATH is set but CUDA wasn'?t able to be loaded", _ORT),
    _s(Sig.CUDNN_MISSING, "cannot load cudnn shared library", r"Cannot load cudnn shared library",
       "PaddlePaddle cannot load a CUDA or cuDNN library of the version it was built for"),
    _s(Sig.LIB_MISSING, "shared library. cannot invoke method", r"Cannot load (?:cublas\w*|cudart|cusolver|cusparse|curand|"
       r"cufft|nvrtc|nccl) shared library\. Cannot invoke method",
       "PaddlePaddle cannot load a CUDA or cuDNN library of the version it was built for"),
    _s(Sig.CUDNN_MISSING, "failed to create cudaexecutionprovider", r"Failed to create CUDAExecutionProvider", _ORT),
    _s(Sig.CUDNN_MISSING, "onnxruntime_providers_cuda", r"LoadLibrary failed with error 126 \"[^\"\n]*\" when trying to "
       r"load \"[^\"\n]*onnxruntime_providers_cuda\.dll\"", _ORT),
    # TensorFlow's summary of the loader lines above it; PaddlePaddle's loader
    _s(Sig.LIB_MISSING, "cannot dlopen some gpu libraries", r"Cannot dlopen some GPU libraries", _TF_LIBS),
    _s(Sig.LIB_MISSING, "skipping registering gpu devices", r"Skipping registering GPU devices", _TF_LIBS),
    _s(Sig.LIB_MISSING, "that paddle depends on is not configured correctly", r"The third-party dynamic library \([^)\n]*\) "
       r"that Paddle depends on is not configured correctly",
       "PaddlePaddle cannot load a CUDA or cuDNN library of the version it was built for"),
    # CTranslate2 (faster-whisper, WhisperX): "Library cublas64_12.dll is not found or cannot be loaded"
    _s(Sig.CUDNN_MISSING, "is not found or cannot be loaded", r"Library (?:lib)?cudnn\w*\.(?:dll|so[\w.]*) is not found or "
       r"cannot be loaded", _CT2),
    _s(Sig.LIB_MISSING, "is not found or cannot be loaded", r"Library (?:lib)?(?:cublas\w*|cudart\w*|cufft\w*|curand\w*|"
       r"cusparse\w*|nvrtc\w*)\.(?:dll|so[\w.]*) is not found or cannot be loaded", _CT2),
    _s(Sig.LIBRARY_CPU, "cudaexecutionprovider not available", r"CUDAExecutionProvider not available", _LIB_CPU),
    _s(Sig.CUDNN_MISSING, "could not load dynamic library", r"Could not load dynamic library '(?:lib)?cudnn[\w.-]*\.(?:dll|so[\w.]*)'",
       _CUDNN_PATH),
    _s(Sig.LIB_MISSING, "could not load dynamic library", r"Could not load dynamic library '(?:lib)?(?:cudart|cublas\w*|cufft|"
       r"curand|cusolver|cusparse|nvinfer\w*|nvrtc|nccl)[\w.-]*\.(?:dll|so[\w.]*)'", _LIB),
    # torch's own preload of the pip-installed CUDA libraries: "libcublas.so.*[0-9] not found in the system path"
    _s(Sig.LIB_MISSING, "not found in the system path", r"lib\w+\.so\.\*\[0-9\] not found in the system path", _LIB),
    _s(Sig.LIB_MISSING, "cannot open shared object file", r"lib(?:cu|nv|nccl|torch_cuda|c10_cuda|caffe2_nvrtc)[\w-]*[.,]so[\w.]*: cannot open shared object file",
       _LIB, IMPORT),
    _s(Sig.LIB_MISSING, "importerror: lib", r"ImportError: lib(?:cudart|cublas\w*|cudnn\w*|nvrtc|cufft|curand|cusparse|"
       r"cusolver|nvToolsExt|nccl)\.so[\d.]*(?::\s*cannot(?: open)?)?\s*$", _LIB, IMPORT),
    # NVRTC compiling a fused kernel at run time (TorchScript, libtorch) finds no builtins library of its version
    _s(Sig.LIB_MISSING, "libnvrtc-builtins", r"nvrtc: error: failed to open libnvrtc-builtins[\w.-]*",
       _LIB),
    _s(Sig.WIN_DLL, "dll", r"\[WinError (?:126|127|1114|193)\][^\n]*?(?:\w+\.dll)?|DLL load failed(?: while importing [\w.]+?)?(?:\s*:|[.\s]*$)",
       _WIN_DLL, IMPORT),
    # Python 3.8+ on Windows: "Could not find module '...\\torch\\lib\\caffe2_nvrtc.dll' (or one of its dependencies)"
    _s(Sig.WIN_DLL, "or one of its dependencies", r"Could not find module '[^']*\.dll' \(or one of its dependencies\)",
       _WIN_DLL, IMPORT),
    _s(Sig.WIN_DLL, "loadlibrary failed with error", r"\bLoadLibrary failed with error (?:126|127|1114|193)\b",
       _WIN_DLL, IMPORT),
    _s(Sig.WIN_DLL, "winerror", r"\[WinError (?:126|127|1114|193)\]",
       _WIN_DLL, IMPORT),
    _s(Sig.NO_TORCH, "no module named", r"No module named ['\"]?torch['\"]?(?:$|[^._\w])",
       "torch is not installed in the Python that ran the code", IMPORT),
    _s(Sig.DEVICE_BUSY, "busy or unavailable", r"CUDA-capable devices? ?(?:\(s\) )?(?:is/are|are|is) busy or unavailable",
       _BUSY, WARN),
    # CUDA's error 46 by name and number: "code=46(cudaErrorDevicesUnavailable)", "Return value 46 from 'cudaMalloc"
    _s(Sig.DEVICE_BUSY, "cudaerrordevicesunavailable", r"\bcudaErrorDevicesUnavailable\b", _BUSY, WARN),
    _s(Sig.DEVICE_BUSY, "code=46", r"\bcode=46\b", _BUSY, WARN),
    _s(Sig.DEVICE_BUSY, "return value 46 from", r"Return value 46 from '?cuda", _BUSY, WARN),
    _s(Sig.DEVICE_BUSY, "unavailable or busy", r"\bcuda devices? (?:is |are )?unavailable or busy\b",
       _BUSY, WARN),
    _s(Sig.GLIBCXX, "glibcxx_", r"version [`'\"]?GLIBCXX_\d+\.\d+(?:\.\d+)?['`\"]? not found",
       "the C++ runtime (libstdc++) the loader found is older than a library of torch needs", IMPORT),
    # a C++ standard library symbol an extension needs ("_ZNSt13runtime_errorC2EPKc"): the libstdc++ found is older
    _s(Sig.GLIBCXX, "undefined symbol: _znst", r"undefined symbol: _ZNSt(?!7__cxx11)\w+",
       "the C++ runtime (libstdc++) the loader found is older than the one an extension was built against", IMPORT),
    _s(Sig.CUDNN_MISMATCH, "cudnn version mismatch", r"cuDNN version mismatch: PyTorch was compiled against \d+ but "
       r"linked against \d+", _CUDNN_SHADOW, WARN),
    _s(Sig.CUDNN_MISMATCH, "but source was compiled with", r"Loaded runtime CuDNN library: [\d.]+ but source was compiled "
       r"with: [\d.]+", "the program loads another cuDNN than the one it was built with (an older one found first)"),
    _s(Sig.CUDNN_MISMATCH, "cudnn version incompatibility", r"cuDNN version incompatibility: PyTorch was compiled\s+against",
       _CUDNN_SHADOW, WARN),
    _s(Sig.PTX_TOOLCHAIN, "unsupported toolchain", r"the provided PTX was compiled with an unsupported toolchain",
       "the driver is older than the CUDA that compiled the PTX it must JIT-compile for this GPU", INIT),
    _s(Sig.MODULE_MISSING, "kernel module", r"The nvidia kernel module was not created|An error occurred while performing "
       r"the step: \"Building kernel modules\"",
       "the NVIDIA driver's installer could not build its kernel module for the running kernel"),
    _s(Sig.NOUVEAU, "nouveau kernel driver is currently in use", r"The Nouveau kernel driver is currently in use",
       "the open-source nouveau driver holds the GPU, so the NVIDIA driver's installer refuses to install"),
    _s(Sig.MODULE_MISSING, "module", r"NVIDIA kernel module (?:is )?(?:missing|not found|not loaded)|"
       r"(?:Module|modprobe: FATAL: Module) nvidia not found|Kernel module nvidia not loaded|"
       r"ERROR: Unable to load the kernel module '?nvidia(?:\.ko)?'?",  # the driver installer's
       "the NVIDIA kernel module is not built or not loaded for the running kernel"),
    _s(Sig.TOOLKIT_TIMEOUT, "terminating driver service", r"terminating driver service \(forced\)",
       "the NVIDIA Container Toolkit gave up waiting for the driver to answer about the GPUs"),
    _s(Sig.DOCKER_GPUS_FLAG, "unknown flag: --gpus", r"unknown flag: --gpus",
       "the docker client is older than 19.03 and has no --gpus option"),
    _s(Sig.EXT_NEWER_TOOLKIT, "undefined symbol", r"undefined symbol: [*`]*cuda\w+[*`]*, version libcudart\.so\.\d+",
       "a compiled CUDA extension calls a CUDA runtime function that the loaded libcudart lacks (built with a newer "
       "toolkit)"),
    # apex's setup.py: its check of nvcc's CUDA against torch's, and the error it raises
    # cudaSetupArgument left the CUDA runtime in 10.1: an extension compiled by an older nvcc, loaded beside torch's newer
    # runtime
    _s(Sig.EXT_TOOLKIT, "undefined symbol: cudasetupargument", r"undefined symbol: cudaSetupArgument\b",
       "the extension was compiled by a CUDA 10.0 or older nvcc (cudaSetupArgument left the CUDA runtime in 10.1) and "
       "loads beside torch's newer CUDA runtime"),
    _s(Sig.EXT_TOOLKIT, "check_cuda_torch_binary_vs_bare_metal", r"\bcheck_cuda_torch_binary_vs_bare_metal\b",
       _APEX_NVCC),
    _s(Sig.EXT_TOOLKIT, "does not match the version used to compile pytorch binaries", r"Cuda extensions are being compiled "
       r"with a version of Cuda that does not match the version used to compile Pytorch binaries",
       _APEX_NVCC),
    _s(Sig.EXT_TOOLKIT, "mismatches the version that was used to compile",
       r"\b(?:[Tt]he|he) detected CUDA version \(\d+\.\d+\) mismatches the version that was used to compile",
       "building a CUDA extension: the CUDA toolkit (nvcc) is another CUDA major than torch was built with"),
    _s(Sig.SECURE_BOOT, "could not insert", r"could not insert 'nvidia\w*': (?:Key was rejected by service|Required key not available)",
       _SECURE_BOOT),
    # the driver installer's failure, told together with Secure Boot (a title, or the reporter's words)
    _s(Sig.SECURE_BOOT, "secure", r"\bSecure ?Boot\b.{0,80}\bUnable to load the kernel module '?nvidia|"
       r"\bUnable to load the kernel module '?nvidia\.ko'?.{0,80}\bSecure ?Boot\b",
       _SECURE_BOOT),
    _s(Sig.PAGING_FILE, "paging file", r"The paging file is too small for this operation",
       _PAGING),
    _s(Sig.PAGING_FILE, "1455", r"\[WinError 1455\]",
       _PAGING),
    _s(Sig.WIN_DLL, "dll", r"\b[Ee]rr?or? loading\s*[\"\u201c\u201d']?[^\"\u201c\u201d\n]*?\b\w+\.dll\b[^\n]*?or one of its "
       r"dependencies",
       _WIN_DLL, IMPORT),
    _s(Sig.WIN_DLL, "dll", r"\b(?:error|fail\w*)\b[^.\n]{0,40}\bload\w*\b[^.\n]{0,20}?\b(?:c10|torch_cpu|torch_cuda|"
       r"torch_python|fbgemm|cudnn\w*|cublas\w*)\.dll\b", "a DLL that torch loads failed on Windows"),  # prose: no message
    _s(Sig.MATH_LIB_INIT, "status_", r"CUBLAS_STATUS_NOT_INITIALIZED|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_NOT_INITIALIZED|"
       r"CUDNN_STATUS_INTERNAL_ERROR",
       "cuBLAS or cuDNN could not start on the GPU: usually its memory was already used up; otherwise the library "
       "does not support this GPU"),
    _s(Sig.GPU_LOST, "unable to determine the device handle", r"Unable to determine the device handle for GPU\s?[\w:.]*: "
       r"Unknown Error", _LOST),
    _s(Sig.GPU_LOST, "rminitadapter", r"RmInitAdapter failed", _LOST),
    _s(Sig.GPU_LOST, "fallen off", r"fallen off the bus|GPU has fallen off",
       _LOST),
    _s(Sig.CUDA_UNAVAILABLE, "gpuaccelerator", r"GPUAccelerator can not run on your system", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "available", r""
       r"User provided device_type of .cuda., but CUDA is not available|"
       r"on a CUDA device but torch\.cuda\.is_available\(\) is False|\bCUDA is not available|"
       r"torch\.cuda\.is_available\(\)[`\"']?\s*(?:still\s+)?(?:returns?|returning|is|=+|:|gives|prints|shows|->|=>|→|是|返回)?\s*[`*\"']*False\b|"
       r"torch\.cuda\.is_available\(\)[^.\n]{1,40}?\b(?:returns?|gives|prints|shows)\s+[`*\"']*False\b",
       _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "gpu backend", r"No supported gpu backend found", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "the unoptimized realesrgan is slow on cpu", r"The unoptimized RealESRGAN is slow on CPU",
       _UNAVAILABLE),  # GFPGAN, when torch cannot use CUDA
    _s(Sig.CUDA_UNAVAILABLE, "not configured to use cuda", r"Your PyTorch installation is not configured to use CUDA",
       _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "on this machine", r"CUDA is not availabl?e on this machine", _UNAVAILABLE),  # Coqui TTS
    _s(Sig.CUDA_UNAVAILABLE, "cuda compatible device could not be found", r"CUDA compatible device could not be found in "
       r"torch", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "no compatible gpus were discovered", r"no compatible GPUs were discovered", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "no usable gpu found", r"no usable GPU found, --gpu-layers option will be ignored",
       _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "no cuda runtime is found", r"No CUDA runtime is found, using CUDA_HOME", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "failed to infer device type", r"Failed to infer device type", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "a gpu is needed for quantization", r"No GPU found\. A GPU is needed for quantization",
       _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "gpu is required to", r"GPU is required to (?:quantize or run quantize|run AWQ quantized) model",
       _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "backend 'cuda'", r"Unable to initialize backend 'cuda'", _UNAVAILABLE),
    _s(Sig.CUDNN_MISMATCH, "but jax was built against version", r"Found cuDNN version \d+, but JAX was built against "
       r"version \d+", "the program loads an older cuDNN than the one it was built against (another cuDNN found first)"),
    _s(Sig.CUDA_UNAVAILABLE, "cuda backend failed to initialize", r"CUDA backend failed to initialize", _UNAVAILABLE),
    # facefusion, roop, Deep-Live-Cam: the execution providers offered are onnxruntime's, and only the CPU is there
    _s(Sig.LIBRARY_CPU, "execution provider", r"\bonly (?:the )?CPU (?:is )?(?:offered|available|listed|shown) as "
       r"(?:an? )?execution provider",
       "the program offers only the CPU: its GPU runtime (onnxruntime-gpu) is not installed, only onnxruntime"),
    _s(Sig.LIBRARY_CPU, "(choose from 'cpu')", r"invalid choice: '(?:cuda|gpu|tensorrt)' \(choose from 'cpu'\)",
       "the program offers only the CPU: its GPU runtime (onnxruntime-gpu) is not installed, only onnxruntime"),
    _s(Sig.LIBRARY_CPU, "not implemented for cpu only build", r"not implemented for CPU ONLY build", _SPCONV),
    _s(Sig.LIBRARY_CPU, "compiled with cuda", r"tensorview[/\\]\S*\(\d+\)\s*don'?t compiled with cuda|"
       r"^\s*don'?t compiled with cuda\s*$", _SPCONV),
    _s(Sig.LIBRARY_CPU, "not compiled with gpu offload support", r"not compiled with GPU offload support",
       "llama.cpp (or llama-cpp-python) was built without a GPU backend: it runs on the CPU and ignores the GPU layers"),
    _s(Sig.CUDA_MALLOC, "does not support cuda-malloc", r"this card most likely does not support cuda-malloc",
       "the GPU or its driver does not support cudaMallocAsync, which ComfyUI turns on"),
    _s(Sig.CUDA_UNAVAILABLE, "no gpu being used", r"No GPU being used\. Careful\b", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "cuda unavailable", r"CUDA unavailable, invalid device", _UNAVAILABLE),  # YOLOv5's check
    # a program asserting that CUDA is available: "AssertionError: CUDA must be available in order to use Deep Daze"
    _s(Sig.CUDA_UNAVAILABLE, "assertionerror", r"AssertionError: CUDA (?:must be|is not|isn't|not) availa\w*|"
       r"AssertionError: CUDA unava\w*", _UNAVAILABLE),
    # a program's own device checks: fastMRI's "Expected a cuda device, but got: cpu"
    # InvokeAI's start-up line when torch offers it no CUDA device
    _s(Sig.CUDA_UNAVAILABLE, "using device_type cpu", r"^\s*(?:>+\s*)?Using device_type cpu\b", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "expected a cuda device", r"Expected a cuda device, but got: cpu", _UNAVAILABLE),
    # EasyOCR's notice when torch finds no CUDA GPU
    _s(Sig.CUDA_UNAVAILABLE, "defaulting to cpu", r"CUDA not available - defaulting to CPU", _UNAVAILABLE),
    # RVC's check when torch finds no CUDA GPU
    _s(Sig.CUDA_UNAVAILABLE, "no supported nvidia gpu", r"No supported Nvidia GPU found", _UNAVAILABLE),
    # PaddleOCR's check when Paddle finds no CUDA GPU
    _s(Sig.CUDA_UNAVAILABLE, "not found gpu", r"Not found GPU in current device", _UNAVAILABLE),
    # torch for R: cuda_is_available() answering FALSE, in words or at the R console ("[1] FALSE" on the next line)
    _s(Sig.CUDA_UNAVAILABLE, "cuda_is_available", r"\bcuda_is_available(?:\(\))?`?\s*(?:still\s+)?(?:returns?|is|gives|"
       r"prints|shows)\s*[`*]*FALSE\b", _UNAVAILABLE),
    # YOLOv5's and Ultralytics' later wording of that check
    _s(Sig.CUDA_UNAVAILABLE, "invalid cuda", r"Invalid CUDA '(?:--)?device[ =][\w,]*' requested", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "not able to use gpu", r"Torch is not able to use GPU", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "cuda driver initialization failed", r"CUDA driver initialization failed", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "cpu", r"\b(?:using|selected|generator:|running on)\s+device\s*[=:]?\s*['\"]?cpu\b['\"]?\s*$|"
       r"\bcompute=cpu\s+device=cpu\b|\bUsing torch device:\s*CPU\s*$", _UNAVAILABLE),
    # openai-whisper falls back to the CPU when torch finds no CUDA, and says so only through this warning
    _s(Sig.CUDA_UNAVAILABLE, "fp16 is not supported on cpu", r"FP16 is not supported on CPU; using FP32 instead",
       _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "only has: []", r"But your machine only has: \[\]", _UNAVAILABLE),
    _s(Sig.CUDA_UNAVAILABLE, "available", r"\bno (?:CUDA )?GPUs? (?:is |are )?available\b", _UNAVAILABLE),
    _s(Sig.TORCH_NOT_FOUND, "could not find a version that satisfies the requirement",
       r"Could not find a version that satisfies the requirement (?:torch|torchvision|torchaudio|nvidia-[\w-]+)\b",
       _NOT_FOUND),
    # Stable Diffusion web UI's launcher when pip cannot install its pinned torch (most often a Python too new for it)
    _s(Sig.TORCH_NOT_FOUND, "couldn't install torch", r"RuntimeError: Couldn't install torch\b",
       _NOT_FOUND),
    _s(Sig.TORCH_NOT_FOUND, "not a supported wheel", r"(?:torch|torchvision|torchaudio)-[\w.+-]+\.whl is not a supported "
       r"wheel on this platform",
       _NOT_FOUND),
    _s(Sig.OUT_OF_MEMORY, "memory", r"CUDA out of memory|OutOfMemoryError|CUDA error:\s*out of memory|CUDA_ERROR_OUT_OF_MEMORY|"
       r"cuda runtime error\s*(?:\(2\)\s*)?:\s*out of memory|\berror=2 : out of memory|\b(?:running|ran|runs) out of "
       r"GPU memory\b|"
       r"\b(?:gpu|cuda|an?|the|of|with|error)\s+out[- ]of[- ]memory(?:\s+errors?)?\b",
       _OOM, healthy=True),
    _s(Sig.OUT_OF_MEMORY, "out of memory", r"\bTHC\w*\.cu\b[^\n]{0,60}?\bout of memory\b", _OOM, healthy=True),  # Lua torch
    _s(Sig.OUT_OF_MEMORY, "recovering from oom error", r"Recovering from OOM error", _OOM, healthy=True),  # Wav2Lip
    _s(Sig.OUT_OF_MEMORY, "out of vram", r"\b(?:running|ran|runs) out of VRAM\b", _OOM, healthy=True),
    _s(Sig.OUT_OF_MEMORY, "cuda runtime error (2)", r"cuda runtime error \(2\)(?!\d)",  # cudaErrorMemoryAllocation
       _OOM, healthy=True),
    _s(Sig.OUT_OF_MEMORY, "cache", r"No available memory for the cache blocks|"
       r"insufficient memory for the KV cache|is larger than the maximum number of tokens that can be stored in KV cache",
       "the GPU works; the model's weights leave too little GPU memory for vLLM's KV cache (gpu_memory_utilization, "
       "max_model_len, tensor parallelism)", healthy=True),
    _s(Sig.DEVICE_ASSERT, "assertion", r"Assertion `t >= 0 && t < n_classes` failed|Assertion `srcIndex < srcSelectDimSize` "
       r"failed|Assertion `(?:input_val|idx_dim) >= 0 && (?:input_val|idx_dim) <[^`]*` failed",
       "the GPU works; a kernel assertion failed in the code (usually an index or label out of range)", healthy=True),
    _s(Sig.DEVICE_ASSERT, "device-side assert", r"device-side assert triggered",
       _ASSERT, healthy=True),
    _s(Sig.DEVICE_ASSERT, "(710)", r"cuda runtime error \(710\)(?!\d)",  # cudaErrorAssert's number
       _ASSERT, healthy=True),
    _s(Sig.DEVICE_ASSERT, "cudaerrorassert", r"\bcudaErrorAssert\b",
       _ASSERT, healthy=True),
    _s(Sig.CONDA_NO_CUDA, "resolvepackagenotfound", r"ResolvePackageNotFound:\s*-\s*(?:cudatoolkit|pytorch-cuda|cuda-\w+)"
       r"(?:=|\b)", "conda finds no CUDA package for this platform (NVIDIA's CUDA packages exist for Linux and Windows)"),
    _s(Sig.NCCL_NOT_BUILT, "nccl built in", r"Distributed package doesn'?t have NCCL built in",
       _NO_NCCL),
    _s(Sig.NCCL_NOT_BUILT, "nccl support is not compiled", r"NCCL support is not compiled",
       _NO_NCCL),
    _s(Sig.NCCL_CUDA, "ncclunhandledcudaerror", r"ncclUnhandledCudaError",
       _NCCL_CUDA),
    _s(Sig.NCCL_CUDA, "unhandled cuda error", r"NCCL[^\n]*unhandled cuda error",
       _NCCL_CUDA),
    _s(Sig.LINK_CUDA, "cannot find -l", r"\bld(?:\.\w+)?: cannot find -l(?:cudart|cuda|cublas\w*|cusparse|curand|cufft|nvrtc)\b",
       "building an extension: the linker finds no CUDA library to link against"),
    # libtorch's CMake config (Caffe2Config.cmake) of a CUDA build, configured where no CUDA toolkit is found
    # a program linked against libtorch whose linker dropped torch_cuda: libtorch then has no CUDA at all
    _s(Sig.LINK_CUDA, "aten_cuda library", r"without ATen_cuda library",
       "the program links libtorch without its CUDA library (torch_cuda): the linker dropped it, so CUDA is unavailable"),
    _s(Sig.LINK_CUDA, "caffe2 version uses cuda", r"Your installed Caffe2 version uses CUDA but I cannot find the CUDA",
       "building against torch: CMake finds no CUDA toolkit for a CUDA build of torch"),
    # TorchScript's fuser compiling at run time with torch's own NVRTC, whose CUDA predates the GPU
    _s(Sig.NVRTC_ARCH, "rtc: error: invalid value for --gpu-architecture",
       r"\bn?vrtc: error: invalid value for --gpu-architecture",
       "torch's run-time compiler (NVRTC, of the CUDA torch was built with) does not know this GPU's architecture"),
    _s(Sig.NVRTC_ARCH, "nvrtc_error_invalid_option", r"\bNVRTC_ERROR_INVALID_OPTION\b",
       "the run-time compiler (NVRTC) refuses the options it was given, usually a GPU architecture newer than its CUDA"),
    # nvcc of a CUDA older than the GPU: "nvcc fatal : Value 'sm_89' is not defined for option 'gpu-architecture'"
    _s(Sig.NVCC_ARCH, "is not defined for option 'gpu-architecture'", r"Value '(?:sm|compute)_\d+a?' is not defined for "
       r"option 'gpu-architecture'", "the CUDA toolkit (nvcc) is older than the GPU architecture it was asked to compile for"),
    # Triton's ptxas (of its bundled CUDA) meeting a GPU newer than it: "Value 'sm_121a' is not defined for option 'gpu-name'"
    _s(Sig.NVRTC_ARCH, "is not defined for option 'gpu-name'", r"Value 'sm_\d+a?' is not defined for option 'gpu-name'",
       "the PTX assembler (ptxas) of the CUDA the program compiles with does not know this GPU's architecture"),
    _s(Sig.NVCC_ARCH, "unsupported gpu architecture", r"(?:nvcc fatal\s*:\s*)?Unsupported gpu architecture\b",
       "the CUDA toolkit (nvcc) building an extension does not know the GPU architecture it was asked to compile for"),
    _s(Sig.ECC_UNCORRECTABLE, "uncorrectable ecc error", r"uncorrectable ECC error encountered", _ECC),
    _s(Sig.ECC_UNCORRECTABLE, "ecc_uncorrectable", r"\b(?:CUDA_)?ERROR_ECC_UNCORRECTABLE\b", _ECC),
    _s(Sig.ECC_UNCORRECTABLE, "eccuncorrectable", r"\bcudaErrorECCUncorrectable\b", _ECC),
    _s(Sig.ILLEGAL_ACCESS, "illegal", r"an illegal memory access was encountered|\bcudaErrorIllegalAddress\b",
       "the GPU runs CUDA; a kernel accessed memory it should not (a bug in the program or a library)", healthy=True),
    _s(Sig.FP16_SLOW, "efficient float16", r"Requested float16 compute type, but the target device or backend do not "
       r"support efficient float16 computation|\b(?:does not|doesn't|do not|don't) support efficient float16", "the GPU works; it has no fast float16 (before Volta), which the "
       "program asked for", healthy=True),
    _s(Sig.CUDNN_PLAN, "plan failed with a cudnnexception", r"Plan failed with a cudnnException",
       "the GPU works; cuDNN declined one convolution plan and torch used another (a warning)", healthy=True),
    _s(Sig.CUFFT_INTERNAL, "cufft_internal_error", r"CUFFT_INTERNAL_ERROR",
       "cuFFT failed inside the torch build: on Ada and Hopper GPUs, the cuFFT of CUDA 11.7 and older builds"),
    _s(Sig.BF16_UNSUPPORTED, "bfloat16", r"Bfloat16 is only supported on GPUs with compute capability of at least 8\.0",
       "the GPU works; the model asks for bfloat16, which GPUs before Ampere (8.0) lack", healthy=True),
    _s(Sig.NCCL_P2P, "peer access", r"peer access is not supported between these two devices?",
       _P2P),
    _s(Sig.NCCL_P2P, "ipc handle", r"failed to open CUDA IPC handle",
       _P2P),
    _s(Sig.NCCL_SYSTEM, "unhandled system error", r"NCCL (?:error|failure)[^\n]*unhandled system error",
       _NCCL_SETUP),
    _s(Sig.NCCL_SYSTEM, "ncclsystemerror", r"ncclSystemError", _NCCL_SETUP),
    # NCCL's own WARN lines when /dev/shm is too small (a container's 64 MB default)
    _s(Sig.NCCL_SYSTEM, "shared memory segment", r"Error while creating shared memory segment\s+/dev/shm/nccl",
       _SHM),
    _s(Sig.NCCL_SYSTEM, "posix_fallocate", r"Call to posix_fallocate failed\s*:\s*No space left on device",
       _SHM),
    _s(Sig.DUPLICATE_GPU, "duplicate gpu detected", r"Duplicate GPU detected",
       "the GPU works; several distributed ranks run on one GPU (more processes than GPUs, or each rank left on "
       "cuda:0)", healthy=True),
    _s(Sig.UNCALLED, "is_available", r"\bif\s+(?:not\s+)?torch\.cuda\.is_available\s*(?::|\b(?:else|and|or)\b)|"
       r"torch\.cuda\.is_available\s+else\b",
       "the GPU stack is not involved: the code tests torch.cuda.is_available without calling it (always true)",
       healthy=True),
    _s(Sig.COLAB_NO_GPU, "gpu backend", r"Cannot connect to GPU backend",
       _COLAB),
    _s(Sig.COLAB_NO_GPU, "后端", r"无法连接到\s*GPU\s*后端", _COLAB),
    # a sentence that says the GPU is not used at all is the symptom, not a GPU waiting for its data
    _s(Sig.GPU_STARVED, "util", r"^(?!.*\b(?:never|not|n't)\s+(?:being\s+)?(?:used|utili[sz]ed)\b).*?(?:\b(?:low|0\s?%|zero|"
       r"only\s+\d{1,2}\s?%)[^.\n]{0,25}\bGPU[- ]?util|\bGPU[- ]?util\w*\b[^.\n]{0,40}?\b(?:is |stays |goes |drops |only )?"
       r"(?:low|0\s?%|zero|\d{1,2}\s?%)(?![\w%]))",
       _STARVED, healthy=True),
    _s(Sig.GPU_STARVED, "only", r"\bGPU\b[^.\n]{0,40}\bonly (?:at |about |around )?\d{1,2}\s?%",
       _STARVED, healthy=True),
    _s(Sig.GPU_STARVED, "gpu usage", r"\bGPU usage\b[^.\n]{0,20}?\b(?:stays?|is|remains?|only|around|about|below|under)\b"
       r"[^.\n]{0,12}?\b[1-4]?\d\s?%(?![\w%])", _STARVED, healthy=True),
    _s(Sig.GPU_STARVED, "利用率", r"GPU\s*(?:利用率|占用)[^。\n，,]{0,10}(?:低|0\s?%)",
       _STARVED, healthy=True),
    _s(Sig.GPU_SLOWER, "cpu", r"\bGPU\b[^.\n]{0,40}\bslower than\b[^.\n]{0,20}\bCPU\b|\bCPU\b[^.\n]{0,40}\bfaster "
       r"than\b[^.\n]{0,20}\bGPU\b|CPU[^。\n]{0,30}比[^。\n]{0,10}GPU[^。\n]{0,10}更?快|GPU[^。\n]{0,30}比[^。\n]{0,10}CPU[^。\n]{0,10}更?慢",
       "the GPU works; a timing shows it slower than the CPU (start-up, warm-up or work too small for a GPU)",
       healthy=True),
    # a kernel launched with a grid or block size the GPU cannot run: the program's bug, not the install's
    _s(Sig.LAUNCH_CONFIG, "cuda runtime error (9)", r"cuda runtime error \(9\)(?!\d)",  # its number before CUDA 10.1
       _LAUNCH,
       healthy=True),
    _s(Sig.LAUNCH_CONFIG, "configuration", r"CUDA error: invalid configuration argument|"
       r"\bcudaErrorInvalidConfiguration\b",
       _LAUNCH,
       healthy=True),
    _s(Sig.MISALIGNED, "misaligned address", r"\bmisaligned address\b",
       "the GPU works; a kernel in the program or a library read a misaligned address (a bug in that code)",
       healthy=True),
    _s(Sig.DTYPE_MISMATCH, "but expected", r"Found dtype (?:Half|Float|BFloat16|Double) but expected (?:Half|Float|"
       r"BFloat16|Double)", _DTYPES, healthy=True),
    _s(Sig.DTYPE_MISMATCH, "expected scalar type", r"expected scalar type (?:Half|Float|BFloat16|Double) but found "
       r"(?:Half|Float|BFloat16|Double)", _DTYPES, healthy=True),
    _s(Sig.ANIMATEDIFF_XFORMERS, "xformers is enabled but it has a bug", r"xformers is enabled but it has a bug that can "
       r"cause issue", "the GPU works; AnimateDiff warns that xFormers' attention has a bug with it", healthy=True),
    _s(Sig.LAUNCH_TIMEOUT, "launch timed out", r"\bthe launch timed out and was terminated\b", _WATCHDOG, healthy=True),
    _s(Sig.LAUNCH_TIMEOUT, "launchtimeout", r"\bcudaErrorLaunchTimeout\b", _WATCHDOG, healthy=True),
    _s(Sig.NAN_HALF, "a tensor with all nans was produced in", r"A tensor with all NaNs was produced in",
       "the GPU works; the model produced NaNs in half precision (common on GTX 16xx cards)", healthy=True),
    _s(Sig.TRITON_MISSING, "a matching triton is not available", r"A matching Triton is not available, some optimizations "
       r"will not be enabled", "the GPU works; xFormers found no matching Triton, so only its Triton kernels are off",
       healthy=True),
    _s(Sig.NVRTC_WORKAROUND, "applied workaround for cudnn issue", r"Applied workaround for CuDNN issue, install nvrtc\.so",
       "the GPU works; torch found no unversioned libnvrtc.so for a cuDNN path and applied its workaround", healthy=True),
    _s(Sig.LOADER_SHM, "is killed by signal: bus error", r"DataLoader worker \(pid \d+\) is killed by signal: Bus error",
       "the GPU is not involved: DataLoader workers ran out of shared memory", healthy=True),
    _s(Sig.LOADER_SHM, "unexpected bus error encountered in worker", r"Unexpected bus error encountered in worker",
       "the GPU is not involved: DataLoader workers ran out of shared memory", healthy=True),
    _s(Sig.FORKED_CUDA, "cannot re-initialize cuda in forked subprocess", r"Cannot re-initialize CUDA in forked subprocess",
       "the GPU works; the code starts CUDA before forking worker processes", healthy=True),
    _s(Sig.SPAWN_GUARD, "bootstrapping phase", r"start a new process before the\s*(?:current process has finished its "
       r"bootstrapping phase)?|current process has finished its bootstrapping phase",
       "the GPU stack is not involved: worker processes start by spawn (Windows, macOS) and the script lacks the "
       "if __name__ == '__main__': guard", healthy=True),
    _s(Sig.GPU_LOADED, "loading model weights took", r"Loading model weights took \d+(?:\.\d+)? ?GB",
       "the GPU works: vLLM loaded the model's weights onto it", healthy=True),
    _s(Sig.DEVICE_MISMATCH, "tensor from a generator of type", r"Cannot generate a (?:cpu|cuda) tensor from a generator of "
       r"type (?:cuda|cpu)", _MIXED_DEVICES, healthy=True),
    _s(Sig.DEVICE_MISMATCH, "expected all tensors", r"Expected all tensors to be on the same device",
       _MIXED_DEVICES, healthy=True),
    _s(Sig.DEVICE_MISMATCH, "expected object of", r"Expected object of device type cuda but got device "
       r"type cpu|Expected object of backend CUDA but got backend CPU", _MIXED_DEVICES, healthy=True),  # the wording of torch 1.x
    # a convolution given a GPU input and CPU weights (or the other way): "Input type (torch.cuda.FloatTensor) and
    # weight type (torch.FloatTensor) should be the same"
    _s(Sig.DEVICE_MISMATCH, "and weight type", r"Input type \(torch\.(?:cuda\.)?\w+\) and weight type "
       r"\(torch\.(?:cuda\.)?\w+\) should be the same", _MIXED_DEVICES, healthy=True),
    # torch's own report of any other error when it counts the GPUs: the numbered ones above name their causes first
    _s(Sig.CUDA_UNAVAILABLE, "unexpected error from cudagetdevicecount", r"Unexpected error from cudaGetDeviceCount\(\)",
       _UNAVAILABLE, WARN),
)
BY_SIG = {s.sig: s for s in CATALOGUE}
