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
from gpudoctor.render.diagnosis import answer, render_answer
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


@pytest.mark.parametrize("sentence, cc", [
    ("Two RTX PRO 6000 Blackwell cards are idle.", (12, 0)),
    ("The box has an NVIDIA RTX 6000 Ada in it.", (8, 9)),
    ("We rent H800 nodes.", (9, 0)),
    ("a single GB200 superchip", (10, 0)),
])
def test_datacenter_and_workstation_names_in_sentences_name_the_gpu(sentence: str, cc: tuple) -> None:
    gpus = load_facts(sentence + "\ntorch.cuda.is_available() returns False\n", "in.txt").gpus
    assert [g.compute_capability for g in gpus] == [cc]


@pytest.mark.parametrize("sentence", [
    "Windows 11 with an RTX 4070. The app shows no GPU at all.",
    "On my RTX 3060 ComfyUI runs on the CPU instead.",
    "torch 2.4.1+cu121 is installed, but it doesn't use my GPU.",
    "RTX 4090 的显卡用不了",
])
def test_a_gpu_said_to_be_unused_with_no_message_saying_why_is_not_called_healthy(sentence: str) -> None:
    found = _problems(sentence + "\n")
    assert [f.code for f in found if f.code.startswith("paste.")] == ["paste.gpu-unused-unexplained"]
    assert "nvidia-smi" in found[-1].fix.commands


def test_the_words_alone_leave_the_paste_to_be_asked_for_and_a_message_or_answer_settles_it() -> None:
    assert _partial("Since yesterday my GPU is not detected, no idea why.\n")
    assert _codes("My GPU is not detected.\nRuntimeError: Found no NVIDIA driver on your system.\n") != []
    assert "paste.gpu-unused-unexplained" not in _codes(
        "My RTX 3060 is not detected.\nRuntimeError: Found no NVIDIA driver on your system.\n")
    said_true = "RTX 3060 here; it does not use the GPU.\n>>> torch.cuda.is_available()\nTrue\n"
    assert "paste.gpu-unused-unexplained" not in _codes(said_true)


@pytest.mark.parametrize("text, cc", [
    ("Build PyTorch from source with sm_120 support\nSuccessfully installed torch-2.6.0+cu124\n", (12, 0)),
    ("Two cards (SM 12.0) sit idle; torch 2.5.1+cu124 is what the setup script installs.\n", (12, 0)),
    ("My card has compute capability 8.6. torch 1.7.1+cu101 here.\n", (8, 6)),
])
def test_a_gpu_named_only_by_its_architecture_is_judged_against_the_wheel(text: str, cc: tuple) -> None:
    facts = load_facts(text, "in.txt")
    assert [g.compute_capability for g in facts.gpus] == [cc]
    assert "gpu.arch-too-new" in _codes(text)


@pytest.mark.parametrize("text", [
    "Successfully installed torch-2.6.0+cu124\ntorch.cuda.get_arch_list(): sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90\n",
    'Successfully installed torch-2.6.0+cu124\nTORCH_CUDA_ARCH_LIST="12.0" python setup.py install\n',
    "Successfully installed torch-2.6.0+cu124\nnvcc -gencode arch=compute_120,code=sm_120 kernel.cu\n",
    "Successfully installed torch-2.6.0+cu124 on my RTX 3090; the paper's code says it needs sm_80.\n",
])
def test_architectures_of_builds_or_beside_a_named_gpu_do_not_name_the_gpu(text: str) -> None:
    assert all(g.compute_capability != (12, 0) for g in load_facts(text, "in.txt").gpus)


def test_an_install_index_without_kernels_for_the_gpu_is_named_before_torch_runs() -> None:
    text = ("RTX 5080 here.\npip install torch --index-url https://download.pytorch.org/whl/cu124\n"
            "Collecting torch\n")
    found = [f for f in _problems(text) if f.code == "paste.install-arch"]
    assert len(found) == 1 and found[0].severity.value == "error" and found[0].cause == "gpu.arch-too-new"
    assert "cu124" in found[0].summary and "sm_120" in found[0].summary and "12.8" in found[0].fix.text
    assert "paste.install-arch" not in _codes(text.replace("cu124", "cu128"))
    assert "paste.install-arch" not in _codes(text.replace("RTX 5080", "RTX 3080"))


def test_an_install_index_too_new_for_an_old_gpu_says_so() -> None:
    text = "GTX 680\npip3 install torch --index-url https://download.pytorch.org/whl/cu121\n"
    found = [f for f in _problems(text) if f.code == "paste.install-arch"]
    assert len(found) == 1 and found[0].cause == "gpu.arch-too-old" and "older CUDA index" in found[0].fix.text


