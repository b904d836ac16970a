"""Messages wrapped over two lines, outputs written as comments, old-era CUDA errors, old GPUs named in prose, and
torch on a Jetson that the paste says came from conda-forge, PyPI or the pytorch.org command."""

from __future__ import annotations

from typing import List

from gpudoctor.model import Finding
from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.paste.signatures import Sig
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


def _problems(text: str) -> List[Finding]:
    report = run_checks(discover(plugins=False), load_facts(text, "in.txt"))
    return [f for f in report.findings() if f.severity.value in ("error", "warning")]


def _codes(text: str) -> List[str]:
    return [f.code for f in _problems(text)]


def test_a_message_wrapped_over_two_lines_is_read_on_its_first_line() -> None:
    text = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different\n"
            "CUDA versions. PyTorch has CUDA Version=12.1 and torchvision has CUDA\nVersion=11.8.\n")
    paste = read_paste(text)
    assert Sig.TORCHVISION_CUDA in paste.signatures()
    assert next(o.line for o in paste.observations if o.value is Sig.TORCHVISION_CUDA) == 1


def test_two_lines_are_joined_only_for_a_message_that_runs_across_them() -> None:
    text = "The build went fine and I ran the script.\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    paste = read_paste(text)
    assert [o.line for o in paste.observations if o.path == "signature"] == [2]
    assert read_paste("compiled with different\nrecipes than the docs say\n").signatures() == ()


def test_an_output_written_as_a_comment_under_the_command_is_read() -> None:
    text = 'python -c "import torch; print(torch.cuda.is_available())"\n# False\n'
    assert load_facts(text, "in.txt").torch.is_available is False
    note = 'python -c "import torch; print(torch.cuda.is_available())"\n# Note: run on the login node\n'
    assert load_facts(note, "in.txt").torch.is_available is None


def test_a_srun_step_that_prints_false_under_a_job_without_a_gpu_request_is_named() -> None:
    text = ('python -c "import torch; print(torch.cuda.is_available())"\n# True\n\n'
            'srun python -c "import torch; print(torch.cuda.is_available())"\n# False\n')
    assert "paste.job-without-gpu" in _codes(text)
    assert "paste.job-without-gpu" not in _codes(text.replace("srun python", "srun --gres=gpu:1 python").replace(
        "# False", "# True"))


def test_cuda_s_unknown_error_in_its_old_and_new_forms_names_the_broken_uvm_module() -> None:
    for line in ("RuntimeError: cuda runtime error (30) : unknown error at /pytorch/torch/lib/THC/THCGeneral.c:70",
                 "RuntimeError: CUDA error: unknown error"):
        found = next(f for f in _problems(line + "\n") if f.code == "driver.uvm")
        assert "unknown error" in found.summary and line in found.detail


def test_a_gpu_older_than_every_official_wheel_is_named_without_the_torch_version() -> None:
    text = "My laptop GPU is an NVIDIA GeForce GT 740M.\ntorch.cuda.is_available() returns False\n"
    found = next(f for f in _problems(text) if f.code == "gpu.arch-too-old")
    assert found.inferred and "sm_30" in found.summary and "sm_37" in found.summary
    works = "My laptop GPU is an NVIDIA GeForce GT 740M.\n>>> torch.cuda.is_available()\nTrue\n"
    assert "gpu.arch-too-old" not in _codes(works)
    assert "gpu.arch-too-old" not in _codes(text.replace("GT 740M", "GTX 1080"))


def test_laptop_gpu_names_with_an_m_suffix_are_read_from_prose() -> None:
    facts = load_facts("Running on a GTX 960M and torch.cuda.is_available() returns False\n", "in.txt")
    assert [g.name for g in facts.gpus] == ["GTX 960M"]


JETSON = ("I installed the CUDA-enabled pytorch package from conda-forge on my Jetson Orin.\n"
          "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n")


