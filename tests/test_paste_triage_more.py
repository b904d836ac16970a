"""Pastes as a triage bot meets them: a script that hides the GPU torch saw, old CUDA error numbers, retold
messages (nvidia-smi missing, a DLL failing, Docker without a GPU runtime), the build scripts that refuse without
CUDA, containers whose start is not shown, wheels named as what was installed, and questions about speed."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor.model import Finding
from gpudoctor.parsers.paste.vendors import _evidence
from gpudoctor.parsers.report import InputError, load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer
from gpudoctor.runner import run_checks


def _problems(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.severity.value in ("error", "warning")]


def _codes(text: str) -> List[str]:
    return [f.code for f in _problems(text)]


def _partial(text: str) -> bool:
    return any(k == "paste.partial" for k, _ in load_facts(text, "in.txt").extra)


def test_is_available_true_then_no_cuda_gpus_in_the_script_is_a_gpu_the_script_hides() -> None:
    text = ("Installed: python3.6 cuda10.2 pytorch1.8.0\ntorch.cuda.is_available(): True\n\nbut the training script "
            "gives:\nRuntimeError: No CUDA GPUs are available\n")
    found = _problems(text)
    assert [f.code for f in found] == ["paste.gpu-hidden-in-one-run"]
    assert "No CUDA GPUs are available" in found[0].detail
    assert _codes("RuntimeError: No CUDA GPUs are available\n") == ["paste.no-device"]


def test_two_answers_in_a_sentence_wrapped_over_two_lines_are_read() -> None:
    text = ("If I add print(torch.cuda.is_available()) at the start of main it prints True, but the same\n"
            "torch.cuda.is_available() inside the evaluate function returns False.\n")
    assert _codes(text) == ["paste.gpu-hidden-in-one-run"]


@pytest.mark.parametrize("text, code", [
    ("docker: Error response from daemon: could not select device driver with capabilities: [[gpu]].\n",
     "paste.docker-no-gpu-driver"),
    ("NotImplementedError: Cuda is not availabel\n", "paste.extension-build-without-cuda"),
    ("RuntimeError: cuda runtime error (100)\n", "paste.no-device"),
    ("RuntimeError: cuda runtime error (38) : no CUDA-capable device is detected at torch/csrc/cuda/Module.cpp:32\n",
     "paste.no-device"),
    ("As soon as I generate I get: no cuda gpus available. My GPU is a GTX 1060 6GB.\n", "paste.no-device"),
    ("进入容器之后，`nvcc -V` 能显示 CUDA 版本，但是 `nvidia-smi` 命令返回错误 command not found。\n", "platform.container"),
    ("On Windows I got a torch error while loading the c10.dll library.\n", "paste.windows-dll"),
])
def test_retold_and_numbered_messages_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_the_build_script_s_message_names_both_things_it_needs() -> None:
    found = _problems("NotImplementedError: Cuda is not availabel\n")[0]
    assert "CUDA_HOME" in found.summary and found.fix is not None and "cudatoolkit" in found.fix.text


def test_a_container_said_in_prose_that_finds_no_gpu_is_one_started_without_it() -> None:
    text = "I pulled the official docker image, but after installing the dependencies torch.cuda.is_available() = False\n"
    found = next(f for f in _problems(text) if f.code == "platform.container")
    assert found.severity.value == "warning" and found.fix is not None and "--gpus all" in found.fix.text
    works = text + "nvidia-smi in the container: | NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
    assert "platform.container" not in _codes(works)


def test_a_radeon_named_by_its_number_and_suffix_alone_is_amd() -> None:
    assert list(_evidence("Is the 9070xt not usable on Windows?")) == ["9070xt"]
    assert list(_evidence("an RTX 3070 with 8 GB")) == []


def test_a_torch_wheel_named_as_what_was_installed_gives_the_version_and_a_fetched_one_does_not() -> None:
    named = "I installed this torch:\nhttps://example.org/dl/torch-2.7.0a0+rocm_git3f903c3-cp311-cp311-win_amd64.whl\n"
    assert load_facts(named, "in.txt").torch.version == "2.7.0a0+rocm_git3f903c3"
    fetched = ("Collecting torch\n  Downloading https://download.pytorch.org/whl/cu121/torch-2.1.0%2Bcu121-cp310-cp310-"
               "linux_x86_64.whl (2200.6 MB)\nERROR: No space left on device\n")
    assert load_facts(fetched, "in.txt").torch.version is None


def test_a_paste_that_says_only_the_cpu_is_used_asks_for_facts_instead_of_being_refused() -> None:
    assert _partial("我在 Windows 上跑的时候发现全程都在用 CPU，换到 Ubuntu 上还是只用 CPU。\n")
    assert _partial("Training still runs on the CPU, no idea why.\n")
    with pytest.raises(InputError):
        load_facts("The CPU fan is loud when the printer prints.\n", "in.txt")


def test_a_gpu_slower_than_the_cpu_is_a_question_of_timing_on_a_working_gpu() -> None:
    for text in ("Why is the GPU version slower than the CPU? One image takes 0.8 s on CPU and 3.4 s on GPU.\n",
                 "请问为什么 CPU 版的 torch 测试速度比 GPU 版更快？\n"):
        assert _problems(text) == [] and not _partial(text)


def test_nvml_s_mismatch_where_gpu_training_is_said_to_work_is_a_warning_about_nvidia_smi() -> None:
    text = ("Training a neural network on the GPU works correctly, but nvidia-smi prints:\n"
            "Failed to initialize NVML: Driver/library version mismatch\n")
    found = next(f for f in _problems(text) if f.code == "driver.nvml-mismatch")
    assert found.severity.value == "warning" and "torch still sees the GPU" in found.summary
    broken = "Failed to initialize NVML: Driver/library version mismatch\n"
    assert next(f for f in _problems(broken) if f.code == "driver.nvml-mismatch").severity.value == "error"
    assert load_facts("Training on the GPU does not work.\n", "in.txt").torch.is_available is None


def test_nvidia_smi_working_in_a_container_where_cuda_does_not_start_points_at_dev_nvidia_uvm() -> None:
    text = ("can't use cuda in container. Inside the container \"nvidia-smi\" and \"nvcc -V\" both work.\n"
            ">>> torch.cuda.is_available()\nFalse\n")
    found = _problems(text)
    assert found[0].code == "driver.uvm" and "/dev/nvidia-uvm" in found[0].summary
    assert found[0].fix is not None and "sudo nvidia-modprobe -u -c=0" in found[0].fix.commands
    assert "driver.uvm" not in _codes(text.replace("both work", "both fail"))
    host = "nvidia-smi works fine on this machine.\n>>> torch.cuda.is_available()\nFalse\n"
    assert "driver.uvm" not in _codes(host)


@pytest.mark.parametrize("text, code", [
    ("ImportError: DLL load failed while importing _ext\n", "paste.windows-dll"),
    ("RuntimeError: CUDA error: invalid device function\n", "paste.no-kernel-image"),
    ("RuntimeError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. 'torchvision::nms' is "
     "only available for these backends: [CPU, BackendSelect].\n", "paste.torchvision-cuda-mismatch"),
    ("挂载的时候就弹出提示，无法连接到 GPU 后端，怎么办？\n", "paste.colab-no-gpu"),
    ("PyTorch built with CUDA:         False\nPyTorch detects CUDA available:  False\n", "paste.cpu-build"),
])
def test_more_messages_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


@pytest.mark.parametrize("text", [
    "RuntimeError: cuda runtime error (2)\n",
    "RuntimeError: CUDA error:out of memory\n",
    "cuda = True if torch.cuda.is_available else False\n",
])
def test_messages_of_programs_on_a_working_gpu_or_of_their_own_code_give_no_error(text: str) -> None:
    assert _problems(text) == [] and not _partial(text)


def test_a_driver_message_of_another_library_where_torch_works_is_named() -> None:
    text = ("Faiss assertion 'err__ == cudaSuccess' failed; details: CUDA error 35 CUDA driver version is insufficient "
            "for CUDA runtime version\n>>> torch.version.cuda\n'8.0.61'\n>>> torch.cuda.is_available()\nTrue\n"
            "| NVIDIA-SMI 384.130                Driver Version: 384.130                   |\n")
    assert "paste.driver-insufficient" in _codes(text)


def test_a_title_that_only_names_the_error_gives_way_to_the_full_message_below_it() -> None:
    text = ("[WinError 126]\n\nOSError: [WinError 126] Le module spécifié est introuvable. Error loading "
            "\"C:\\ai\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.import_error is not None and "c10.dll" in facts.torch.import_error


@pytest.mark.parametrize("text, code", [
    ("Unable to determine the device handle for GPU0000:03:00.0: Unknown Error\n", "paste.gpu-fell-off-the-bus"),
    ("error while loading shared libraries: libcudart,so.11.0: cannot open shared object file: No such file\n",
     "paste.cuda-lib-missing"),
    ("UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount(). Error 101: hipErrorInvalidDevice\n",
     "paste.hip-no-device"),
    ("NCCL failure all_reduce.cu:95 'unhandled cuda error'\n", "paste.nccl-cuda-error"),
    ("RuntimeError: cuda runtime error (98) : invalid device function at emd_kernel.cu:190\n", "paste.no-kernel-image"),
    ("../../x86_64-conda-linux-gnu/bin/ld: cannot find -lcudart: No such file or directory\n",
     "paste.linker-without-cuda-libs"),
])
def test_lost_gpus_retyped_libraries_hip_nccl_and_linker_messages_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_a_colab_notebook_without_a_gpu_is_the_runtime_s_and_not_the_local_card_s() -> None:
    text = ("I cannot use the Google Colab notebooks. Every time:\nRuntimeError: Found no NVIDIA driver on your "
            "system.\nMy graphics card is a GIGABYTE Radeon RX 6600 Eagle 8G.\n")
    lead = answer(run_checks(discover(plugins=False), load_facts(text, "in.txt"))).lead
    assert lead is not None and lead.code == "paste.colab-no-gpu"
    assert lead.fix is not None and "Change runtime type" in lead.fix.text
    assert "torch.cuda-build-on-amd" not in _codes(text)
    local = text.replace("the Google Colab notebooks", "the notebooks")
    assert "paste.colab-no-gpu" not in _codes(local)


def test_a_pipeline_without_a_device_and_cudnn_s_internal_error_are_read() -> None:
    pipe = ("Hardware accelerator e.g. GPU is available in the environment, but no 'device' argument is passed to the "
            "'Pipeline' object. Model will be on CPU.\n")
    facts = load_facts(pipe, "in.txt")
    assert facts.torch.is_available is True and _problems(pipe) == []
    assert any(k == "paste.framework_cpu" for k, _ in facts.extra)
    cudnn = "cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)  CUDNN_STATUS_INTERNAL_ERROR\n"
    assert _codes(cudnn) == ["paste.math-library-init-failed"]


@pytest.mark.parametrize("text, code", [
    ("When I checked torch.cuda.is_available() on my Mac (M1), the device came back as 'cpu'.\n", "paste.macos-no-cuda"),
    ("I would love to run this on my M1 Ultra. Creating the conda environment fails with:\n\nResolvePackageNotFound: \n"
     "  - cudatoolkit=11.3\n", "paste.macos-no-cuda"),
    ("RuntimeError: No HIP GPUs are available\n", "paste.hip-no-device"),
    ("- Error name: (<cudaError_t.cudaSuccess: 0>, b'cudaErrorInsufficientDriver')\n", "paste.driver-insufficient"),
    ("CUDA device not found on my NVIDIA Jetson TX2\nAssertionError: CUDA unavailable, invalid device 0 requested\n",
     "paste.jetson-torch"),
    ("[Jetson TX2] After \"pip3 install torch\", using torch gives an illegal instruction error.\n", "paste.jetson-torch"),
])
def test_macs_hip_cuda_s_error_names_and_jetsons_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


def test_colab_s_missing_gpu_is_the_same_cause_as_no_nvidia_gpu() -> None:
    from gpudoctor.checks.support.paste_causes import SHARED_CAUSE
    assert SHARED_CAUSE["colab-no-gpu"] == "platform.no-nvidia-gpu"


@pytest.mark.parametrize("text, code", [
    ("ImportError: /home/u/miniconda3/envs/p/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required "
     "by /home/u/miniconda3/envs/p/lib/python3.10/site-packages/torch/lib/libtorch_python.so)\n",
     "paste.libstdcxx-too-old"),
    ("Whether the issue is on WSL 2 and/or WSL 1: WSL2\nLinux Kernel: 4.19.121-microsoft-standard\n"
     "Actual: it crashes with `CUDA error: unknown error`\n", "paste.error-999"),
    ("Docling unavailable: [WinError 1114] Dynamic Link Library (DLL) initialization routine failed. Error loading\n",
     "paste.windows-dll"),
    ("no kernel image is available for execution this device\n", "paste.no-kernel-image"),
])
def test_runtime_library_wsl_dll_and_kernel_messages_are_named(text: str, code: str) -> None:
    assert code in _codes(text)


@pytest.mark.parametrize("text", [
    "Why is my GPU not fully used, only at 8%?\n",
    "Training is slow and GPU utilization stays at 0% most of the time.\n",
    "训练的时候显存可以占满，但是 GPU 利用率很低。\n",
])
def test_a_gpu_waiting_for_data_is_a_working_gpu(text: str) -> None:
    assert _problems(text) == [] and not _partial(text)


def test_a_gpu_said_to_be_unused_without_a_figure_is_not_read_as_waiting_for_data() -> None:
    assert "gpu-waits-for-data" not in [v for k, v in load_facts("My GPU is not used at all, torch says no CUDA.\n",
                                                                  "in.txt").extra if k == "paste.signature"]


@pytest.mark.parametrize("text, code", [
    ("Cuda devices unavailable or busy\n", "paste.device-busy"),
    ("This program was not compiled for SM 89 : cudaErrorInvalidDevice: invalid device ordinal\n", "paste.no-kernel-image"),
    ("Title: CUDA error: no kernel image available\n", "paste.no-kernel-image"),
    ("[Bug] he detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.8).\n",
     "paste.extension-toolkit-mismatch"),
    ('sudo docker run -it --entrypoint /bin/bash 709fa9395949\npython -c "import torch; '
     'print(torch.cuda.is_available()) -> False"\n', "platform.container"),
])
def test_retold_busy_kernel_toolkit_and_arrow_answers_are_read(text: str, code: str) -> None:
    assert code in _codes(text)
