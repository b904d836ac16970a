"""Formats and phrasings seen in held-out reports: REPL echoes, install commands, Windows commands, conda plans."""

from __future__ import annotations

import pytest

from gpudoctor.parsers.paste import read_paste


def test_a_repl_that_echoes_nothing_for_torch_version_cuda_shows_a_cpu_build() -> None:
    facts = read_paste(">>> import torch\n>>> torch.version.cuda\n>>> torch.cuda.is_available()\nFalse\n").facts
    assert facts.torch.cuda_compiled is False


def test_a_repl_that_echoes_a_cuda_version_is_not_a_cpu_build() -> None:
    facts = read_paste(">>> torch.version.cuda\n'12.1'\n>>> torch.cuda.is_available()\nTrue\n").facts
    assert facts.torch.cuda == "12.1" and facts.torch.cuda_compiled is not False


def test_print_of_torch_version_cuda_as_none_shows_a_cpu_build() -> None:
    text = 'python -c "import torch; print(torch.__version__, torch.version.cuda)"\n2.3.0 None\n'
    facts = read_paste(text).facts
    assert facts.torch.version == "2.3.0" and facts.torch.cuda_compiled is False


def test_an_install_command_names_what_is_wanted_not_what_is_installed() -> None:
    text = ("```\npip install torch==1.9.0+cu111 torchvision==0.10.0+cu111 -f https://download.pytorch.org/whl/"
            "torch_stable.html\n```\n")
    assert read_paste(text).facts.torch.version is None
    assert read_paste("INFO Torch 2.0.1+cpu\n").facts.torch.version == "2.0.1+cpu"


def test_a_pipe_into_findstr_is_a_windows_command() -> None:
    facts = read_paste("> pip list | findstr torch\ntorch      2.2.1+cu118\ntorchvision 0.17.1\n").facts
    assert facts.platform.system == "Windows"
    assert read_paste("$ pip list | grep torch\ntorch 2.2.1+cu118\n").facts.platform.system != "Windows"


CONDA_PLAN = """\
The following NEW packages will be INSTALLED:

  cpu-only           pytorch/linux-64::cpu-only-1.0-0
  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0
"""
CONDA_UPDATE = """\
The following packages will be UPDATED:

  pytorch                pytorch::pytorch-1.3.1-py3.7_cuda10.1.243_cudnn7.6.3_0 --> pytorch::pytorch-1.4.0-py3.7_cpu_0
"""


def test_a_conda_install_plan_names_the_torch_it_installs() -> None:
    paste = read_paste(CONDA_PLAN)
    assert paste.recognised
    assert paste.facts.torch.version == "1.2.0.dev20190805+cpu" and paste.facts.torch.cuda_compiled is False


def test_a_conda_update_plan_is_read_as_the_new_build() -> None:
    facts = read_paste(CONDA_UPDATE).facts
    assert facts.torch.version == "1.4.0" and facts.torch.cuda_compiled is False
    cuda = read_paste("  pytorch   pytorch::pytorch-1.4.0-py3.7_cpu_0 --> pytorch::pytorch-1.5.0-py3.7_cuda10.2.89_cudnn7.6.5_0\n")
    assert cuda.facts.torch.version == "1.5.0" and cuda.facts.torch.cuda == "10.2"


def test_cpp_scoped_names_are_not_a_conda_plan() -> None:
    assert not read_paste("  c10::Error   at::native::empty_cuda\n").recognised


def _codes(text: str) -> list:
    from gpudoctor.parsers.report import load_facts
    from gpudoctor.registry import discover
    from gpudoctor.runner import run_checks

    report = run_checks(discover(plugins=False), load_facts(text, "paste"))
    return [(f.code, f.severity.value) for f in report.findings() if f.severity.value != "info"]