@pytest.mark.parametrize("text, code", [
    ("  File \"roi_align.py\", line 20, in forward\nRuntimeError: Not compiled with GPU support\n",
     "paste.extension-build-without-cuda"),
    ("NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc123 (size 9637888)\n",
     "paste.nccl-system-error"),
    ("misc/shmutils.cc:72 NCCL WARN Call to posix_fallocate failed : No space left on device\n",
     "paste.nccl-system-error"),
    ("singularity exec img.sif python train.py\nunable to find libcuda.so.1\n", "paste.libcuda-missing"),
    ("RTX 3060 here.\nUserWarning: FP16 is not supported on CPU; using FP32 instead\n", "paste.cuda-unavailable"),
    ("Sometimes nvidia-smi prints: Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n",
     "paste.gpu-fell-off-the-bus"),
    ("ImportError: /env/lib/libstdc++.so.6: version GLIBCXX_3.4.29 not found (required by ext.so)\n",
     "paste.libstdcxx-too-old"),
    ("OSError: /env/site-packages/torch_sparse/_version.so: undefined symbol: **_ZN3c106detail12infer_schema20make**\n",
     "paste.extension-abi"),
    ("# rocminfo\nROCk module is NOT loaded, possibly no GPU devices\n", "paste.hip-no-device"),
])
def test_retold_and_markdown_mangled_messages_are_read(text: str, code: str) -> None:
    codes = _codes(text)
    assert code in codes or _shared(code) in codes


def _shared(code: str) -> str:
    from gpudoctor.checks.support.paste_causes import SHARED_CAUSE
    return SHARED_CAUSE.get(code[len("paste."):], code)


def test_torch_s_own_not_compiled_message_stays_the_cpu_build() -> None:
    codes = _codes("AssertionError: Torch not compiled with CUDA enabled\n")
    assert "paste.not-compiled-with-cuda" in codes and "paste.extension-build-without-cuda" not in codes


def test_an_out_of_memory_error_told_with_hyphens_is_a_working_gpu() -> None:
    text = "Inference always ends in an out-of-memory error on my 80 GB GPU.\n"
    assert not _partial(text) and not [f for f in _problems(text) if f.severity.value == "error"]
    assert any(f.code == "paste.out-of-memory" for f in run_checks(discover(plugins=False),
                                                                    load_facts(text, "in.txt")).findings())


def test_a_radeon_named_in_passing_is_an_amd_gpu() -> None:
    found = _problems("My card is a Radeon.\ntorch.cuda.is_available(): False\n")
    assert "AMD" in found[0].summary
    laptop = _problems("AMD Ryzen 7 5800H with Radeon Graphics and an RTX 3060\ntorch.cuda.is_available(): False\n")
    assert all("AMD" not in f.summary for f in laptop)


def test_nvidia_smi_l_entries_run_into_one_line_are_four_gpus_of_one_model() -> None:
    line = " ".join(f"GPU {i}: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-{i}7a571b1-79ee-1016-8ea3-c1fff3f1c1d2)"
                    for i in range(4))
    facts = load_facts(f"### Hardware: GPU\n\n{line}\n", "in.txt")
    assert [(g.index, g.name) for g in facts.gpus] == [(i, "NVIDIA GeForce RTX 2080 Ti") for i in range(4)]
    assert "devices.order" not in _codes(f"{line}\n")


def test_conda_s_pytorch_channel_on_a_jetson_is_not_the_jetpack_build() -> None:
    text = ("I want to run this on a Jetson Xavier NX.\n"
            "conda install pytorch==1.5.0 torchvision==0.6.0 cudatoolkit=10.2 -c pytorch\n"
            "PackagesNotFoundError: The following packages are not available from current channels:\n")
    assert "paste.jetson-torch" in _codes(text)


def test_a_container_started_without_gpus_and_said_to_find_none_is_the_missing_flag() -> None:
    text = ("docker run -it --name box pytorch/pytorch:latest /bin/bash\n\n"
            "Inside the container PyTorch cannot detect the GPUs.\n")
    lead = _problems(text)[0]
    assert lead.code == "platform.container" and "without GPU access" in lead.summary


