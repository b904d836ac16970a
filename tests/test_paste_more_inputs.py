"""More of what issue bodies hold: issue-form answers, JSON dependency dumps, GPUs named in sentences, launcher
flags that set CUDA_VISIBLE_DEVICES, the loader's symbol-version errors, install logs that replace an earlier
torch, conda-forge solves, and pastes that speak of the GPU stack without anything readable."""

from __future__ import annotations

from typing import Tuple

import pytest

from gpudoctor.facts import Facts
from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.report import InputError, load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import render_answer
from gpudoctor.runner import run_checks

COLLECT_ENV_BEFORE = """\
PyTorch version: 2.1.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.3 LTS (x86_64)
Python version: 3.10.12 (main, Jun 11 2023, 05:26:28) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-88-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: Could not collect
GPU models and configuration:
GPU 0: NVIDIA A100-SXM4-80GB
GPU 1: NVIDIA A100-SXM4-80GB

Nvidia driver version: 535.104.05
cuDNN version: Could not collect
"""


def codes(text: str) -> Tuple[str, ...]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return tuple(f.code for f in report.findings() if f.severity.value in ("error", "warning"))


def test_issue_form_answers_under_headings_are_read() -> None:
    text = "### Operating system\n\nWindows\n\n### GPU model\n\nRTX 4070 Ti\n\n### What happened\n\nIt is slow.\n"
    facts = read_paste(text).facts
    assert [g.name for g in facts.gpus] == ["RTX 4070 Ti"]
    assert facts.platform.system == "Windows"


def test_a_json_dependency_dump_names_torch() -> None:
    text = '{\n  "dependencies": {\n    "python"  : "3.10.6" ,\n    "torch"   : "2.3.1+cu118",\n    "xformers": null\n  }\n}\n'
    facts = read_paste("The versions:\n" + text).facts
    assert facts.torch.version == "2.3.1+cu118"
    assert facts.platform.python_version == "3.10.6"


def test_an_issue_form_gpu_and_a_json_torch_are_judged_by_the_arch_check() -> None:
    text = ('### GPU model\n\nGeForce RTX 5070\n\n### Python dependencies\n\n```\n{\n "torch" : "2.5.1+cu121" ,\n'
            ' "cuda" : "12.1"\n}\n```\n')
    assert "gpu.arch-too-new" in codes(text)


def test_a_gpu_named_in_a_sentence_is_used_only_when_nothing_else_names_one() -> None:
    assert [g.name for g in read_paste("I run it on a laptop with a GTX 1650 Ti.\n").facts.gpus] == ["GTX 1650 Ti"]
    smi = "|   0  NVIDIA GeForce RTX 3090   Off  | 00000000:01:00.0  On |                  N/A |\n"
    header = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    facts = read_paste("My friend's RTX 4090 works.\n" + header + smi).facts
    assert [g.name for g in facts.gpus] == ["NVIDIA GeForce RTX 3090"]


def test_a_sentence_retelling_too_old_a_cuda_capability_is_the_kernel_image_error() -> None:
    text = "On my GTX 960 the new install fails: the torch it picked does not support this card (its CUDA capability is too old).\n"
    found = codes(text)
    assert "paste.no-kernel-image" in found


def test_the_loader_symbol_version_error_between_cublas_libraries_is_shadowed_libraries() -> None:
    text = ("OSError: /opt/env/lib/python3.9/site-packages/nvidia/cublas/lib/libcublas.so.11: symbol cublasLtMatmul "
            "version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference\n")
    assert "paste.shadowed-cuda-libs" in codes(text)
    assert "paste.shadowed-cuda-libs" in codes("ImportError: libtorch_cuda.so: undefined symbol: cublasGemmStridedBatchedEx_64\n")


def test_a_launcher_flag_that_hides_gpus_is_a_warning() -> None:
    text = "I have 2 GPUs. I launch it with `python main.py --cuda-device 1` and only one shows up in the list.\n"
    facts = load_facts(text, "in.txt")
    assert facts.env.get("CUDA_VISIBLE_DEVICES") == "1"
    assert facts.driver.gpu_count == 2
    assert "devices.visible" in codes(text)


@pytest.mark.parametrize("line", [
    'set "CUDA_VISIBLE_DEVICES=1"',
    '$env:CUDA_VISIBLE_DEVICES = "1"',
    "os.environ['CUDA_VISIBLE_DEVICES'] = '1'",
    "setenv CUDA_VISIBLE_DEVICES 1",
])
def test_windows_python_and_csh_assignments_of_visible_devices(line: str) -> None:
    assert read_paste(f"{line}\npython train.py\n").facts.env.get("CUDA_VISIBLE_DEVICES") == "1"


def test_pip_install_log_replaces_the_torch_of_an_earlier_collect_env() -> None:
    log = ("\n$ pip install somepackage\nCollecting torch>=2.0\n"
           "  Downloading https://download.pytorch.org/whl/cpu/torch-2.2.0%2Bcpu-cp310-cp310-linux_x86_64.whl (186 MB)\n"
           "  Attempting uninstall: torch\n    Found existing installation: torch 2.1.0+cu121\n"
           "    Uninstalling torch-2.1.0+cu121:\n      Successfully uninstalled torch-2.1.0+cu121\n"
           "Successfully installed somepackage-1.0 torch-2.2.0+cpu\n")
    facts = load_facts(COLLECT_ENV_BEFORE + log, "in.txt")
    assert facts.torch.version == "2.2.0+cpu"
    assert facts.torch.cuda is None
    assert "torch.cpu-build-on-gpu" in codes(COLLECT_ENV_BEFORE + log)