def test_torch_from_conda_forge_on_a_jetson_with_failing_cuda_work_is_not_the_jetpack_build() -> None:
    found = next(f for f in _problems(JETSON) if f.code == "paste.jetson-torch")
    assert "conda-forge" in found.detail and "CUDA work fails" in found.detail
    works = ("I installed the CUDA-enabled pytorch package from conda-forge on my Jetson Orin.\n"
             ">>> torch.cuda.is_available()\nTrue\n")
    assert "paste.jetson-torch" not in _codes(works)
    nv = JETSON + "torch 2.1.0a0+41361538.nv23.06\n"
    assert "paste.jetson-torch" not in _codes(nv)


def test_a_jetbot_is_a_jetson_and_the_pytorch_org_command_is_not_its_torch() -> None:
    text = ("I just got my JetBot. I followed the directions on the pytorch webpage and ran the command it gave.\n"
            "torch: 1.9.0\n")
    facts = load_facts(text, "in.txt")
    assert facts.platform.machine == "aarch64"
    assert "paste.jetson-torch" in _codes(text)


def test_true_in_one_run_and_false_in_another_is_a_hidden_gpu_not_a_broken_install() -> None:
    text = ("I put `print(torch.cuda.is_available())` in the sampler. It prints `True` when I run train.py, but `False` "
            "when I run the sampler on its own.\n")
    found = [f for f in _problems(text)]
    assert [f.code for f in found] == ["paste.gpu-hidden-in-one-run"]
    assert "True on line 1, False on line 1" in found[0].detail
    assert not [f for f in found if f.severity.value == "error"]
    repl = ">>> torch.cuda.is_available()\nTrue\n\n(in the container)\n>>> torch.cuda.is_available()\nFalse\n"
    assert "paste.gpu-hidden-in-one-run" in _codes(repl)
    assert "paste.cuda-unavailable" not in _codes(repl)


def test_a_misaligned_address_is_a_bug_in_the_code_on_a_working_gpu() -> None:
    text = "CUDA error 716 at ggml-cuda.cu:7546: misaligned address\nThis started after updating.\n"
    facts = load_facts(text, "in.txt")
    assert "misaligned-address" in [v for k, v in facts.extra if k == "paste.signature"]
    assert not any(k == "paste.partial" for k, _ in facts.extra)
    assert _problems(text) == []


def test_is_available_said_to_return_true_is_read_and_an_expectation_is_not() -> None:
    assert load_facts("torch.cuda.is_available() returns True but training is slow\n", "in.txt").torch.is_available
    assert load_facts("I expected torch.cuda.is_available() to return True\n", "in.txt").torch.is_available is None


def test_ranks_sharing_one_gpu_and_an_out_of_memory_error_in_prose_are_working_gpus() -> None:
    nccl = 'I get "ncclInvalidUsage" with "Duplicate GPU detected": 4 processes and only 1 GPU.\n'
    oom = "Memory is only used on the first gpu, so I get the OUT OF MEMORY ERROR.\n"
    for text in (nccl, oom):
        facts = load_facts(text, "in.txt")
        assert not any(k == "paste.partial" for k, _ in facts.extra)
        assert _problems(text) == []
    assert read_paste("the job runs out of memory on the CPU side\n").signatures() == ()


def test_nccl_s_peer_access_and_system_errors_are_named_with_their_usual_fixes() -> None:
    p2p = ("z-pc:1:2 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not "
           "supported between these two devices\n")
    found = _problems(p2p)
    assert [f.code for f in found] == ["paste.nccl-peer-access"] and found[0].severity.value == "warning"
    assert found[0].fix is not None and any("NCCL_P2P_DISABLE=1" in c for c in found[0].fix.commands)
    system = ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error "
              "(run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n")
    assert [f.code for f in _problems(system)] == ["paste.nccl-system-error"]


def test_nvcc_without_the_architecture_is_a_toolkit_problem_and_bf16_or_a_bad_access_is_the_program_s() -> None:
    nvcc = "nvcc fatal   : Unsupported gpu architecture 'compute_89'\n"
    assert [f.code for f in _problems(nvcc)] == ["paste.nvcc-unsupported-arch"]
    for text in ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
                 "T4 GPU has compute capability 7.5.\n",
                 "RuntimeError: CUDA error: an illegal memory access was encountered\n"):
        assert _problems(text) == []
        assert not any(k == "paste.partial" for k, _ in load_facts(text, "in.txt").extra)
