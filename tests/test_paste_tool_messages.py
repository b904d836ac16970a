"""Other programs' words for the GPU problems torch has: TensorFlow's loader, bitsandbytes' set-up, ollama's GPU
discovery, tiny-cuda-nn's setup script, CUDA's error 209 by name; nvidia-smi's compute mode and the system its table
implies; program advice that names a Mac; log-prefixed key-value lines."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer
from gpudoctor.runner import run_checks

from checkhelp import pasted_problems


_found = pasted_problems


def _codes(text: str) -> List[str]:
    return list(_found(text))


@pytest.mark.parametrize("text, code", [
    ("2021-03-02 10:11:12.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
     "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file\n",
     "paste.cuda-lib-missing"),
    ("W dso_loader.cc:55] Could not load dynamic library 'cublas64_11.dll'; dlerror: cublas64_11.dll not found\n",
     "paste.cuda-lib-missing"),
    ("W dso_loader.cc:55] Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found\n",
     "paste.cudnn-missing"),
    ("CUDA SETUP: Required library version not found: libbitsandbytes_cuda121.so.\n"
     "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n", "paste.bitsandbytes-without-gpu"),
    ("time=2024-05-01 level=INFO source=gpu.go:138 msg=\"CUDA GPU is too old. Compute Capability detected: 3.0\"\n",
     "paste.gpu-too-old"),
    ("panic: No binary for GPU. Your nvidia driver may be out-of-date\n", "paste.no-kernel-image"),
    ("OSError: PyTorch CUDA is unavailable. tinycudann requires PyTorch to be installed with the CUDA backend.\n",
     "paste.extension-build-without-cuda"),
    ("OSError: Unknown compute capability. Specify the target compute capabilities in the TCNN_CUDA_ARCHITECTURES "
     "environment variable\n", "paste.extension-build-without-cuda"),
])
def test_other_programs_words_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_a_linux_elf_library_that_macos_refuses_puts_the_paste_on_a_mac() -> None:
    text = ("CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n"
            "dlopen(/opt/venv/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so, 0x0006): tried: "
            "'/opt/venv/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so' (not a mach-o file)\n")
    assert load_facts(text, "in.txt").platform.system == "Darwin"
    assert "paste.bitsandbytes-platform" in _codes(text)


def test_cuda_driver_errors_on_an_apple_silicon_mac_say_the_mac_has_no_cuda() -> None:
    error = ("Check failed: error == cudaSuccess (35 vs. 0) CUDA driver version is insufficient for CUDA runtime "
             "version\n")
    assert _codes("On my MacBook Pro with an M2 Pro chip, make runtest fails with:\n" + error) == ["paste.macos-no-cuda"]
    # an Intel Mac of macOS 10.13 or before could have an NVIDIA GPU and NVIDIA's CUDA driver, which can be too old
    assert "paste.driver-insufficient" in _codes("Building on OS X Yosemite 10.10.5:\n" + error)


def test_advice_that_names_a_mac_as_a_choice_is_not_the_system() -> None:
    text = ("[INFO] PyTorch Version: 2.8.0+cpu\n[INFO] CUDA Available: False\n"
            "[INFO] For better performance, use a Mac with Apple Silicon or a CUDA-compatible GPU.\n"
            "I am on Windows 11 with an NVIDIA RTX 4070 Super.\n")
    facts = load_facts(text, "in.txt")
    assert facts.platform.system != "Darwin" and facts.torch.version == "2.8.0+cpu"
    assert "torch.cpu-build-on-gpu" in _codes(text)


_PROHIBITED = """\
| NVIDIA-SMI 538.33                 Driver Version: 538.33       CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                     TCC/WDDM  | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|=========================================+======================+======================|
|   0  NVIDIA RTXA6000-48A          WDDM  | 00000000:02:01.0  On |                  N/A |
| N/A    0C    P8              N/A /  N/A |    483MiB / 49152MiB |      1%   Prohibited |
+-----------------------------------------+----------------------+----------------------+
"""


def test_nvidia_smi_shows_the_compute_mode_and_its_windows_table_the_system() -> None:
    facts = load_facts(_PROHIBITED, "in.txt")
    assert facts.gpus[0].compute_mode == "prohibited"
    assert facts.platform.system == "Windows" and facts.is_inferred("platform.system")
    report = run_checks(discover(plugins=False), facts)
    said = answer(report)
    assert said.lead is not None and said.lead.code == "gpu.exclusive-mode"
    assert any("Prohibited |" in line for line in said.evidence)
    exclusive = _PROHIBITED.replace("1%   Prohibited", "0%   E. Process").replace("WDDM  |", "Off   |")
    assert load_facts(exclusive, "in.txt").gpus[0].compute_mode == "exclusive_process"
    assert "gpu.exclusive-mode" not in _codes(exclusive)  # no other process holds it: a note, not a problem


def test_no_such_operator_from_code_that_calls_torch_ops_without_importing_torchvision_is_the_codes() -> None:
    text = ("RuntimeError: No such operator torchvision::nms\n\nthe call that fails:\n"
            "    keep = torch.ops.torchvision.nms(boxes, scores, 0.45)\n")
    codes = _codes(text)
    assert "paste.torchvision-nms" not in codes and codes == []
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    assert [f.code for f in answer(report).healthy] == ["paste.torchvision-ops-not-imported"]
    assert "paste.torchvision-nms" in _codes("RuntimeError: No such operator torchvision::nms\n")


@pytest.mark.parametrize("text", [
    "With an RTX 5070 Ti the shell imports an older torch, which does not support sm120 (Blackwell).\n",
    "My RTX 5090 fails: this build doesn't support sm_120 yet.\n",
])
def test_a_sentence_saying_torch_lacks_the_gpus_architecture_is_the_architecture_refusal(text: str) -> None:
    assert "paste.sm-incompatible" in _codes(text)


@pytest.mark.parametrize("text", [
    "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: "
    "'AzureExecutionProvider, CPUExecutionProvider'\n",
    "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
    "installed. Falling back to cpu.\n",
    "dgl._ffi.base.DGLError: Check failed: allow_missing: Device API cuda is not enabled. Please install the cuda "
    "version of dgl.\n",
    "Cannot use GPU because you have installed CPU version PaddlePaddle.\n",
])
def test_a_library_installed_as_its_cpu_package_is_named(text: str) -> None:
    found = _found(text)
    assert "paste.library-cpu-build" in found
    assert "onnxruntime-gpu" in (found["paste.library-cpu-build"].fix.text if found["paste.library-cpu-build"].fix else "")


def test_tensorflow_finding_no_cuda_driver_is_no_driver() -> None:
    text = "2024-01-02 W tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used.\n"
    facts = load_facts(text, "in.txt")
    assert facts.torch.init_error is None  # TensorFlow's words, not torch's
    assert "paste.no-driver" in _codes(text)


def test_other_words_for_no_driver_are_said_where_torchs_own_words_go_to_the_driver_check() -> None:
    assert _codes("RuntimeError: No NVIDIA driver found on your system\n") == ["paste.no-driver"]
    torch_words = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                   "installed a driver from http://www.nvidia.com/Download/index.aspx\n")
    assert "driver.not-loaded" in _codes(torch_words) and "paste.no-driver" not in _codes(torch_words)


@pytest.mark.parametrize("text, code", [
    ("After the reboot nvidia-smi says it cannot communicate with the driver.\n", "paste.smi-no-driver"),
    ("NCCL failure common.cu:874 'unhandled system error'\n", "paste.nccl-system-error"),
    ("Fatal CUDA Error at api.cu:450.\nReturn value 46 from 'cudaStreamCreate(&kernel_stream)'.  Exiting.\n",
     "paste.device-busy"),
    ("CUDA error at main.cu:31 code=46(cudaErrorDevicesUnavailable) \"cudaMalloc(&d, n)\"\n", "paste.device-busy"),
    ("Cannot query cuDNN version without ATen_cuda library.\nCuda available: false\n", "paste.linker-without-cuda-libs"),
    ("On Colab it keeps asking for an Ampere GPU or newer, even on the A100 runtime.\n", "paste.flash-attn-needs-ampere"),
    ("RuntimeError: GPUs with compute capability below 7.0 are not supported.\n", "paste.gpu-too-old"),
    ("RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has CUDA "
     "version 11.8 whereas TorchAudio has CUDA version 11.7.\n", "paste.torchaudio-abi"),
])
def test_more_words_for_known_causes_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_a_library_minimum_beside_a_bfloat16_note_is_still_the_gpu_too_old() -> None:
    text = ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla P100-PCIE-16GB GPU "
            "has compute capability 6.0.\nRuntimeError: GPUs with compute capability below 7.0 are not supported.\n")
    assert "paste.gpu-too-old" in _codes(text)


@pytest.mark.parametrize("text, code", [
    ("!!! Exception during processing !!! 'CUDA_HOME' not set, unable to find cuda-toolkit installation.\n",
     "paste.cuda-home-unset"),
    ("CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN as "
     "mentioned in the GPU requirements page\n", "paste.cudnn-missing"),
    ("RuntimeError: The following operation failed in the TorchScript interpreter.\nRuntimeError: nvrtc: error: "
     "invalid value for --gpu-architecture (-arch)\n", "paste.nvrtc-unknown-arch"),
    ("nvidia-docker | 2016/08/22 12:54:02 Error: unsupported CUDA version: driver 7.5 < image 8.0\n",
     "paste.driver-insufficient"),
    ('msg="Unable to load nvcuda" error="symbol lookup for cuCtxCreate_v3 failed: /usr/lib64/libcuda.so.418.74: '
     'undefined symbol: cuCtxCreate_v3"\n', "paste.driver-insufficient"),
    ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver "
     "is properly installed and present in your system.\n", "paste.smi-no-driver"),
    ("\tlibcuda.so.1 => not found\n\tlibnvrtc.so.9.1 => /nix/store/x-cudatoolkit-9.1/lib64/libnvrtc.so.9.1 (0x7f)\n",
     "paste.libcuda-missing"),
])
def test_still_more_words_for_known_causes_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_invalid_device_function_on_a_gpu_older_than_any_build_is_the_gpu_too_old() -> None:
    text = ("My old laptop card (cuda capability 2.1) gives, on every run:\n"
            "cuda runtime error (8) : invalid device function\n")
    assert "paste.gpu-too-old" in _codes(text) and "paste.no-kernel-image" not in _codes(text)


def test_torchs_too_old_warning_naming_an_amd_gpu_is_a_harmless_note() -> None:
    text = ("ROCm : 3.3\nPytorch : 1.4\n/home/u/.local/lib/python3.7/site-packages/torch/cuda/__init__.py:87: "
            "UserWarning:\n    Found GPU0 Vega 10 XT [Radeon RX Vega 64] which is of cuda capability 3.0.\n"
            "    PyTorch no longer supports this GPU because it is too old.\n"
            "    The minimum cuda capability that we support is 3.5.\n")
    facts = load_facts(text, "in.txt")
    assert facts.gpus == () and facts.torch.cuda is None  # no NVIDIA GPU, and no PyPI CUDA build on an AMD machine
    assert _codes(text) == []
    report = run_checks(discover(plugins=False), facts)
    assert "paste.gpu-too-old" in [f.code for f in answer(report).healthy]


def test_a_missing_nvidia_smi_beside_a_named_gpu_is_no_driver_unless_torch_reaches_the_gpu() -> None:
    text = "My V100 box:\n$ nvidia-smi\nbash: nvidia-smi: command not found\n"
    assert "driver.not-loaded" in _codes(text)
    reached = text + ">>> torch.cuda.is_available()\nTrue\n"
    assert "driver.not-loaded" not in _codes(reached)


def test_a_container_that_finds_no_gpu_beside_a_gpu_only_named_in_words_is_the_container() -> None:
    text = ("Running nvidia-smi inside the project's docker image gives:\n\nNVIDIA-SMI couldn't find libnvidia-ml.so "
            "library in your system.\n\nThe driver is installed: nvidia-smi runs outside the container. Ubuntu 18.04, V100.\n")
    assert "platform.container" in _codes(text)


def test_mixed_devices_in_a_convolution_and_a_kernel_assert_by_name_are_the_codes() -> None:
    for text in ("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same\n",
                 "training stops with a cudaErrorAssert after 20 steps\n"):
        report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
        assert _codes(text) == [] and answer(report).healthy


@pytest.mark.parametrize("text, code", [
    ("thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Cuda(NoBinaryForGpu)', src/main.rs:10\n",
     "paste.no-kernel-image"),
    ("ValueError: libcublas.so.*[0-9] not found in the system path ['/app', '/usr/lib/python310.zip']\n",
     "paste.cuda-lib-missing"),
    ("error: Unsupported gpu architecture 'compute_75'\n", "paste.nvcc-unsupported-arch"),
    ("CUDA error: uncorrectable ECC error encountered (code #214, ERROR_ECC_UNCORRECTABLE)\n", "paste.uncorrectable-ecc"),
    ("RuntimeError: CUDA error: cudaErrorECCUncorrectable\n", "paste.uncorrectable-ecc"),
])
def test_bindings_and_tools_words_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_an_ecc_error_is_the_gpus_memory_and_joins_the_ecc_check() -> None:
    report = run_checks(discover(plugins=False), load_facts("uncorrectable ECC error encountered\n", "in.txt"))
    finding = next(f for f in report.findings() if f.code == "paste.uncorrectable-ecc")
    assert finding.cause == "gpu.ecc" and "nvidia-smi -q -d ECC,PAGE_RETIREMENT" in finding.fix.commands


def test_pips_resolver_conflict_gives_the_installed_torch_and_its_companion() -> None:
    text = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed."
            "\ntorchvision 0.16.0+cu118 requires torch==2.1.0, but you have torch 2.0.1 which is incompatible.\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.version == "2.0.1" and facts.package("torchvision") is not None
    assert "torchvision.version-mismatch" in _codes(text)


def test_a_gpu_at_zero_utilisation_is_unused_not_starved() -> None:
    unused = "Checking with nvidia-smi, the GPU is never used (GPU-Util stays at 0%) on my RTX 4060.\n"
    assert "paste.gpu-unused-unexplained" in _codes(unused)
    starved = "Training runs on the RTX 4060 but GPU-Util stays at 12% while the CPU is at 100%.\n"
    report = run_checks(discover(plugins=False), load_facts(starved, "in.txt"))
    assert "paste.gpu-waits-for-data" in [f.code for f in answer(report).healthy]


@pytest.mark.parametrize("text, code", [
    ("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
     "the 'spawn' start method\n", "paste.cuda-in-forked-subprocess"),
    ("RuntimeError: CUDA failed with error out of memory\n", "paste.out-of-memory"),
])
def test_a_working_gpu_that_the_code_misuses_is_healthy(text: str, code: str) -> None:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    assert _codes(text) == [] and code in [f.code for f in answer(report).healthy]


@pytest.mark.parametrize("text, code", [
    ("Failed invoking compiler for CUDA C++ program: NVRTC_ERROR_INVALID_OPTION\n", "paste.nvrtc-unknown-arch"),
    ("vrtc: error: invalid value for --gpu-architecture (-arch)\nnvrtc compilation failed:\n", "paste.nvrtc-unknown-arch"),
    ("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n", "paste.nvrtc-unknown-arch"),
    ("nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'\n", "paste.nvcc-unsupported-arch"),
    ("WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in this version of the "
     "container\nERROR: No supported GPU(s) detected to run this container\n", "paste.no-kernel-image"),
    ("ERROR: Detected NVIDIA Tesla K40m GPU, which is not supported by this container\n", "paste.gpu-too-old"),
    ("* Device #1: This hardware has outdated CUDA compute capability (2.1).\n", "paste.gpu-too-old"),
    ('Unable to find cuda lib under the names ["cuda", "nvcuda"]. Please open GitHub issue.\n', "paste.libcuda-missing"),
    ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
     "before calling NumCudaDevices() that might have already set an error? Error 34: CUDA driver is a stub library\n",
     "paste.shadowed-cuda-libs"),
    ("Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that "
     "might have already set an error? Error 500: named symbol not found\n", "paste.cuda-unavailable"),
    ("NVML ERROR: RM has detected an NVML/RM version mismatch.\n", "paste.nvml-mismatch"),
    ("FileNotFoundError: Could not find module 'C:\\\\Python38\\\\lib\\\\site-packages\\\\torch\\\\lib\\\\caffe2_nvrtc.dll' "
     "(or one of its dependencies). Try using the full path with constructor syntax.\n", "paste.windows-dll"),
    ("⚠️  CUDAExecutionProvider not available — ONNX will fall back to CPU.\n", "paste.library-cpu-build"),
])
def test_the_words_of_rounds_fifty_three_and_four_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_error_804_in_cudagetdevicecount_is_still_named_by_its_number() -> None:
    text = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
            "functions before calling NumCudaDevices() that might have already set an error? Error 804: forward "
            "compatibility was attempted on non supported HW\n")
    assert "paste.error-804" in _codes(text) and "paste.cuda-unavailable" not in _codes(text)


def test_a_dataloader_out_of_shared_memory_is_healthy_not_refused() -> None:
    text = ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory "
            "(shm).\n")
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    assert _codes(text) == [] and "paste.dataloader-shared-memory" in [f.code for f in answer(report).healthy]


def test_a_sentence_naming_torch_with_its_cuda_is_the_build_where_nothing_else_gives_it() -> None:
    text = ("The image ships PyTorch 2.4.1 with CUDA 11.8.\nGPU: NVIDIA RTX 5070 Ti\n"
            "RuntimeError: cuBLAS failed with status CUBLAS_STATUS_NOT_SUPPORTED\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.version == "2.4.1+cu118" and facts.is_inferred("torch.version")
    assert "gpu.arch-too-new" in _codes(text)
    two = "I tried PyTorch 2.1.0 with CUDA 12.1 and PyTorch 2.4.1 with CUDA 11.8.\n"
    assert load_facts(two + "GPU: RTX 4090\n", "in.txt").torch.version is None


@pytest.mark.parametrize("text, code", [
    ("EP Error CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct version of CUDA\n",
     "paste.cudnn-missing"),
    ("AttributeError: module 'faiss' has no attribute 'StandardGpuResources'\n", "paste.library-cpu-build"),
    ("RuntimeError: peer access is not supported between these two device\n", "paste.nccl-peer-access"),
    ("  File \"setup.py\", line 178, in <module>\n    check_cuda_torch_binary_vs_bare_metal(CUDA_HOME)\n",
     "paste.extension-toolkit-mismatch"),
    ("RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used to "
     "compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 12.1.\n", "paste.extension-toolkit-mismatch"),
    ("[error] CUDA device requested but no devices found\n", "paste.no-device"),
])
def test_the_words_of_rounds_fifty_five_and_six_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_mixed_dtypes_are_the_codes_not_the_install() -> None:
    text = "RuntimeError: expected scalar type Half but found Float\n"
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    assert _codes(text) == [] and "paste.tensors-of-different-dtypes" in [f.code for f in answer(report).healthy]


def test_an_nvidia_smi_of_another_driver_than_the_kernel_module_is_a_mismatch() -> None:
    text = ("+-----------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 440.59       Driver Version: 550.100      CUDA Version: N/A      |\n")
    facts = load_facts(text, "in.txt")
    assert facts.driver.version == "440.59" and facts.driver.kernel_module_version == "550.100"
    assert "driver.nvml-mismatch" in _codes(text)
    same = text.replace("440.59  ", "550.100 ")
    assert load_facts(same, "in.txt").driver.kernel_module_version is None


def test_wsls_nvidia_smi_over_windows_driver_of_the_same_branch_is_no_mismatch() -> None:
    text = "| NVIDIA-SMI 550.90.07              Driver Version: 552.55         CUDA Version: 12.4     |\n"
    assert load_facts(text, "in.txt").driver.kernel_module_version is None
    assert "driver.nvml-mismatch" not in _codes(text)


@pytest.mark.parametrize("text, code", [
    ('Using waifu2x-caffe, calling cuDNN fails: it cannot find "cudnn64_5.dll".\n', "paste.cudnn-missing"),
    ("I put cudnn64_7.dll into the folder, but the program still says cuDNN is not found.\n", "paste.cudnn-missing"),
    ("E external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 535.129.3 does not match DSO "
     "version 545.23.8 -- cannot find working devices in this configuration\n", "paste.nvml-mismatch"),
    (">> Using device_type cpu\n", "paste.cuda-unavailable"),
])
def test_the_words_of_rounds_fifty_seven_and_eight_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_a_discrete_radeon_named_beside_a_ryzen_is_an_amd_gpu() -> None:
    text = "Laptop: HP Victus, Ryzen 5 5600H, 8 GB RAM, Windows 10 Home, 4 GB graphics: AMD Radeon RX 5500M\n"
    assert "platform.no-nvidia-gpu" in _codes(text)
    apu = "CPU: AMD Ryzen 7 5800H with Radeon Graphics, GPU: NVIDIA GeForce RTX 3060 Laptop GPU\n"
    assert "platform.no-nvidia-gpu" not in _codes(apu)


def test_ultralytics_cuda_none_row_is_a_cpu_build() -> None:
    text = ("OS                  Windows-10-10.0.19044-SP0\nEnvironment         Windows\nPython              3.11.0\n"
            "Install             pip\nRAM                 15.91 GB\nCUDA                None\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.cuda_compiled is False
    assert "paste.cpu-build" in _codes(text)
    built = text.replace("CUDA                None", "CUDA                12.1")
    assert load_facts(built, "in.txt").torch.cuda == "12.1"


def test_import_torch_killed_by_a_signal_is_an_import_crash() -> None:
    text = "jason@nano:~$ python3\n>>> import torch\nIllegal instruction (core dumped)\n"
    facts = load_facts(text, "in.txt")
    assert facts.torch.crashed == "illegal instruction on import torch"
    assert "torch.import-crashed" in _codes(text)


def test_the_toolkits_stub_folder_on_ld_library_path_is_named_after_successive_exports() -> None:
    text = ("export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH\n"
            "export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib/stubs:$LD_LIBRARY_PATH\n")
    facts = load_facts(text, "in.txt")
    assert facts.libraries.ld_library_path == ("/usr/local/cuda/targets/x86_64-linux/lib/stubs", "/usr/local/cuda/lib64")
    found = _found(text)
    assert "stub folder" in found["libs.shadowed"].summary


def test_an_nvidia_smi_header_with_a_version_of_thousands_of_digits_is_not_read() -> None:
    text = "| NVIDIA-SMI 440.59   Driver Version: " + "5" * 3000 + "   CUDA Version: 12.4 |\n"
    facts = load_facts(text, "in.txt")
    assert facts.driver.version is None and facts.driver.kernel_module_version is None


@pytest.mark.parametrize("text", [
    "The image ships PyTorch " + "2" * 3000 + ".4.1 with CUDA 11.8.\n",
    "pip install torch==" + "2" * 3000 + ".1.0\n>>> torch.cuda.is_available()\nFalse\n",
    "torchvision 0.16.0 requires torch==2.1.0, but you have torch " + "2" * 3000 + ".0.1 which is incompatible.\n",
])
def test_versions_of_thousands_of_digits_are_not_taken_as_torchs(text: str) -> None:
    version = load_facts(text, "in.txt").torch.version or ""
    assert len(version) < 40
