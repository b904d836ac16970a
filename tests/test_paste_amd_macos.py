"""Pasted reports from AMD GPU machines and Macs: the vendor and platform are read, and the fix fits them."""

from __future__ import annotations

from typing import List, Tuple

from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Report, Severity
from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer
from gpudoctor.runner import run_checks

NO_DRIVER = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
             "installed a driver from http://www.nvidia.com/Download/index.aspx")


def _diagnose(text: str) -> Tuple[Facts, Report, List[Finding]]:
    facts = load_facts(text, "paste.txt")
    report = run_checks(discover(), facts)
    problems = [f for f in report.findings() if f.severity is not Severity.INFO]
    return facts, report, problems


def _codes(problems: List[Finding]) -> List[str]:
    return [f.code for f in problems]


def _lead(report: Report) -> str:
    lead = answer(report).lead
    assert lead is not None
    return lead.code


def _commands(finding: Finding) -> str:
    return "\n".join(finding.fix.commands) if finding.fix else ""


# --- an AMD GPU, and a CUDA build of torch saying it finds no NVIDIA driver ---------------------------------

def test_radeon_model_and_cuda_torch_lead_to_the_rocm_build_not_an_nvidia_driver() -> None:
    text = ("My Radeon RX 7900 XTX box fails in the web UI:\n\n```\n" + NO_DRIVER + "\n```\n\n"
            "```\n$ python -c \"import torch; print(torch.__version__)\"\n2.5.1+cu124\n```\n")
    facts, report, problems = _diagnose(text)
    assert ("paste.amd_gpu", "Radeon RX 7900 XTX") in facts.extra
    assert _lead(report) == "torch.cuda-build-on-amd"
    finding = next(f for f in problems if f.code == "torch.cuda-build-on-amd")
    assert "rocm" in _commands(finding) and "/whl/cu" not in _commands(finding)
    assert "driver.not-loaded" not in _codes(problems)  # no NVIDIA driver install is advised
    assert not any("nvidia.com/Download" in (f.fix.text if f.fix else "") for f in problems)


def test_found_no_nvidia_driver_alone_says_a_cuda_build_on_an_amd_machine() -> None:
    """The message is a CUDA build's own: with an AMD GPU in the paste, torch's version is not needed."""
    text = "Fedora, AMD GPU, kernel 6.8. ComfyUI starts and then:\n\n```\n" + NO_DRIVER + "\n```\n"
    facts, report, problems = _diagnose(text)
    assert facts.torch.version is None and facts.torch.installed is None
    assert _codes(problems) == ["torch.cuda-build-on-amd"]
    evidence = answer(report).evidence
    assert any("AMD GPU" in line for line in evidence) and any("Found no NVIDIA driver" in line for line in evidence)


def test_gfx_name_kfd_node_and_apu_are_amd_evidence() -> None:
    for said in ("rocminfo lists gfx1103 as agent 2", "the compose file maps /dev/kfd and /dev/dri",
                 "it runs on an AMD APU", "AMD Instinct MI250X nodes"):
        facts, _, problems = _diagnose(f"{said}\n\n```\n{NO_DRIVER}\n```\n")
        assert any(k == "paste.amd_gpu" for k, _ in facts.extra), said
        assert "torch.cuda-build-on-amd" in _codes(problems), said


def test_a_ryzen_cpu_with_radeon_graphics_is_no_amd_gpu_evidence() -> None:
    """Laptops with a Ryzen processor name its integrated graphics in the CPU line and often drive an NVIDIA GPU."""
    text = ("CPU: AMD Ryzen 7 5800H with Radeon Graphics\n\n```\n" + NO_DRIVER + "\n```\n")
    facts, _, problems = _diagnose(text)
    assert not any(k == "paste.amd_gpu" for k, _ in facts.extra)
    assert "torch.cuda-build-on-amd" not in _codes(problems)
    assert "driver.not-loaded" in _codes(problems)