BULLETS = """\
- **PyTorch Version**: 2.2.0+cu121
- **GPU**: NVIDIA GeForce RTX 5090 (32GB GDDR7)
- **CUDA Version**: 12.8 (Driver 570.181)
- **OS**: Ubuntu (Linux)

```python
import torch
print(f"CUDA Available: {torch.cuda.is_available()}")  # Returns False
print(f"GPU Count: {torch.cuda.device_count()}")       # Returns 0
```
"""


def test_bold_bullets_a_driver_in_brackets_and_answers_in_comments_are_read() -> None:
    facts = read_paste(BULLETS).facts
    assert [g.name for g in facts.gpus] == ["NVIDIA GeForce RTX 5090"]  # the memory note is not part of the name
    assert facts.driver.version == "570.181" and facts.platform.system == "Linux"
    assert facts.torch.is_available is False and facts.torch.device_count == 0
    assert facts.toolkit.nvcc_version is None and "driver.cuda_version" in facts.inferred  # "CUDA Version" is ambiguous
    codes = _codes(BULLETS)
    assert ("gpu.arch-too-new", "error") in codes
    assert not any(code == "devices.visible" for code, _ in codes)  # a count of 0 follows from CUDA not starting


def test_the_container_toolkit_refusing_an_image_for_an_old_driver_is_named() -> None:
    text = ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver "
            "to a newer version, or use an earlier cuda container: unknown.\n")
    assert ("paste.driver-insufficient", "error") in _codes(text)


def test_cudnn_that_a_program_loads_itself_on_windows_is_named() -> None:
    for line in ("Could not load library cudnn_ops_infer64_8.dll. Error code 126",
                 "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!",
                 "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}"):
        codes = _codes(f"```\n{line}\n```\n")
        assert ("paste.cudnn-missing", "error") in codes and ("torch.import-failed", "error") not in codes, line


def test_vllm_finding_no_room_for_its_kv_cache_is_a_working_gpu() -> None:
    text = ('ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when '
            'initializing the engine.\n')
    from gpudoctor.parsers.report import load_facts
    from gpudoctor.registry import discover
    from gpudoctor.render.diagnosis import render_answer
    from gpudoctor.runner import run_checks

    assert _codes(text) == []
    answer = render_answer(run_checks(discover(plugins=False), load_facts(text, "paste")), markdown=False)
    assert "The CUDA environment itself works" in answer and "No available memory for the cache blocks" in answer


def test_a_gpu_name_keeps_no_note_in_brackets_and_an_unknown_torch_is_said_plainly() -> None:
    facts = read_paste("- GPU: NVIDIA GeForce GTX 1050 (compute capability 6.1)\n- torch: 2.8.0+cu128\n").facts
    assert [g.name for g in facts.gpus] == ["NVIDIA GeForce GTX 1050"]
    warning = ("UserWarning: NVIDIA GeForce RTX 5070 with CUDA capability sm_120 is not compatible with the current "
               "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_61 sm_70 "
               "sm_75 sm_80 sm_86 sm_90.\n")
    from gpudoctor.parsers.report import load_facts
    from gpudoctor.registry import discover
    from gpudoctor.runner import run_checks

    report = run_checks(discover(plugins=False), load_facts(warning, "paste"))
    (arch,) = [f for f in report.findings() if f.code == "gpu.arch-too-new"]
    assert arch.summary.startswith("torch (version not shown) has kernels for sm_50..sm_90")


def test_torch_saying_the_gpu_is_too_old_is_the_arch_cause() -> None:
    text = ("UserWarning:\n    Found GPU0 NVIDIA GeForce GTX 770 which is of cuda capability 3.0.\n"
            "    PyTorch no longer supports this GPU because it is too old.\n"
            "    The minimum cuda capability supported by this library is 3.7.\n")
    assert ("paste.gpu-too-old", "error") in _codes(text)


def test_nvidia_smi_finding_no_devices_is_a_gpu_the_driver_cannot_see() -> None:
    assert ("paste.no-device", "error") in _codes("$ nvidia-smi\nNo devices were found\n")