def test_a_windows_pypi_wheel_without_a_local_tag_is_a_cpu_build() -> None:
    log = ("Collecting torch\n  Downloading torch-2.4.0-cp311-cp311-win_amd64.whl (197.9 MB)\n"
           "Successfully installed torch-2.4.0\n")
    facts = read_paste(log).facts
    assert facts.torch.version == "2.4.0"
    assert facts.torch.cuda_compiled is False


def test_uv_install_output_names_the_torch() -> None:
    assert read_paste("Installed 3 packages in 2.1s\n - torch==2.5.1+cu124\n + torch==2.6.0+cu126\n").facts.torch.version == (
        "2.6.0+cu126")


def test_a_sentence_saying_an_install_left_a_cpu_build_replaces_the_earlier_report() -> None:
    text = COLLECT_ENV_BEFORE + "\nAfter `pip install foo`, torch is now the CPU-only build and sees no GPU.\n"
    facts = load_facts(text, "in.txt")
    assert facts.torch.cuda_compiled is False
    assert "torch.cpu-build-on-gpu" in codes(text)
    negated = COLLECT_ENV_BEFORE + "\nAfter the install torch is still not a CPU-only build.\n"
    assert load_facts(negated, "in.txt").torch.version == "2.1.0+cu121"


def test_a_conda_forge_only_environment_where_cuda_is_unavailable_is_the_cpu_build() -> None:
    text = ("conda create -n work mypkg -c conda-forge\nconda activate work\npython -c \"import torch; "
            "print(torch.cuda.is_available())\"\nFalse\n")
    facts = load_facts(text, "in.txt")
    assert facts.torch.cuda_compiled is False and facts.is_inferred("torch.cuda_compiled")
    assert "paste.cpu-build" in codes(text)
    pinned = text.replace("mypkg -c", "mypkg pytorch-gpu -c")
    assert load_facts(pinned, "in.txt").torch.cuda_compiled is None


@pytest.mark.parametrize("text", [
    "# Name  Version  Build  Channel\npytorch  1.13.1  cpu_generic_py310h1e05ea1_0  conda-forge\n",
    "pytorch-cpu  1.13.1  cuda112py310h_0  conda-forge\n",
    "conda install -c conda-forge pytorch-cpu\n",
])
def test_conda_cpu_builds_and_metapackages(text: str) -> None:
    assert read_paste(text).facts.torch.cuda_compiled is False


def _diagnosis(facts: Facts) -> str:
    return render_answer(run_checks(discover(plugins=False), facts))


def test_a_paste_about_the_gpu_with_nothing_readable_gets_a_diagnosis_asking_for_facts() -> None:
    facts = load_facts("Since yesterday my GPU is not used by the training script anymore, no idea why.\n", "in.txt")
    text = _diagnosis(facts)
    assert "cannot be judged yet" in text
    assert "python -m torch.utils.collect_env" in text and "gpudoctor facts" in text


def test_a_paste_with_nothing_of_the_gpu_stack_is_still_refused_with_what_to_paste() -> None:
    with pytest.raises(InputError, match="run `python -m torch.utils.collect_env` or `gpudoctor facts`"):
        load_facts("the printer in room 4 jams every morning\n", "in.txt")


def test_a_launcher_naming_the_torch_device_names_the_gpu_or_says_cuda_is_unavailable() -> None:
    line = "[2025-05-01 10:00:00,000]::[InvokeAI]::INFO --> Using torch device: {}\n"
    facts = read_paste(line.format("NVIDIA GeForce GTX 1080")).facts
    assert [g.name for g in facts.gpus] == ["NVIDIA GeForce GTX 1080"] and facts.torch.is_available is True
    assert read_paste(line.format("CPU")).facts.torch.is_available is False


def test_json_members_with_identifier_keys_and_bare_values() -> None:
    facts = read_paste('{\n  "torch_version": "2.3.0+cu121",\n  "cuda_available": false\n}\n').facts
    assert facts.torch.version == "2.3.0+cu121" and facts.torch.is_available is False


@pytest.mark.parametrize(("line", "version"), [
    ("My torch version is 2.1.0+cpu, which seems wrong.", "2.1.0+cpu"),
    ("`torch.__version__` returns `2.2.1+cu121`", "2.2.1+cu121"),
])
def test_a_sentence_naming_the_torch_version_with_its_build_tag(line: str, version: str) -> None:
    assert read_paste(line + "\n").facts.torch.version == version


@pytest.mark.parametrize(("line", "names"), [
    ("It fails on my Quadro P4000.", ["Quadro P4000"]),
    ("An old laptop with a GeForce MX150.", ["GeForce MX150"]),
    ("We use a TITAN RTX.", ["TITAN RTX"]),
])
def test_more_product_names_in_sentences(line: str, names: list) -> None:
    assert [g.name for g in read_paste(line + "\n").facts.gpus] == names


def test_accelerate_gpu_ids_set_the_visible_devices() -> None:
    facts = read_paste("accelerate launch --gpu_ids 1 train.py\n").facts
    assert facts.env.get("CUDA_VISIBLE_DEVICES") == "1"


def test_a_fleet_or_an_issue_bot_still_refuses_a_paste_with_nothing_readable() -> None:
    with pytest.raises(InputError, match="not gpudoctor facts"):
        load_facts("my GPU does not work\n", "in.txt", allow_partial=False)


def test_a_mamba_plan_row_names_the_cpu_build() -> None:
    plan = ("  Package      Version  Build                        Channel                 Size\n"
            "  + pytorch      2.1.0  cpu_generic_py311h6b1a1b0_0  conda-forge/linux-64    60MB\n")
    facts = read_paste(plan).facts
    assert facts.torch.version == "2.1.0" and facts.torch.cuda_compiled is False