def test_a_symptom_without_its_cause_is_not_presented_as_the_cause() -> None:
    report = run_checks(discover(plugins=False), load_facts("RTX 4070 on Windows 11. The app shows no GPU.\n", "in.txt"))
    text = render_answer(report)
    assert "The symptom, with no cause in the paste yet:" in text and "Most likely cause" not in text
    assert "\nNext: " in text and "\nFix: " not in text
    cause = run_checks(discover(plugins=False), load_facts("RuntimeError: Found no NVIDIA driver on your system.\n",
                                                           "in.txt"))
    assert "Most likely cause" in render_answer(cause)


@pytest.mark.parametrize("text, code", [
    ("/usr/local/share/lua/5.1/cudnn/ffi.lua:1598: 'libcudnn (R5) not found in library path.\nPlease install CuDNN\n"
     "Then make sure files named as libcudnn.so.5 or libcudnn.5.dylib are placed in your library load path\n",
     "paste.cudnn-missing"),
    ("AssertionError: Invalid CUDA '--device 0' requested, use '--device cpu' or pass valid CUDA device(s)\n",
     "paste.cuda-unavailable"),
    ("ValueError: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s)\n",
     "paste.cuda-unavailable"),
    ("RuntimeError: PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please reinstall\n",
     "paste.torchvision-cuda-mismatch"),
    ("ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module\n",
     "paste.kernel-module-missing"),
    ("Secure boot - Unable to load the kernel module 'nvidia.ko', ubuntu24.04 DRIVER_VERSION=535.161.07\n",
     "paste.secure-boot"),
    ("jcuda.CudaException: CUDA_ERROR_OUT_OF_MEMORY\n", "paste.out-of-memory"),
])
def test_more_messages_of_other_tools_and_eras_are_read(text: str, code: str) -> None:
    findings = run_checks(discover(plugins=False), load_facts(text, "in.txt")).findings()
    assert code in [f.code for f in findings]
    assert load_facts(text, "in.txt").platform.system != "Darwin"


@pytest.mark.parametrize("command, cpu", [
    ("conda install -c pytorch pytorch=1.9.1 torchvision cudatoolkit=11.6", True),
    ("conda install pytorch==1.13.1 torchvision cudatoolkit=11.7 -c pytorch", True),
    ("conda install -c pytorch pytorch=1.9.1 torchvision cudatoolkit=11.1", False),
    ("conda install pytorch==1.13.1 pytorch-cuda=11.7 cudatoolkit=11.7 -c pytorch -c nvidia", False),
    ("conda install -c conda-forge pytorch=1.9.1 cudatoolkit=11.6", False),
])
def test_a_conda_pin_with_no_cuda_build_of_that_release_gets_the_cpu_build(command: str, cpu: bool) -> None:
    facts = load_facts(f"I installed it with\n{command}\n", "in.txt")
    assert (facts.torch.cuda_compiled is False) is cpu
    if cpu:
        assert facts.is_inferred("torch.cuda_compiled") and "paste.cpu-build" in _codes(f"{command}\n")
        shown = "GPU works:\n" + command + "\n>>> torch.cuda.is_available()\nTrue\n"
        assert load_facts(shown, "in.txt").torch.cuda_compiled is None


def test_a_name_sold_with_several_chips_takes_the_capability_the_paste_gives() -> None:
    text = "I have a GeForce GT 730, which uses CUDA (compute capability) 3.5, but pyTorch does not support it.\n"
    assert [g.compute_capability for g in load_facts(text, "in.txt").gpus] == [(3, 5)]
    assert "gpu.arch-too-old" in _codes(text)
    known = "My RTX 3090 does not work; the paper says its kernels need sm_80.\n"
    assert [g.compute_capability for g in load_facts(known, "in.txt").gpus] == [(8, 6)]


def test_an_installer_said_to_pick_the_cpu_build_names_it() -> None:
    assert "paste.cpu-build" in _codes("On the aarch64 host the installer picked the PyPI `torch==2.10.0` CPU build.\n")


def test_text_on_a_fence_s_opening_line_is_read() -> None:
    text = ("Running train.py gives:\n\n```RuntimeError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; "
            "4.00 GiB total capacity)\n(no backtrace available)```\n")
    assert not _partial(text) and "paste.out-of-memory" in [
        f.code for f in run_checks(discover(plugins=False), load_facts(text, "in.txt")).findings()]
    assert load_facts("```python\nimport torch\n```\n\n```\nRuntimeError: Found no NVIDIA driver on your system.\n```\n",
                      "in.txt").torch.init_error