def test_an_nvidia_gpu_named_beside_amd_words_is_not_an_amd_machine() -> None:
    text = ("Two cards: an AMD GPU for the display and a GeForce RTX 3090 for compute.\n\n```\n" + NO_DRIVER + "\n```\n")
    _, _, problems = _diagnose(text)
    assert "torch.cuda-build-on-amd" not in _codes(problems)
    assert "driver.not-loaded" in _codes(problems)


def test_amd_words_alone_make_a_paste_recognised_and_say_cuda_cannot_use_the_gpu() -> None:
    text = "I have an AMD GPU (Radeon RX 6600) and a question about ROCm."
    assert read_paste(text).recognised
    _, _, problems = _diagnose(text)
    assert _codes(problems) == ["platform.no-nvidia-gpu"]
    assert "Radeon RX 6600" in problems[0].summary and "ROCm builds" in (problems[0].fix.text if problems[0].fix else "")
    _, _, both = _diagnose("I have an AMD GPU (Radeon RX 6600) and an NVIDIA GeForce RTX 3060.")
    assert "platform.no-nvidia-gpu" not in _codes(both)


def test_next_steps_on_an_amd_machine_ask_for_rocminfo_not_nvidia_smi() -> None:
    _, report, _ = _diagnose("Radeon RX 6700 XT here.\n\n```\n" + NO_DRIVER + "\n```\n")
    steps = [command for command, _ in answer(report).next_steps]
    assert "rocminfo" in steps and "nvidia-smi" not in steps


# --- an AMD GPU and a torch that is not a ROCm build ---------------------------------------------------------

def test_rocm_index_without_a_wheel_for_the_python_means_a_torch_without_rocm() -> None:
    text = ("is_available() is False on my RX 6600.\n\n```\n"
            "pip install torch --index-url https://download.pytorch.org/whl/rocm6.0\n```\n\n"
            "```\n$ python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n```\n\n"
            "Environment: Python 3.7, Ubuntu 22.04\n")
    facts, report, problems = _diagnose(text)
    assert facts.platform.python_version == "3.7"
    assert ("paste.rocm_index", "rocm6.0") in facts.extra
    assert _lead(report) == "paste.cpu-build"
    finding = next(f for f in problems if f.code == "paste.cpu-build")
    assert "Python 3.7" in finding.summary and "3.8-3.12" in finding.summary
    assert finding.fix is not None and "ROCm build" in finding.fix.text and "a Python it supports" in finding.fix.text
    assert "/whl/cu" not in _commands(finding) and "/whl/rocm" in _commands(finding)


def test_rocm_index_with_a_wheel_for_the_python_is_not_judged() -> None:
    text = ("is_available() is False on my RX 6600.\n\n```\n"
            "pip install torch --index-url https://download.pytorch.org/whl/rocm6.0\n```\n\n"
            "```\n$ python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n```\n\n"
            "Environment: Python 3.10, Ubuntu 22.04\n")
    _, _, problems = _diagnose(text)
    assert "paste.cpu-build" not in _codes(problems)


def test_a_cpu_torch_on_an_amd_gpu_is_told_to_install_rocm_not_cuda() -> None:
    text = ("Radeon RX 6800 XT, Ubuntu.\n\n```\n$ python -c \"import torch; print(torch.__version__, "
            "torch.version.cuda)\"\n2.3.1+cpu None\n```\n\n```\nAssertionError: Torch not compiled with CUDA enabled\n```\n")
    _, report, problems = _diagnose(text)
    assert _lead(report) == "paste.cpu-build"
    for finding in problems:
        assert "/whl/cu" not in _commands(finding), finding.code
    finding = next(f for f in problems if f.code == "paste.cpu-build")
    assert finding.severity is Severity.ERROR and "AMD GPU" in finding.summary
    assert "rocm" in _commands(finding)
    assert "paste.not-compiled-with-cuda" not in _codes(problems)


# --- macOS -------------------------------------------------------------------------------------------------------