def test_nvidia_smi_not_installed_means_no_driver() -> None:
    for missing in ("bash: nvidia-smi: command not found",
                    "'nvidia-smi' is not recognized as an internal or external command,"):
        text = f"{missing}\n>>> import torch\n>>> torch.__version__\n'1.13.1+cu117'\n"
        facts = read_paste(text).facts
        assert facts.driver.smi_error_text and missing.split(":")[0].strip("'") in facts.driver.smi_error_text
        assert "driver.not-loaded" in [code for code, _ in _codes(text)], missing  # a warning: no GPU is shown


def test_cublas_failing_to_start_is_named_without_blaming_the_install() -> None:
    codes = _codes("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n")
    assert codes == [("paste.math-library-init-failed", "warning")]


def test_torch_without_a_cuda_tag_from_pip_on_windows_is_the_cpu_wheel() -> None:
    text = ("C:\\Users\\me> pip list\nPackage     Version\n----------- -------\ntorch       2.3.0\n\n"
            "C:\\Users\\me> python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n")
    facts = read_paste(text).facts
    assert facts.platform.system == "Windows" and facts.torch.cuda_compiled is False
    assert "torch.cuda_compiled" in facts.inferred
    assert ("paste.cpu-build", "error") in _codes(text) or ("paste.cpu-build", "warning") in _codes(text)
    linux = read_paste("$ pip list\nPackage     Version\n----------- -------\ntorch       2.3.0\n").facts
    assert linux.torch.cuda_compiled is None  # PyPI's Linux wheel is a CUDA build
    conda = read_paste("C:\\Users\\me> conda list torch\n# Name Version Build Channel\n"
                       "pytorch 2.3.0 py3.11_cuda12.1_cudnn8_0 pytorch\n").facts
    assert conda.torch.cuda_compiled is not False  # a conda build says its CUDA in the build string


def test_torchvision_refusing_torch_of_another_cuda_major_is_named() -> None:
    text = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. "
            "PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1.\n")
    assert ("paste.torchvision-cuda-mismatch", "error") in _codes(text)


def _lead(text: str) -> str:
    from gpudoctor.parsers.report import load_facts
    from gpudoctor.registry import discover
    from gpudoctor.render.diagnosis import answer
    from gpudoctor.runner import run_checks

    a = answer(run_checks(discover(plugins=False), load_facts(text, "paste")))
    assert a.lead is not None
    return a.lead.code


def test_secure_boot_refusing_the_module_leads_over_the_module_not_being_loaded() -> None:
    text = ("$ sudo modprobe nvidia\nmodprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n$ nvidia-smi\n"
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
            "NVIDIA driver is installed and running.\n")
    assert _lead(text) == "paste.secure-boot"


def test_a_windows_paging_file_too_small_is_not_a_broken_install() -> None:
    text = ('Traceback (most recent call last):\n  File "main.py", line 1, in <module>\n    import torch\n'
            'OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading '
            '"C:\\\\p\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\cufft64_11.dll" or one of its dependencies.\n')
    assert _lead(text) == "paste.windows-paging-file"


def test_cudnn_version_incompatibility_names_the_shadowing_cudnn() -> None:
    text = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime "
            "version (8, 2, 1). Looks like your LD_LIBRARY_PATH contains incompatible version of cudnn.\n")
    assert _lead(text) == "paste.cudnn-version-mismatch"


@pytest.mark.parametrize("text, code", [
    ("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
     "disable this check\n", "paste.cuda-unavailable"),
    ("CUDA driver initialization failed, you might not have a CUDA gpu.\n", "paste.cuda-unavailable"),
    ("RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.\n", "paste.ptx-toolchain"),
    ("ERROR: torch-2.1.0+cu118-cp311-cp311-win_amd64.whl is not a supported wheel on this platform.\n",
     "paste.torch-version-not-found"),
    ("ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory\n",
     "paste.cuda-lib-missing"),
])
def test_more_messages_users_paste_are_named(text: str, code: str) -> None:
    assert code in [c for c, _ in _codes(text)]