@pytest.mark.parametrize("sentence, starved", [
    ("I can't explain why GPU usage stays around 25% while its memory is full.", True),
    ("GPU usage stays around 95% the whole time.", False),
])
def test_low_gpu_usage_in_words_is_a_gpu_waiting_for_data(sentence: str, starved: bool) -> None:
    codes = [f.code for f in run_checks(discover(plugins=False), load_facts(sentence + "\n", "in.txt")).findings()] \
        if not _partial(sentence + "\n") else []
    assert ("paste.gpu-waits-for-data" in codes) is starved


def test_is_available_true_said_with_words_between_is_read() -> None:
    text = ("When I check torch.cuda.is_available() myself it returns True, but in the training script the GPU is "
            "not used.\nInside the script torch.cuda.is_available() is False for me.\n")
    assert _codes(text) == ["paste.gpu-hidden-in-one-run"]
    assert read_true("torch.cuda.is_available() does not return True for me") is None
    assert read_true("assert torch.cuda.is_available() should return True") is None


def read_true(sentence: str) -> object:
    from gpudoctor.parsers.paste import read_paste
    return read_paste(sentence + "\n").facts.torch.is_available


@pytest.mark.parametrize("text, vm", [
    ("Ubuntu 20.04 inside a VirtualBox VM.\nAssertionError: Invalid CUDA '--device 0' requested, use '--device cpu'\n",
     True),
    ("Ubuntu guest in VMware with GPU passthrough.\nRuntimeError: No CUDA GPUs are available\n", False),
    ("VirtualBox is installed too.\nRuntimeError: Found no NVIDIA driver on your system.\n", False),
    ("Running on a Parallels Desktop guest.\nRuntimeError: Found no NVIDIA driver on your system.\n", True),
])
def test_a_desktop_virtual_machine_has_no_gpu(text: str, vm: bool) -> None:
    assert ("paste.vm-no-gpu" in _codes(text)) is vm


@pytest.mark.parametrize("text", [
    "In the container torch for R does not see the GPU: `cuda_is_available` returns `False`.\n",
    "> library(torch)\n> cuda_is_available()\n[1] FALSE\n",
])
def test_torch_for_r_answering_false_says_cuda_is_unavailable(text: str) -> None:
    assert load_facts(text, "in.txt").torch.is_available is False


def test_torch_for_r_answering_true_is_a_working_gpu() -> None:
    assert load_facts("> torch::cuda_is_available()\n[1] TRUE\n", "in.txt").torch.is_available is True


def test_markdown_escapes_in_prose_are_read_as_what_they_escape_but_windows_paths_are_kept() -> None:
    assert load_facts("import torch\nprint(torch.\\_\\_version\\_\\_)\n2.1.0+cpu\n", "in.txt").torch.version == "2.1.0+cpu"
    from gpudoctor.parsers.paste.segments import split
    path = "C:\\Users\\me\\_work\\torch\\lib\\c10.dll"
    assert split(path + "\n").segments[0].lines[0].text == path


@pytest.mark.parametrize("text, code", [
    ("RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.1.\nMake sure that it is installed correctly.\n",
     "paste.cuda-lib-missing"),
    ("OSError: /root/.cache/ext/ops.so: undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12\n",
     "paste.extension-newer-toolkit"),
    ("程序运行的时候提示：\nno CUDA-capable is detected\n", "paste.no-device"),
    ("Not found GPU in current device. Please check your device or set args.use_gpu as False\n",
     "paste.cuda-unavailable"),
])
def test_runtime_library_toolkit_and_device_messages_of_other_eras_are_read(text: str, code: str) -> None:
    codes = _codes(text)
    assert code in codes or _shared(code) in codes


@pytest.mark.parametrize("text, summary", [
    ("CUDA error at kernel.cu:596 code=700(cudaErrorIllegalAddress) \"cudaDeviceSynchronize()\"\n",
     "accessed memory"),
    ("RuntimeError: CUDA error: invalid configuration argument\nCUDA kernel errors might be asynchronously reported\n",
     "grid or block size"),
])
def test_kernel_bugs_of_the_program_are_a_working_environment(text: str, summary: str) -> None:
    findings = run_checks(discover(plugins=False), load_facts(text, "in.txt")).findings()
    assert not [f for f in findings if f.severity.value in ("error", "warning")]
    assert any(summary in f.summary for f in findings if f.code.startswith("paste."))


def test_is_available_said_true_in_lower_case_then_a_script_seeing_none_is_a_hidden_gpu() -> None:
    text = ("RuntimeError: No CUDA GPUs are available\n\nWhen I run `torch.cuda.is_available()` it shows `true`, "
            "and CUDA works in every other project.\n")
    assert _codes(text) == ["paste.gpu-hidden-in-one-run"]