def test_os_mac_with_a_version_is_macos() -> None:
    text = "```\n- OS: mac 14.1\n- Python: 3.10.4\n```\n\nAssertionError: Torch not compiled with CUDA enabled\n"
    facts, report, problems = _diagnose(text)
    assert facts.platform.system == "Darwin"
    assert _lead(report) == "paste.macos-no-cuda"
    assert not any("/whl/cu" in _commands(f) for f in problems)
    assert "nvidia-smi" not in [command for command, _ in answer(report).next_steps]  # a Mac has none
    evidence = answer(report).evidence
    assert any("OS: mac 14.1" in line for line in evidence)
    assert any("Torch not compiled with CUDA enabled" in line for line in evidence)


def test_apple_silicon_and_wheel_tags_say_macos() -> None:
    for said in ("Running on Apple Silicon (M2).", "Using torch-2.2.0-cp311-none-macosx_11_0_arm64.whl",
                 "conda list shows channel pytorch, platform osx-arm64", "Environment: macOS Sonoma, Python 3.11",
                 "OSError: dlopen(venv/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cpu.dylib)"):
        facts = load_facts(f"{said}\n\nAssertionError: Torch not compiled with CUDA enabled\n", "p.txt")
        assert facts.platform.system == "Darwin", said


def test_mps_in_code_is_not_read_as_a_mac() -> None:
    """Device-selection code naming mps is common on Linux too."""
    text = ('device = "cuda" if torch.cuda.is_available() else "mps"\n\n'
            "AssertionError: Torch not compiled with CUDA enabled\n")
    assert load_facts(text, "p.txt").platform.system != "Darwin"


def test_bitsandbytes_without_gpu_on_macos_names_bitsandbytes() -> None:
    text = ("```\nUserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
            "optimizers, 8-bit multiplication, and GPU quantization are unavailable.\n"
            "/Users/ana/venv/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cpu.so\n```\n")
    facts, report, problems = _diagnose(text)
    assert facts.platform.system == "Darwin"
    assert _lead(report) == "paste.bitsandbytes-platform"
    finding = next(f for f in problems if f.code == "paste.bitsandbytes-platform")
    assert "macOS" in finding.summary and "bitsandbytes" in finding.summary
    assert "paste.macos-no-cuda" not in _codes(problems)
    assert any("compiled without GPU support" in line for line in answer(report).evidence)


def test_bitsandbytes_without_gpu_on_linux_keeps_its_own_message() -> None:
    text = ("```\nUserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
            "optimizers, 8-bit multiplication, and GPU quantization are unavailable.\n"
            "/home/ana/venv/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cpu.so\n```\n")
    _, _, problems = _diagnose(text)
    assert "paste.bitsandbytes-without-gpu" in _codes(problems)
    assert "paste.bitsandbytes-platform" not in _codes(problems)


def test_cuda_unavailable_on_an_amd_gpu_asks_for_rocm_facts_not_nvidia_smi() -> None:
    text = ("RX 6600 XT on Ubuntu.\n\n```\n$ python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n```\n")
    _, report, problems = _diagnose(text)
    assert sorted(_codes(problems)) == ["paste.cuda-unavailable", "platform.no-nvidia-gpu"]
    said = answer(report)  # the AMD GPU is the cause, the unavailable CUDA its symptom
    assert said.lead is not None and said.lead.code == "platform.no-nvidia-gpu" and "RX 6600 XT" in said.lead.summary
    assert [f.code for f in said.same_cause] == ["paste.cuda-unavailable"] and not said.others
    finding = next(f for f in problems if f.code == "paste.cuda-unavailable")
    assert "AMD GPU" in finding.summary
    assert "rocminfo" in _commands(finding) and "torch.version.hip" in _commands(finding)
    assert "nvidia-smi" not in _commands(finding)


