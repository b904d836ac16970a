"""Pasted texts of extensions built for another torch, kernel logs, framework logs and hidden devices."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Tuple

import pytest

from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer, render_answer
from gpudoctor.runner import run_checks

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from eval_reports import Case, Outcome  # noqa: E402


def _report(text: str):  # type: ignore[no-untyped-def]
    return run_checks(discover(plugins=False), load_facts(text, "paste"))


def _codes(text: str) -> List[Tuple[str, str]]:
    return [(f.code, f.severity.value) for f in _report(text).findings() if f.severity.value != "info"]


@pytest.mark.parametrize("line", [
    "ImportError: /env/lib/python3.7/site-packages/mmcv/_ext.cpython-37m-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN6caffe28TypeMeta21_typeMetaDataInstanceISt7complexIdEEEPKNS_6detail1",
    "ImportError: /env/site-packages/detectron2/_C.cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN2at5sliceE",
])
def test_an_extension_built_for_another_torch_is_named(line: str) -> None:
    assert ("paste.extension-abi", "error") in _codes(f"```\n{line}\n```\n")


@pytest.mark.parametrize("line", [
    "OSError: libtorchaudio.so: undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE",
    "ImportError: /usr/local/lib/python3.5/dist-packages/_torch_sox.cpython-35m-x86_64-linux-gnu.so: undefined "
    "symbol: _ZN2at19UndefinedTensorImpl10_singletonE",
])
def test_torchaudio_built_for_another_torch_is_named_as_torchaudio(line: str) -> None:
    codes = _codes(f"```\n{line}\n```\n")
    assert ("paste.torchaudio-abi", "error") in codes and ("paste.extension-abi", "error") not in codes


def test_torch_s_own_library_missing_a_symbol_is_not_called_an_extension() -> None:
    codes = _codes("OSError: /env/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n")
    assert ("paste.extension-abi", "error") not in codes and ("paste.torch-files-mixed", "error") in codes


def test_nouveau_bound_to_the_gpu_in_a_kernel_log_is_the_cause() -> None:
    text = ("```\n[    5.435274] nouveau 0000:01:00.0: enabling device (0000 -> 0003)\n"
            "[    5.436312] nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)\n```\n")
    facts = read_paste(text).facts
    assert facts.driver.kernel_modules == ("nouveau",) and facts.platform.system == "Linux"
    assert answer(_report(text)).lead.code == "driver.nouveau"  # type: ignore[union-attr]
    lsmod = read_paste("$ lsmod | grep -E 'nvidia|nouveau'\nnouveau              2285568  1\n").facts
    assert lsmod.driver.kernel_modules == ("nouveau",)


def test_lightning_leaving_an_available_gpu_unused_is_a_healthy_environment() -> None:
    text = "```\nGPU available: True (cuda), used: False\nTPU available: False, using: 0 TPU cores\n```\n"
    report = _report(text)
    assert not [f for f in report.findings() if f.severity.value == "error"]
    shown = render_answer(report, markdown=False)
    assert "The CUDA environment itself works" in shown and 'accelerator="gpu"' in shown


def test_visible_devices_naming_an_index_past_the_gpus_is_suspected_when_cuda_finds_none() -> None:
    text = "```\nexport CUDA_VISIBLE_DEVICES=1\n```\n```\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n```\n"
    report = _report(text)
    lead = answer(report).lead
    assert lead is not None and lead.code == "devices.visible"
    assert 'CUDA_VISIBLE_DEVICES="1"' in lead.summary and "unset CUDA_VISIBLE_DEVICES" in (lead.fix.commands if lead.fix else ())
    fine = "```\nexport CUDA_VISIBLE_DEVICES=1\n```\n```\n>>> torch.cuda.is_available()\nTrue\n```\n"
    assert "devices.visible" not in [c for c, _ in _codes(fine)]


def test_the_scorer_counts_one_cause_under_either_of_its_codes() -> None:
    case = Case("x.txt", "https://github.com/o/r/issues/1", "cause", ("packages.torchaudio-mismatch",))
    assert Outcome(case, ("paste.torchaudio-abi",), ("paste.torchaudio-abi",), None, ()).hit
    other = Case("y.txt", "https://github.com/o/r/issues/2", "cause", ("paste.no-driver",))
    assert Outcome(other, ("driver.not-loaded",), ("driver.not-loaded",), None, ()).hit
    assert not Outcome(other, ("gpu.arch-too-new",), ("gpu.arch-too-new",), None, ()).hit


def test_a_slurm_job_without_a_gpu_request_is_suspected_when_cuda_finds_no_gpu() -> None:
    failing = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
               "latest NVIDIA driver is installed and running.\n")
    script = f"```\n#!/bin/bash\n#SBATCH --time=1:00:00\n#SBATCH --mem=16G\nsrun python train.py\n```\n```\n{failing}```\n"
    lead = answer(_report(script)).lead
    assert lead is not None and lead.code == "paste.job-without-gpu"
    assert "srun --gres=gpu:1 nvidia-smi -L" in (lead.fix.commands if lead.fix else ())
    asked = script.replace("#SBATCH --mem=16G", "#SBATCH --gres=gpu:1")
    granted = answer(_report(asked)).lead
    assert granted is not None and granted.code == "paste.job-without-gpu" and "that asks for one" in granted.summary
    working = "```\n#SBATCH --mem=16G\n```\n```\n>>> torch.cuda.is_available()\nTrue\n```\n"
    assert "paste.job-without-gpu" not in [c for c, _ in _codes(working)]


def test_torch_that_cannot_use_a_jetson_gpu_points_at_the_jetpack_build() -> None:
    text = ("I installed torch from the aarch64 wheel on my Jetson Nano (JetPack 4.4 [L4T 32.4.3]). `import torch` "
            "works, but `torch.cuda.is_available()` returns False.\n")
    facts = read_paste(text).facts
    assert facts.platform.machine == "aarch64" and facts.torch.is_available is False
    lead = answer(_report(text)).lead
    assert lead is not None and lead.code == "paste.jetson-torch"
    jetpack = text.replace("`import torch` works, but `torch.cuda.is_available()` returns False.",
                           "torch 2.1.0a0+41361538.nv23.06 is installed.")
    assert "paste.jetson-torch" not in [c for c, _ in _codes(jetpack)]


def test_flashinfer_on_a_gpu_older_than_its_kernels_is_named_as_the_layer() -> None:
    env = ("```\nCUDA available: True\nGPU 0: Tesla T4\nPyTorch: 2.3.1+cu121\nsglang: 0.2.10\nflashinfer: 0.1.3\n```\n")
    report = _report(env)
    (found,) = [f for f in report.findings() if f.code == "paste.flashinfer-gpu"]
    assert found.severity.value == "warning" and "sm_75" in found.summary and "sm_80" in found.summary
    assert "--attention-backend triton" in (found.fix.text if found.fix else "")
    assert "paste.flashinfer-gpu" not in [c for c, _ in _codes(env.replace("Tesla T4", "NVIDIA A100-SXM4-80GB"))]
    assert "paste.flashinfer-gpu" not in [c for c, _ in _codes(env.replace("flashinfer: 0.1.3", "flashinfer: 0.5.2"))]


@pytest.mark.parametrize("text, code", [
    ('OSError: [WinError 1455] \u9875\u9762\u6587\u4ef6\u592a\u5c0f\uff0c\u65e0\u6cd5\u5b8c\u6210\u64cd\u4f5c\u3002 Error loading '
     '"D:\\\\v\\\\torch\\\\lib\\\\cublas64_11.dll" or one of its dependencies.\n', "paste.windows-paging-file"),
    ("On boot I get an error that the NVIDIA kernel module is missing.\n", "paste.kernel-module-missing"),
    ("sudo docker run --gpus all nvidia/cuda:9.0-base nvidia-smi\nunknown flag: --gpus\n", "paste.docker-gpus-flag"),
    ("RuntimeError:\nThe detected CUDA version (11.7) mismatches the version that was used to compile\n"
     "PyTorch (10.2). Please make sure to use the same CUDA versions.\n", "paste.extension-toolkit-mismatch"),
    ("Starting it fails while importing torch: error loading fbgemm.dll (torch\\\\lib\\\\fbgemm.dll or one of its "
     "dependencies).\n", "torch.import-failed"),
    ("The openai-whisper dependency installed a Torch build without CUDA, so it runs on the CPU.\n", "paste.cpu-build"),
])
def test_messages_of_the_seventh_round_are_named(text: str, code: str) -> None:
    assert answer(_report(text)).lead.code == code  # type: ignore[union-attr]


def test_memory_in_use_with_no_process_listed_is_held_by_someone_else() -> None:
    table = ("| NVIDIA-SMI 410.48                 Driver Version: 410.48                    |\n"
             "|   0  Tesla P100-SXM2...  Off  | 00000000:05:00.0 Off |                    0 |\n"
             "| N/A   36C    P0    41W / 300W |  12799MiB / 16280MiB |      0%      Default |\n"
             "| Processes:                                                       GPU Memory |\n"
             "|  GPU       PID   Type   Process name                             Usage      |\n"
             "|=============================================================================|\n"
             "+-----------------------------------------------------------------------------+\n")
    facts = read_paste(table).facts
    assert (facts.gpus[0].memory_used_mib, facts.gpus[0].memory_total_mib) == (12799, 16280)
    assert answer(_report(table)).lead.code == "gpu.memory-held"  # type: ignore[union-attr]
    listed = table.replace("|=============================================================================|\n",
                           "|=============================================================================|\n"
                           "|    0     23410      C   python                                     12789MiB |\n")
    assert read_paste(listed).facts.gpus[0].memory_used_mib is None  # its own program: not someone else's memory


@pytest.mark.parametrize("text, code", [
    ("ImportError: /home/u/.local/lib/python3.10/site-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: "
     "_ZN3c104cuda9SetDeviceEa\n", "paste.extension-abi"),
    ("RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions. PyTorch has "
     "CUDA version 10.1 and torch_scatter has CUDA version 10.2.\n", "paste.extension-abi"),
    ("OSError: libtorch_cuda_cu.so: cannot open shared object file: No such file or directory\n", "paste.extension-abi"),
    ("It looks like a non-CUDA torch was downloaded and replaced the one I had.\n", "paste.cpu-build"),
    ("When installing the node it installs Torch for CPU.\n", "paste.cpu-build"),
])
def test_messages_of_the_eighth_round_are_named(text: str, code: str) -> None:
    assert answer(_report(text)).lead.code == code  # type: ignore[union-attr]


def test_an_ipython_session_and_a_prose_docker_command_are_read() -> None:
    session = ("$ sudo docker run -t -i floydhub/pytorch:latest-gpu-py3 ipython\nIn [1]: import torch\n\n"
               "In [2]: torch.cuda.is_available()\nOut[2]: False\n")
    facts = read_paste(f"```\n{session}```\n").facts
    assert facts.torch.is_available is False
    assert answer(_report(f"```\n{session}```\n")).lead.code == "platform.container"  # type: ignore[union-attr]
    prose = ("I started it with:\n\ndocker run -d -it -p 8848:8888 --name lab gpu-jupyter\n\nbut inside it "
             "\"torch.cuda.is_available()\" returns \"False\".\n")
    assert "platform.container" in [c for c, _ in _codes(prose)]
    assert "platform.container" not in [c for c, _ in _codes("docker run is new to me and torch works fine.\n")]


def test_a_cuda_torch_that_calls_the_driver_too_old_on_an_amd_machine_is_the_wrong_build() -> None:
    text = ("I installed it on an AMD GPU (RX 580) and I don't have an NVIDIA GPU.\n```\n>>> torch.cuda.is_available()\n"
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 10010).\n"
            "False\n```\n")
    report = _report(text)
    lead = answer(report).lead
    assert lead is not None and lead.code == "torch.cuda-build-on-amd"


def test_the_container_toolkit_timing_out_on_the_driver_is_named() -> None:
    text = ("```\nI1213 22:59:16.815216 16353 driver.c:134] starting driver service\n"
            "W1213 22:59:41.850347 16347 driver.c:195] terminating driver service (forced)\n```\n")
    assert answer(_report(text)).lead.code == "paste.container-toolkit-timeout"  # type: ignore[union-attr]


@pytest.mark.parametrize("text, code", [
    ('"/env/site-packages/detectron2/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: '
     '_ZNK2at10TensorBase8data_ptrIdEEPT_v"\n', "paste.extension-abi"),
    ("RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are "
     "incompatible.\n", "paste.torchvision-nms"),
    ('[WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "...\\\\c10.dll" or '
     "one of its dependencies.\n", "torch.import-failed"),
    ("`AssertionError: Torch not compiled with CUDA enabled` - please fall back to mps for those of us on an M1.\n",
     "paste.macos-no-cuda"),
    ("按 requirements.txt 安装时装上的 torch 默认是 CPU 版本，所以 torch.cuda.is_available() 一直返回 False。\n", "paste.cpu-build"),
    ("- **Device:** NVIDIA Jetson Orin Nano Super\n- **bitsandbytes:** 0.46.1 (PyPI aarch64 wheel)\n"
     "RuntimeError: Error named symbol not found at line 233 in file /src/csrc/ops.cu\n", "paste.bitsandbytes-gpu"),
])
def test_messages_of_the_ninth_and_tenth_rounds_are_named(text: str, code: str) -> None:
    assert answer(_report(text)).lead.code == code  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [
    "RuntimeError:\n        An attempt has been made to start a new process before the\n        current process has finished "
    "its bootstrapping phase.\n",
    "(VllmWorkerProcess pid=332367) INFO 06-30 18:37:30 model_runner.py:160] Loading model weights took 17.9828 GB\n",
])
def test_messages_only_a_working_gpu_or_user_code_prints_are_a_healthy_environment(text: str) -> None:
    report = _report(f"```\n{text}```\n")
    assert not [f for f in report.findings() if f.severity.value in ("error", "warning")]
    assert "The CUDA environment itself works" in render_answer(report, markdown=False)


@pytest.mark.parametrize("text, code", [
    ("Error: Could not load library libcudnn_cnn_infer.so.8\n", "paste.cudnn-missing"),
    ("#SBATCH --gres=gpu:1\nIn the job CUDA then says that no GPUs are available.\n", "paste.job-without-gpu"),
])
def test_messages_of_the_eleventh_round_are_named(text: str, code: str) -> None:
    assert answer(_report(text)).lead.code == code  # type: ignore[union-attr]


def test_a_label_out_of_range_assertion_is_a_healthy_environment() -> None:
    report = _report("../aten/src/ATen/native/cuda/Loss.cu:242: Assertion `t >= 0 && t < n_classes` failed.\n")
    assert not [f for f in report.findings() if f.severity.value in ("error", "warning")]
    assert "The CUDA environment itself works" in render_answer(report, markdown=False)


def test_an_install_command_asking_for_a_cuda_newer_than_the_driver_is_named() -> None:
    text = ("conda install pytorch torchvision cudatoolkit=10.2 -c pytorch\n```\n"
            "| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |\n```\n")
    lead = answer(_report(text)).lead
    assert lead is not None and lead.code == "paste.install-cuda" and "CUDA 10.2" in lead.summary
    assert "paste.install-cuda" not in [c for c, _ in _codes(text.replace("cudatoolkit=10.2", "cudatoolkit=10.0"))]


@pytest.mark.parametrize("text, code", [
    ("I get 'Found no NVIDIA driver on your system.' when I start this image on my Mac M1.\n", "paste.macos-no-cuda"),
    ("RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7301\n",
     "paste.cudnn-version-mismatch"),
    ("torch.cuda.is_available() returning False.\n", "paste.cuda-unavailable"),
    ("本地 Win10 机器上装好后，torch.cuda.is_available() 是 False。\n", "paste.cuda-unavailable"),
])
def test_messages_of_the_twelfth_round_are_named(text: str, code: str) -> None:
    assert answer(_report(text)).lead.code == code  # type: ignore[union-attr]