def test_an_app_saying_it_found_no_supported_gpu_and_an_old_out_of_memory_are_read() -> None:
    assert "paste.cuda-unavailable" in _codes("No supported Nvidia GPU found\n")
    findings = run_checks(discover(plugins=False), load_facts("I get \"cuda runtime error: out of memory\".\n", "in.txt"))
    assert "paste.out-of-memory" in [f.code for f in findings.findings()]


def test_an_index_named_in_words_is_judged_against_the_gpu() -> None:
    text = "Two RTX PRO 6000 Blackwell cards sit idle.\nThe setup script installs torch from the cu124 index.\n"
    assert "paste.install-arch" in _codes(text)
    assert "paste.install-arch" not in _codes(text.replace("cu124", "cu128"))


def test_torchscript_s_unknown_torchvision_op_and_cuda_error_nine_are_read() -> None:
    assert "paste.torchvision-nms" in _codes("Unknown builtin op: torchvision::nms.\nCould not find any similar ops\n")
    findings = run_checks(discover(plugins=False), load_facts("RuntimeError: cuda runtime error (9)\n", "in.txt"))
    assert [f.code for f in findings.findings() if f.code.startswith("paste.")] == ["paste.invalid-launch-configuration"]
    assert not [f for f in findings.findings() if f.severity.value in ("error", "warning")]


@pytest.mark.parametrize("text, code", [
    ("NameError: name '_C' is not defined\n\n  File \"proj/models/ms_deform_attn.py\", line 53, in forward\n"
     "    output = _C.ms_deform_attn_forward(\n", "paste.extension-build-without-cuda"),
    ("ms_deform_attn.py:31: UserWarning: Failed to load custom C++ ops. Running on CPU mode Only!\n",
     "paste.extension-build-without-cuda"),
    ("Detectron2 Compiler       GCC 7.4\nDetectron2 CUDA Compiler  not available\nCUDA_HOME                 None\n",
     "paste.extension-build-without-cuda"),
    ("nvidia-docker run --rm nvidia/cuda nvidia-smi\nError: Could not load UVM kernel module.\n", "paste.uvm-not-loaded"),
    ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n",
     "paste.container-without-driver"),
    ("import error\n\nlibtorch_cuda.so:%20undefined%20symbol:%20ncclCommRegister\n", "paste.shadowed-cuda-libs"),
    ("Are Radeon GPUs supported?\n\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n",
     "paste.no-kernel-image"),
    ("RuntimeError: \"cuFFT error: CUFFT_INTERNAL_ERROR\" on RTX4090\n", "paste.cufft-internal-error"),
])
def test_extension_driver_container_and_library_messages_of_the_later_rounds(text: str, code: str) -> None:
    assert code in _codes(text)


def test_torch_s_own_missing_c_extension_is_not_an_extension_built_without_cuda() -> None:
    text = ("  File \"/home/me/pytorch/torch/__init__.py\", line 229, in <module>\n"
            "NameError: name '_C' is not defined\n")
    assert "paste.extension-build-without-cuda" not in _codes(text)


@pytest.mark.parametrize("text, summary", [
    ("ERROR:root:Requested float16 compute type, but the target device or backend do not support efficient float16 "
     "computation.\nMy GPU is a 1080 Ti.\n", "no fast float16"),
    ("conv.py:456: UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: "
     "cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED\n", "declined one convolution plan"),
])
def test_warnings_of_a_working_gpu_are_not_errors(text: str, summary: str) -> None:
    findings = run_checks(discover(plugins=False), load_facts(text, "in.txt")).findings()
    assert not [f for f in findings if f.severity.value == "error"]
    assert any(summary in f.summary for f in findings)


def test_a_collect_env_cpu_build_answering_false_beside_a_cuda_run_is_the_cpu_build() -> None:
    text = (">>> torch.cuda.is_available()\nTrue\n\n>>> torch.cuda.is_available()\nFalse\n\n"
            "PyTorch version: 2.1.0.dev20230905\nIs debug build: False\nCUDA used to build PyTorch: Could not collect\n"
            "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.3 LTS (x86_64)\nIs CUDA available: False\n")
    codes = _codes(text)
    assert "paste.cpu-build" in codes and "paste.gpu-hidden-in-one-run" not in codes