def test_cuda_unavailable_with_a_cuda_torch_on_an_amd_gpu_is_one_cause() -> None:
    text = ("Radeon RX 7800 XT.\n\n```\n$ python -c \"import torch; print(torch.__version__, torch.cuda.is_available())\"\n"
            "2.4.1+cu121 False\n```\n")
    _, report, problems = _diagnose(text)
    assert {"torch.cuda-build-on-amd", "paste.cuda-unavailable"} <= set(_codes(problems))
    result = answer(report)
    assert result.lead is not None and result.lead.code == "torch.cuda-build-on-amd"
    assert [f.code for f in result.same_cause] == ["paste.cuda-unavailable"] and not result.others


def test_a_radeon_in_an_intel_mac_is_the_macs_gpu_not_a_rocm_target() -> None:
    text = ("MacBook Pro 16 (2019), AMD Radeon Pro 5500M.\n\nAssertionError: Torch not compiled with CUDA enabled\n")
    facts, report, problems = _diagnose(text)
    assert facts.platform.system == "Darwin"
    assert _lead(report) == "paste.macos-no-cuda"
    assert not any("rocm" in _commands(f) for f in problems)


def test_a_cuda_torch_on_a_windows_amd_machine_is_pointed_at_wsl_not_a_linux_wheel() -> None:
    text = ("Windows 11, Radeon RX 7900 XT.\n\n```\nC:\\Users\\ana\\venv\\Lib\\site-packages\\torch\\cuda\\__init__.py\n"
            + NO_DRIVER + "\n```\n")
    facts, _, problems = _diagnose(text)
    assert facts.platform.system == "Windows"
    finding = next(f for f in problems if f.code == "torch.cuda-build-on-amd")
    assert finding.fix is not None and "WSL 2" in finding.fix.text and "download.pytorch.org/whl" not in _commands(finding)


def test_lspci_rocm_variables_and_plain_words_are_amd_evidence() -> None:
    for said in ("03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 21",
                 "HSA_OVERRIDE_GFX_VERSION=10.3.0 python main.py", "I have an AMD Radeon card",
                 "my Radeon GPU is idle"):
        facts = load_facts(f"{said}\n\n```\n{NO_DRIVER}\n```\n", "p.txt")
        assert any(k == "paste.amd_gpu" for k, _ in facts.extra), said


def test_a_macos_version_key_says_macos() -> None:
    for said in ("- macOS: 14.2.1", "macOS version: Sonoma 14.5"):
        facts = load_facts(f"{said}\n\nAssertionError: Torch not compiled with CUDA enabled\n", "p.txt")
        assert facts.platform.system == "Darwin", said


def test_a_cuda_or_cpu_index_install_on_an_amd_gpu_with_cuda_unavailable_names_the_build() -> None:
    for index, code in (("cu121", "torch.cuda-build-on-amd"), ("cpu", "paste.cpu-build")):
        text = (f"Radeon RX 6950 XT, Ubuntu 22.04.\n\n```\npip install torch --index-url "
                f"https://download.pytorch.org/whl/{index}\n$ python -c \"import torch; print(torch.cuda.is_available())\"\n"
                "False\n```\n")
        _, report, problems = _diagnose(text)
        assert _lead(report) == code, index
        finding = next(f for f in problems if f.code == code)
        assert "rocm" in _commands(finding) and "/whl/cu" not in _commands(finding), index


def test_nvidia_smi_failing_on_an_amd_machine_is_expected_not_a_driver_to_load() -> None:
    text = ("Radeon RX 7900 XTX on Ubuntu 22.04.\n\n```\n$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't "
            "communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n"
            "$ python -c \"import torch; print(torch.__version__, torch.cuda.is_available())\"\n2.4.1+cu121 False\n```\n")
    _, report, problems = _diagnose(text)
    assert _lead(report) == "torch.cuda-build-on-amd"
    assert "driver.not-loaded" not in _codes(problems)
    note = next(f for f in report.findings() if f.code == "driver.not-loaded")
    assert note.severity is Severity.INFO and "none is needed" in note.summary
