"""More of what pastes say in their own words: CTranslate2's loader, NGC images' driver banner, mmcv's ops without
CUDA, Bark's check, NCCL asked of a torch without it, HIP's invalid device function, a DataLoader bus error; conda's
CPU variant selector, a torch build named with its wheel tag or retold, Ultralytics' start-up line, collect_env
that could not run nvidia-smi, and Huawei's Ascend NPUs; and the GPU messages of other popular programs (onnxruntime,
TensorFlow, PaddlePaddle, xFormers, mmcv, AutoGPTQ, tiny-cuda-nn, DeepSpeed, nvcc, llama.cpp, ollama, vLLM,
transformers, JAX, Triton, torch.compile, ComfyUI, Docker)."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor.model import Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer
from gpudoctor.runner import run_checks

from checkhelp import pasted_problems


_found = pasted_problems


def _codes(text: str) -> List[str]:
    return list(_found(text))


_TORCH_AND_TOOLS = [
    ("[2025-01-02 10:00:00] Transcribe failed: Library cublas64_12.dll is not found or cannot be loaded\n",
     "paste.cuda-lib-missing"),
    ("RuntimeError: Library libcublas.so.12 is not found or cannot be loaded\n", "paste.cuda-lib-missing"),
    ("Could not load library cudnn_ops_infer64_8.dll. Error code 126\n"
     "RuntimeError: Library cudnn_ops64_9.dll is not found or cannot be loaded\n", "paste.cudnn-missing"),
    ("RuntimeError: C:\\a\\_work\\onnxruntime_pybind_state.cc:857 onnxruntime::python::CreateExecutionProviderInstance "
     "CUDA PATH is set but CUDA wasnt able to be loaded. Please install the correct version of CUDA and cuDNN\n",
     "paste.cudnn-missing"),
    ("ERROR: This container was built for NVIDIA Driver Release 530.30 or later, but\n"
     "       version 470.82.01 was detected and compatibility mode is UNAVAILABLE.\n",
     "paste.driver-insufficient"),
    ("       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n", "paste.error-804"),
    ("Traceback (most recent call last):\n  File \"det.py\", line 9, in <module>\n    keep = nms(boxes, scores, 0.5)\n"
     "RuntimeError: nms_impl: implementation for device cuda:0 not found.\n", "paste.extension-build-without-cuda"),
    ("No GPU being used. Careful, inference might be very slow!\n", "paste.cuda-unavailable"),
    ("ImportError: libcudart.so.10.1: cannot open\n", "paste.cuda-lib-missing"),
    ("My RTX 5080 (sm_120) is not compatible with current PyTorch installation, it says.\n", "paste.sm-incompatible"),
    ("After a reboot nvidia-smi gives errors saying it can't find the NVIDIA driver.\n", "paste.smi-no-driver"),
    ("ImportError: /opt/conda/lib/python3.8/site-packages/my_ops/_ext.cpython-38-x86_64-linux-gnu.so: undefined "
     "symbol: cudaSetupArgument\n", "paste.extension-toolkit-mismatch"),
]


_OTHER_PROGRAMS = [
    ("2024-05-01 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 CreateExecutionProviderInstance] Failed to "
     "create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-providers/"
     "CUDA-ExecutionProvider.html#requirements to ensure all dependencies are met.\n", "paste.cudnn-missing"),
    ('onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error '
     '126 "" when trying to load "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"\n',
     "paste.cudnn-missing"),
    ("W tensorflow/core/common_runtime/gpu/gpu_device.cc:1934] Cannot dlopen some GPU libraries. Please make sure the "
     "missing libraries mentioned above are installed properly\n", "paste.cuda-lib-missing"),
    ("RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_8.dll) that Paddle depends on is not "
     "configured correctly. (error code is 126)\n", "paste.cuda-lib-missing"),
    ("ModuleNotFoundError: No module named 'mmcv._ext'\n", "paste.extension-build-without-cuda"),
    ("CUDA extension not installed.\n", "paste.extension-build-without-cuda"),
    ("OSError: Could not find compatible tinycudann extension for compute capability 89.\n", "paste.no-kernel-image"),
    (">- DeepSpeed Op Builder: Installed CUDA version 12.4 does not match the version torch was compiled with 11.8, "
     "unable to compile cuda/cpp extensions without a matching cuda version.\n", "paste.extension-toolkit-mismatch"),
    ("/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later than "
     "12 are not supported!\n", "paste.nvcc-host-compiler"),
    ("ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520\n",
     "paste.no-kernel-image"),
    ("ggml_cuda_init: ggml was not compiled with any CUDA arch <= 750\n", "paste.no-kernel-image"),
    ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1700] Ignoring visible gpu device (device: 0, name: GeForce GT "
     "730, pci bus id: 0000:01:00.0, compute capability: 3.5) with Cuda compute capability 3.5. The minimum required Cuda "
     "capability is 6.0.\n", "paste.gpu-too-old"),
    ("ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 89. Current "
     "capability: 86.\n", "paste.gpu-too-old"),
    ("AssertionError: libcuda.so cannot found!\n", "paste.libcuda-missing"),
    ('time=2025-01-02T10:00:00 level=INFO source=gpu.go:221 msg="no compatible GPUs were discovered"\n',
     "paste.cuda-unavailable"),
    ("No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n", "paste.cuda-unavailable"),
    ("RuntimeError: Failed to infer device type\n", "paste.cuda-unavailable"),
    ("RuntimeError: No GPU found. A GPU is needed for quantization.\n", "paste.cuda-unavailable"),
    ("RuntimeError: GPU is required to run AWQ quantized model.\n", "paste.cuda-unavailable"),
    ("Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices.\n", "paste.cuda-unavailable"),
    ("warning: not compiled with GPU offload support, --gpu-layers option will be ignored\n", "paste.library-cpu-build"),
    ('WARNING: this card most likely does not support cuda-malloc, if you get "CUDA error" please run ComfyUI with: '
     '--disable-cuda-malloc\n', "paste.cuda-malloc-unsupported"),
    ("E0101 Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching "
     "major version and equal or higher minor version.\n", "paste.cudnn-version-mismatch"),
    ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.\n", "paste.docker-no-gpu-driver"),
]


_BUILDS_AND_CHECKS = [
    ("run.py: error: argument --execution-providers: invalid choice: 'cuda' (choose from 'cpu')\n",
     "paste.library-cpu-build"),
    ("RuntimeError: /io/build/spconv/build/core_cc/src/csrc/sparse/all/SpconvOps/SpconvOps_get_indice_pairs.cc(65)\n"
     "not implemented for CPU ONLY build.\n", "paste.library-cpu-build"),
    ("It now says CUDA capability sm_86 is not compatible, so the GPU is not used.\n", "paste.sm-incompatible"),
    ('AssertionError: "CUDA is not availabe on this machine."\n', "paste.cuda-unavailable"),
    ("ERROR: [batch] Exception: CUDA compatible device could not be found in torch whilst --use-cuda args was set.\n",
     "paste.cuda-unavailable"),
    ("ImportError: /venv/lib/python3.6/site-packages/torch_scatter/scatter_cpu.so: undefined symbol: "
     "_ZNSt13runtime_errorC2EPKc\n", "paste.libstdcxx-too-old"),
    ("  error: Cannot find CUDA_HOME. CUDA must be available to build the package.\n", "paste.cuda-home-unset"),
    ("  [WARN] PyTorch is CPU-only but a cu130 GPU build was expected for this machine.\n",
     "paste.not-compiled-with-cuda"),
    ("Triton only support CUDA 10.0 or higher, but got CUDA version: 12.8\n", "paste.triton-misreads-cuda"),
    ("Exception: Version mismatch: Open3D needs PyTorch version 1.8.*, but version 2.0.1+cpu is installed!\n",
     "paste.extension-abi"),
    ("Triton only supports CUDA 10.0 or higher, but got CUDA version: 12.4\n", "paste.triton-misreads-cuda"),
]


_LIBRARIES_AND_LOADERS = [
    ("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'\n", "paste.extension-build-without-cuda"),
    ("ImportError: No module named 'amp_C'\n", "paste.extension-build-without-cuda"),
    ('    raise Exception("CPU version is not implemented")\nException: CPU version is not implemented\n',
     "paste.extension-build-without-cuda"),
    ("AssertionError: PyTorch is built with CUDA version: 11.7.\nThe current running CUDA version is: 10.2.89\n",
     "paste.extension-toolkit-mismatch"),
    ("RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.\n",
     "paste.cudnn-missing"),
    ("Error: Cannot load cublas shared library. Cannot invoke method cublasCreate_v2\n", "paste.cuda-lib-missing"),
    ("CUDA backend failed to initialize: Found cuDNN version 8700, but JAX was built against version 8800, which is "
     "newer.\n", "paste.cudnn-version-mismatch"),
    ('docker: Error response from daemon: could not select device drit device driver "" with capabilities: [[gpu]].\n',
     "paste.docker-no-gpu-driver"),
    ("ERROR: The Nouveau kernel driver is currently in use by your system.  This driver is incompatible with the NVIDIA "
     "driver\n", "paste.nouveau-in-use"),
    ("Running a test of your configuration...\nYour PyTorch installation is not configured to use CUDA. If you have a "
     "GPU ready for deep learning, ensure that the drivers are properly installed\n", "paste.cuda-unavailable"),
    ("After 3.0.0 only CPU is offered as execution provider.\n", "paste.library-cpu-build"),
    ("UserWarning: The unoptimized RealESRGAN is slow on CPU. We do not use it.\n", "paste.cuda-unavailable"),
    ("ERROR - FAIL : LoadLibrary failed with error 126 \"\" when trying to load \"C:\\sd\\venv\\lib\\site-packages\\"
     "insightface\\ops.dll\"\n", "paste.windows-dll"),
    ("OSError: dlopen(/Users/me/.venv/lib/python3.11/site-packages/torchaudio/lib/_torchaudio.abi3.so, 0x0006): Symbol "
     "not found: _torch_library_impl\n", "paste.torchaudio-abi"),
    ("UserWarning: Failed to load image Python extension: '/usr/local/lib/python3.8/dist-packages/torchvision/image.so: "
     "undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSsb'\n", "paste.torchvision-nms"),
    ("LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.bfly.i32\n", "paste.gpu-too-old-for-triton"),
    ("RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, which is used "
     "as the backend.\n", "paste.gpu-too-old-for-triton"),
]


_EXTENSIONS_AND_INSTALLERS = [
    ("Bark prints this message:\nNo GPU being used. Careful\n", "paste.cuda-unavailable"),
    ("ValueError: /io/include/tensorview/tensor.h(171)\ndon't compiled with cuda\n", "paste.library-cpu-build"),
    ("/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with '...':\n",
     "paste.nvcc-host-compiler"),
    ("ERROR: The nvidia kernel module was not created.\n", "paste.kernel-module-missing"),
    ("ImportError: cannot import name '_C' from 'groundingdino'\n", "paste.extension-build-without-cuda"),
]


@pytest.mark.parametrize("text, code", _TORCH_AND_TOOLS + _OTHER_PROGRAMS + _BUILDS_AND_CHECKS + _LIBRARIES_AND_LOADERS
                         + _EXTENSIONS_AND_INSTALLERS)
def test_the_message_is_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_a_raise_in_the_last_frame_is_the_message_though_prose_follows() -> None:
    text = ('Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
            '  File "D:\\py\\lib\\site-packages\\torch\\cuda\\__init__.py", line 239, in _lazy_init\n'
            '    raise AssertionError("Torch not compiled with CUDA enabled")\n\nAlso, installing deepspeed fails.\n')
    assert "paste.not-compiled-with-cuda" in _codes(text)


def test_an_amd_gpu_said_in_words_is_no_nvidia_gpu() -> None:
    facts = load_facts("CPU and GPU are both AMD (a 5700), with the latest drivers.\n", "in.txt")
    assert [v for k, v in facts.extra if k == "paste.amd_gpu"]
    assert not [v for k, v in load_facts("My CPU is an AMD Ryzen 9 and the GPU is an RTX 4090.\n", "in.txt").extra
                if k == "paste.amd_gpu"]


def test_an_answer_under_a_numbered_step_with_its_reason_is_read() -> None:
    text = "1. python\n1. import torch\n1. torch.cuda.is_available()\n\nIt returns False because CUDA is not there.\n"
    assert load_facts(text, "in.txt").torch.is_available is False


def test_an_extensions_op_called_through_its_c_module_that_is_missing_is_a_build_without_it() -> None:
    text = "    output = _C.ms_deform_attn_forward(\nNameError: name '_C' is not defined\n"
    assert "paste.extension-build-without-cuda" in _codes(text)


def test_a_file_name_holding_colab_is_no_colab_runtime() -> None:
    text = ("I copied requirements-win-colab-cuda.txt to requirements.txt and installed from it.\n"
            ">> Using device_type cpu\n")
    assert "paste.colab-no-gpu" not in _codes(text)
    assert "paste.colab-no-gpu" in _codes("On Colab it says:\n>> Using device_type cpu\n")


def test_cuda_unavailable_on_a_mac_is_the_mac_even_where_torch_there_is_known_without_cuda() -> None:
    text = ("From /Users/me/app/run.py on my MacBook Pro (macOS Mojave 10.14.5):\n"
            "Your PyTorch installation is not configured to use CUDA.\n")
    assert "paste.macos-no-cuda" in _codes(text)


def test_an_idle_gpu_on_a_jetson_with_a_torch_that_is_not_jetpacks_is_the_torch() -> None:
    text = ("On a Jetson Orin Nano the GPU shows no activity at all in jtop during generation.\n"
            "- PyTorch Version: 2.5.1\n")
    assert "paste.jetson-torch" in _codes(text)
    assert "paste.jetson-torch" not in _codes(text.replace("2.5.1", "2.5.0a0+872d972e41.nv24.08"))


def test_a_raise_in_the_last_frame_of_a_cut_traceback_is_the_message() -> None:
    frames = ('Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    x = torch.cuda.current_device()\n'
              '  File "C:\\env\\lib\\site-packages\\torch\\cuda\\__init__.py", line 289, in _lazy_init\n'
              '    raise AssertionError("Torch not compiled with CUDA enabled")\n')
    assert "paste.not-compiled-with-cuda" in _codes(frames + "(the paste is cut here)\n")
    assert "paste.not-compiled-with-cuda" in _codes(frames)
    earlier = ('Traceback (most recent call last):\n  File "x.py", line 9, in check\n'
               '    raise AssertionError("Torch not compiled with CUDA enabled")\n  File "y.py", line 2, in run\n'
               '    main()\nValueError: bad input\n')
    assert "paste.not-compiled-with-cuda" not in _codes(earlier)


def test_no_cuda_gpus_inside_a_ray_task_is_rays_scheduling() -> None:
    text = ("ERROR trial_runner.py:1062 -- Trial lambda_00000: Error processing event.\n"
            "ray.exceptions.RayTaskError(RuntimeError): ray::ImplicitFunc.train() (pid=41, ip=10.0.0.2)\n"
            "RuntimeError: No CUDA GPUs are available\n")
    facts = load_facts(text, "in.txt")
    assert "ray-task-without-gpu" in [v for k, v in facts.extra if k == "paste.signature"]
    assert not [f for f in _found(text).values() if f.severity is Severity.ERROR]
    assert "paste.no-device" in _codes("RuntimeError: No CUDA GPUs are available\n")


def test_an_intel_gpu_said_in_words_on_a_mac_means_no_cuda() -> None:
    text = ("On my MacBook Air: the machine has a GPU, but it is an Intel one, not NVIDIA.\n"
            "THCudaCheck FAIL file=/Users/me/torch/extra/cutorch/lib/THC/THCGeneral.c line=66 error=35 : CUDA driver "
            "version is insufficient for CUDA runtime version\n")
    assert "paste.macos-no-cuda" in _codes(text)


@pytest.mark.parametrize("text, sig", [
    ("modules.devices.NansException: A tensor with all NaNs was produced in Unet. This could be either because there's "
     "not enough precision to represent the picture, or because your video card does not support half type.\n",
     "nans-in-half-precision"),
    ("RuntimeError: Found dtype Float but expected Half\n", "tensors-of-different-dtypes"),
    ("Recovering from OOM error; New batch size: 8\n", "out-of-memory"),
    ("Error occurred when executing KSampler:\n\nCUDA error: the launch timed out and was terminated\n", "launch-timed-out"),
    ("Cannot generate a cpu tensor from a generator of type cuda\n", "tensors-on-different-devices"),
    ("[AnimateDiff] - WARNING - xformers is enabled but it has a bug that can cause issue while using with AnimateDiff.\n",
     "animatediff-xformers-warning"),
    ("THCudaCheck FAIL file=/root/torch/extra/cutorch/lib/THC/generic/THCStorage.cu line=66 error=2 : out of memory\n",
     "out-of-memory"),
    ("A matching Triton is not available, some optimizations will not be enabled\n"
     "Traceback (most recent call last):\nModuleNotFoundError: No module named 'triton'\n", "triton-not-available"),
])
def test_warnings_of_a_working_gpu_are_healthy_notes(text: str, sig: str) -> None:
    facts = load_facts(text, "in.txt")
    assert sig in [v for k, v in facts.extra if k == "paste.signature"]
    assert not [f for f in _found(text).values() if f.severity is Severity.ERROR]


def test_a_dataloader_killed_by_a_bus_error_is_a_healthy_install() -> None:
    text = ("RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error. It is possible that dataloader's "
            "workers are out of shared memory. Please try to raise your shared memory limit.\n")
    facts = load_facts(text, "in.txt")
    assert "dataloader-shared-memory" in [v for k, v in facts.extra if k == "paste.signature"]
    assert not [f for f in _found(text).values() if f.severity is Severity.ERROR]


@pytest.mark.parametrize("where, lead", [
    ("C:\\Users\\me\\llama> torchrun --nproc_per_node 1 chat.py\n", "paste.nccl-not-built"),
    ("/Users/me/projects/app/train.py on my MacBook Pro\n", "paste.macos-no-cuda"),
])
def test_nccl_asked_of_a_torch_without_it_is_named_and_on_a_mac_is_the_mac(where: str, lead: str) -> None:
    text = where + ("/opt/venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py:633: UserWarning: "
                    "Attempted to get default timeout for nccl backend, but NCCL support is not compiled\n"
                    "RuntimeError: Distributed package doesn't have NCCL built in\n")
    a = answer(run_checks(discover(plugins=False), load_facts(text, "in.txt")))
    assert a.lead is not None and a.lead.code == lead


def test_hips_invalid_device_function_is_the_rocm_builds_gfx_target_not_a_cuda_build() -> None:
    text = ("Device: AMD Radeon RX 6700S\nRuntimeError: HIP error: invalid device function\n"
            "HIP kernel errors might be asynchronously reported at some other API call\n")
    a = answer(run_checks(discover(plugins=False), load_facts(text, "in.txt")))
    assert a.lead is not None and a.lead.code == "paste.hip-no-kernel"
    assert a.lead.fix is not None and "HSA_OVERRIDE_GFX_VERSION" in a.lead.fix.text
    assert not any("cu12" in command for command in a.lead.fix.commands)


@pytest.mark.parametrize("row", ["_pytorch_select          0.1                       cpu_0",
                                 "pytorch-mutex             1.0                         cpu    pytorch"])
def test_condas_cpu_variant_selector_makes_torch_a_cpu_build(row: str) -> None:
    text = ("# Name                    Version                   Build  Channel\n"
            "_libgcc_mutex             0.1                        main\n" + row + "\n")
    assert load_facts(text, "in.txt").torch.cuda_compiled is False
    gpu = ("# Name                    Version                   Build  Channel\n"
           "_pytorch_select          0.2                       gpu_0\n")
    assert load_facts(gpu, "in.txt").torch.cuda_compiled is None


@pytest.mark.parametrize("sentence, version", [
    ("I followed the docs and installed PyTorch 2.1.2 + cu118 in the env.", "2.1.2+cu118"),
    ("Checked the version in the venv. That returned 2.7.1+CPU and not the CUDA one.", "2.7.1+cpu"),
    ("torch.__version__ printed `2.4.0+cu121` for me", "2.4.0+cu121"),
])
def test_a_build_named_with_its_tag_or_retold_is_the_torch_where_nothing_else_names_it(sentence: str,
                                                                                      version: str) -> None:
    facts = load_facts(sentence + "\n", "in.txt")
    assert facts.torch.version == version
    assert facts.is_inferred("torch.version")
    assert facts.torch.cuda_compiled is (False if version.endswith("+cpu") else True)


def test_a_build_in_an_install_command_is_not_the_installed_torch() -> None:
    assert load_facts("$ pip install torch==2.1.2+cu118 --index-url x\n", "in.txt").torch.version is None


def test_ultralytics_start_up_line_shows_torch_using_the_gpu() -> None:
    text = ("Windows 10 laptop\n```\ntorch==1.10.0\n```\n"
            "YOLOv5 \U0001F680 2021-10-25 torch 1.10.0 CUDA:0 (NVIDIA GeForce GTX 1660 Ti, 6143.6875MB)\n"
            "image 1/1: 720x1280 (no detections)\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.is_available is True
    assert [g.name for g in facts.gpus] == ["NVIDIA GeForce GTX 1660 Ti"]
    assert "torch.cpu-build-on-gpu" not in _codes(text)  # PyPI's Windows wheel is CPU-only, but this one uses CUDA
    v8 = "Ultralytics YOLOv8.0.196 Python-3.10.12 torch-2.0.1+cu118 CUDA:0 (NVIDIA GeForce RTX 3090, 24260MiB)\n"
    assert load_facts(v8, "in.txt").torch.version == "2.0.1+cu118"


_COLLECT_ENV = """\
Collecting environment information...
PyTorch version: 1.10.2
Is debug build: False
CUDA used to build PyTorch: 11.3
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.3 LTS (x86_64)
GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0
Clang version: Could not collect
CMake version: version 3.23.1
Libc version: glibc-2.31