def test_an_extension_without_cuda_on_a_mac_is_the_mac_s_missing_cuda() -> None:
    text = ("/Users/me/gsa/ms_deform_attn.py:31: UserWarning: Failed to load custom C++ ops. Running on CPU mode Only!\n"
            "Mac 12.4, M1\n")
    assert "paste.macos-no-cuda" in _codes(text) and "paste.extension-build-without-cuda" not in _codes(text)


@pytest.mark.parametrize("text, code", [
    ("ImportError: /env/site-packages/torchvision/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
     "_ZN3c106Device8validateEv\n", "paste.torchvision-nms"),
    ("ImportError：torchvision/_C.so:undefined symbol: _ZN3c105ErrorC1E\n", "paste.torchvision-nms"),
    ("The versions seem not to match: there is an import error about the symbol "
     "`_ZN6caffe26detail36_typeMetaDataInstance_preallocated_7E`.\n", "paste.extension-abi"),
    ("THCudaCheck FAIL file=torch/extra/cutorch/lib/THC/THCGeneral.c line=70 error=30 : unknown error\n",
     "paste.error-999"),
    ("E cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n", "paste.error-999"),
    ("variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.\n",
     "paste.error-999"),
])
def test_symbols_and_unknown_errors_of_every_era_are_read(text: str, code: str) -> None:
    codes = _codes(text)
    judged = {"paste.error-999": "driver.uvm"}  # the driver check judges error 999 from the facts on Linux
    assert code in codes or _shared(code) in codes or judged.get(code) in codes


def test_a_symbol_told_in_a_title_and_in_torchvision_s_library_is_torchvision_s() -> None:
    text = ("_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: _ZN3c106Device8validateEv\n\n"
            "ImportError: /env/site-packages/torchvision/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
            "_ZN3c106Device8validateEv\n")
    codes = _codes(text)
    assert "paste.torchvision-nms" in codes or "torchvision.import-failed" in codes
    assert "paste.extension-abi" not in codes


def test_cudnn_s_cnn_infer_warning_is_a_warning_and_a_failed_load_an_error() -> None:
    warning = ("conv.py:456: UserWarning: Attempt to open cnn_infer failed: handle=0 error: libcudnn_cnn_infer.so.8: "
               "cannot open shared object file: No such file or directory\n")
    found = _problems(warning)
    assert [(f.code, f.severity.value) for f in found] == [("paste.cudnn-cnn-infer-warning", "warning")]
    failed = warning + "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open\n"
    assert "paste.cudnn-missing" in _codes(failed)


def test_a_driver_message_retold_explains_the_run_that_answered_false() -> None:
    text = (">>> torch.cuda.is_available()\nTrue\n\nAfter updating pytorch to 1.2:\n>>> torch.cuda.is_available()\n"
            "False\n\nWhen I run my program the message says my Nvidia version is too old.\n")
    codes = _codes(text)
    assert "paste.driver-too-old" in codes and "paste.gpu-hidden-in-one-run" not in codes


def test_libtorch_s_cmake_config_without_the_cuda_toolkit_is_the_missing_cuda_libraries() -> None:
    text = ("CMake Error at torch/share/cmake/Caffe2/Caffe2Config.cmake:90 (message):\n"
            "  Your installed Caffe2 version uses CUDA but I cannot find the CUDA\n  libraries.  Please set the proper CUDA "
            "prefixes and / or install CUDA.\n")
    assert "paste.linker-without-cuda-libs" in _codes(text)


@pytest.mark.parametrize("code_line, value, flagged, where", [
    ('self.device = torch.device("cuda:3" if torch.cuda.is_available() else "cpu")', "4,3", True, "cuda:1"),
    ("model.cuda(2)", "0,1", True, ""),
    ('x = x.to("cuda:1")', "2,3", False, ""),
])
def test_a_gpu_index_beyond_the_visible_list_is_named(code_line: str, value: str, flagged: bool, where: str) -> None:
    text = f'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "{value}"\n{code_line}\n'
    found = [f for f in _problems(text) if f.code == "paste.device-index"]
    assert bool(found) is flagged
    if flagged:
        assert found[0].severity.value == "error" and where in found[0].summary


def test_a_program_finding_no_driver_where_nvidia_smi_shows_one_runs_where_the_driver_does_not_reach() -> None:
    text = ("FreeBSD host, PyTorch in a Linux compat conda environment.\n"
            "| NVIDIA-SMI 510.60.02    Driver Version: 510.60.02    CUDA Version: 11.6     |\n"
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU\n")
    found = [f for f in _problems(text) if f.code == "paste.no-driver"]
    assert found and "510.60.02" in found[0].summary and "does not reach" in found[0].summary
    alone = _problems("RuntimeError: Found no NVIDIA driver on your system.\n")
    assert alone and not any("does not reach" in f.summary for f in alone)


def test_gpus_named_only_in_sentences_are_not_judged_as_one_machine_s_order() -> None:
    text = "My RTX 5060 fails the same way another user reported for the RTX 5090: \"no kernel image\".\n"
    codes = _codes(text)
    assert "devices.order" not in codes and "paste.no-kernel-image" in codes


def test_nvidia_smi_s_cut_name_is_the_same_gpu_as_the_full_name() -> None:
    text = ("GPU 0: NVIDIA GeForce RTX 4090\n"
            "|   0  NVIDIA GeForce ... WDDM  | 00000000:01:00.0  On |                  Off |\n"
            "| 31%   30C    P8    14W / 450W |    916MiB / 24564MiB |      2%      Default |\n")
    assert [g.name for g in load_facts(text, "in.txt").gpus] == ["NVIDIA GeForce RTX 4090"]


def test_a_missing_c_module_where_torch_works_is_the_extension_s() -> None:
    text = "NameError: name '_C' is not defined\n\nthis is my info.\nCUDA is available.\nGPU 0: NVIDIA GeForce RTX 4090\n"
    assert "paste.extension-build-without-cuda" in _codes(text)


@pytest.mark.parametrize("text, code", [
    ("The wiki's `conda install pytorch torchvision cudatoolkit=10.1 -c pytorch` only installs the CPU versions of "
     "pytorch at the moment.\n", "paste.cpu-build"),
    ("CUDA not available - defaulting to CPU. Note: This module is much faster with a GPU.\n", "paste.cuda-unavailable"),
])
def test_cpu_versions_said_and_easyocr_s_notice_are_read(text: str, code: str) -> None:
    assert code in _codes(text)


@pytest.mark.parametrize("text, code", [
    ("RuntimeError: cuda runtime error (710) : device-side assert triggered at /pytorch/THC\n", "paste.device-side-assert"),
    ("and got RuntimeError: cuda runtime error (710) during training.\n", "paste.device-side-assert"),
    ("THCudaCheck FAIL file=/opt/THC/generic/THCStorage.cu line=58 error=2 : out of memory\n", "paste.out-of-memory"),
    ("Expected object of device type cuda but got device type cpu for argument #3 'index' in call to _th_index_select\n",
     "paste.tensors-on-different-devices"),
    ("I keep running out of VRAM with the node, whatever I set; I have 12 GB.\n", "paste.out-of-memory"),
])
def test_old_wordings_of_a_working_gpu_s_errors_are_read(text: str, code: str) -> None:
    findings = run_checks(discover(plugins=False), load_facts(text, "in.txt")).findings()
    assert code in [f.code for f in findings] and not [f for f in findings if f.severity.value == "error"]


def test_the_torch_version_stated_in_a_sentence_is_read() -> None:
    facts = load_facts("It does not work; my torch version is ``torch=2.1.0``.\n", "in.txt")
    assert facts.torch.version == "2.1.0"
    assert load_facts("Should I install torch 2.1.0 or 2.0.1?\nRuntimeError: No CUDA GPUs are available\n",
                      "in.txt").torch.version is None


@pytest.mark.parametrize("text, code", [
    ("CUDA Error 802 on all H200 jobs.\n - Platform: macOS-26.2-arm64-arm-64bit (my local client)\n", "paste.error-802"),
    ("AssertionError: CUDA must be available in order to use Deep Daze\n", "paste.cuda-unavailable"),
    ("install-pytorch.sh ImportError: libcudart.so.10.0\n", "paste.cuda-lib-missing"),
    ("It fails with a CUDAError, InsufficientDriver.\n", "paste.driver-insufficient"),
    ("ImportError undefined symbol: _ZNK2at6Tensor6deviceEv\n", "paste.extension-abi"),
    ("The executable keeps printing \"no ROCm-capable devide is detected.\"\n", "paste.hip-no-device"),
    ("Can I get CUDA support for darknet inside a VMware virtual machine running Ubuntu 18.04?\n", "paste.vm-no-gpu"),
])
def test_messages_of_the_forty_first_rounds_are_read(text: str, code: str) -> None:
    codes = _codes(text)
    assert code in codes or _shared(code) in codes


def test_a_gpu_check_inside_docker_build_is_the_build_step_without_a_gpu() -> None:
    text = ("#0 920.0 stderr: Traceback (most recent call last):\n"
            "#0 920.0 AssertionError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS\n")
    found = _problems(text)
    assert found[0].code == "paste.gpu-check-at-build" and found[0].cause == "platform.container"
    assert "paste.gpu-check-at-build" not in _codes("AssertionError: Torch is not able to use GPU\n")


def test_float16_refused_beside_a_gpu_with_fast_float16_means_the_cpu_runs_it() -> None:
    text = "My RTX 4050 still says the device does not support efficient float16 computation.\n"
    found = [f for f in _problems(text) if f.code == "paste.cuda-unavailable"]
    assert found and "runs on the CPU" in found[0].summary
    old = "My GTX 1080 Ti says the device does not support efficient float16 computation.\n"
    assert not _problems(old)


def test_russian_words_for_the_graphics_card_make_a_paste_one_to_ask_about() -> None:
    assert _partial("Как сделать, чтобы whisper использовал видеокарту, а не процессор?\n")


@pytest.mark.parametrize("text, code", [
    ("  what():  #owl: no CUDA capable devices found!\n", "paste.no-device"),
    ("failed call to cuInit: CUDA_ERROR_NO_DEVICE\n", "paste.no-device"),
    ("CUDA error at kernel.cu:76 code=209(cudaErrorNoKernelImageForDevice) \"cudaGetLastError()\"\n",
     "paste.no-kernel-image"),
    ("panic: CUDA_ERROR_UNKNOWN\n", "paste.error-999"),
    ("F0504 common.cpp:163] Check failed: error == cudaSuccess (30 vs. 0) unknown error\n", "paste.error-999"),
    ("Cuda error(35),CUDA driver version is insufficient for CUD runtime version\n", "paste.driver-insufficient"),
    ("Error: cudaGetDeviceCount failed in GetCUDADeviceCountImpl, error code : 35, Please see\n",
     "paste.driver-insufficient"),
    ("\"cudaRuntimeGetVersion() failed with error #35\"\n", "paste.driver-insufficient"),
    ("ImportError: /home/me/libtorch/lib/libtorch_python.so: undefined symbol: PyThread_tss_alloc\n",
     "paste.torch-files-mixed"),
])
def test_cuda_s_numbered_errors_as_other_programs_print_them_are_read(text: str, code: str) -> None:
    codes = _codes(text)
    judged = {"paste.error-999": "driver.uvm"}
    assert code in codes or _shared(code) in codes or judged.get(code) in codes


@pytest.mark.parametrize("text, code", [
    ("RuntimeError: Your device does not support the current version of Torch/CUDA! Consider download another version\n",
     "paste.no-kernel-image"),
    ("ValueError: Expected a cuda device, but got: cpu\n", "paste.cuda-unavailable"),
    ("Installing torch and torchvision\nRuntimeError: Couldn't install torch.\n", "paste.torch-version-not-found"),
])
def test_launchers_and_projects_own_checks_are_read(text: str, code: str) -> None:
    assert code in _codes(text)


@pytest.mark.parametrize("text, answer", [
    ("PyTorch 베이스라인에서 `torch.cuda.is_available()`을 실행하면 False가 나와서 GPU를 사용하지 않습니다.\n", False),
    ("`torch.cuda.is_available()` 返回 True，但是训练很慢\n", True),
])
def test_an_answer_told_in_any_language_beside_is_available_is_read(text: str, answer: bool) -> None:
    from gpudoctor.parsers.paste import read_paste
    assert read_paste(text).facts.torch.is_available is answer



@pytest.mark.parametrize("attribute, cpu", [
    ("python310Packages.pytorch", True),
    ("python3Packages.torch", True),
    ("python310Packages.pytorch-bin", False),
    ("python3Packages.torchWithCuda", False),
])
def test_nixpkgs_source_built_torch_that_finds_no_cuda_is_the_cpu_build(attribute: str, cpu: bool) -> None:
    text = f"nix-shell -p {attribute} --run 'python3 -c \"import torch; print(torch.cuda.is_available())\"'\nFalse\n"
    facts = load_facts(text, "in.txt")
    assert (facts.torch.cuda_compiled is False) is cpu
    if cpu:
        assert facts.is_inferred("torch.cuda_compiled") and "paste.cpu-build" in _codes(text)
    working = text.replace("\nFalse\n", "\nTrue\n")
    assert load_facts(working, "in.txt").torch.cuda_compiled is None