Python version: 3.8.12 (default, Oct 12 2021, 13:49:34)  [GCC 7.5.0] (64-bit runtime)
Python platform: Linux-5.4.0-81-generic-x86_64-with-glibc2.17
Is CUDA available: {available}
CUDA runtime version: 11.3.109
GPU models and configuration: Could not collect
Nvidia driver version: Could not collect
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A

Versions of relevant libraries:
[pip3] torch==1.10.2
"""


def test_collect_env_without_nvidia_smi_on_linux_is_no_driver_where_torch_answers_false() -> None:
    found = _found(_COLLECT_ENV.format(available="False"))
    assert "driver.not-loaded" in found
    assert "nvidia-smi" in found["driver.not-loaded"].summary
    assert "driver.not-loaded" not in _found(_COLLECT_ENV.format(available="True"))


def test_a_huawei_ascend_npu_named_alone_is_no_nvidia_gpu_and_points_at_torch_npu() -> None:
    text = "推理时没有用上显卡。服务器上是一张华为 Atlas 300I Pro，24G 显存。\n"
    a = answer(run_checks(discover(plugins=False), load_facts(text, "in.txt")))
    assert a.lead is not None and a.lead.code == "platform.no-nvidia-gpu"
    assert "Ascend" in a.lead.summary and a.lead.fix is not None and "torch_npu" in a.lead.fix.text
    assert "platform.no-nvidia-gpu" not in _codes("An Atlas 300I Pro and an RTX 4090 in one server.\n")


@pytest.mark.parametrize("banner", [
    "ERROR: This container was built for NVIDIA Driver Release 450.36 or later, but\n"
    "       version 440.100 was detected and compatibility mode is UNAVAILABLE.\n",
    "ERROR: This container was built for NVIDIA Driver Release 450.36 or later, but version 440.100 was detected and "
    "compatibility mode is UNAVAILABLE.\n",
])
def test_an_ngc_banner_gives_the_host_driver_and_the_one_the_image_needs(banner: str) -> None:
    facts = load_facts(banner, "in.txt")
    assert facts.driver.version == "440.100"
    found = _found(banner)
    assert "450.36" in found["driver.too-old-for-torch"].summary and "440.100" in found["driver.too-old-for-torch"].summary
    newer = banner.replace("440.100", "470.82.01").replace("450.36", "460.27")
    assert "driver.too-old-for-torch" not in _found(newer)
