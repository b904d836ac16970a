"""Pastes from Macs whose Python or torch is built for another CPU, Linux containers on a Mac, and xformers without
its CUDA extension: each is read and named as its own cause."""

from __future__ import annotations

from typing import List, Tuple

from gpudoctor.causes import causes
from gpudoctor.facts import Facts
from gpudoctor.model import Report, Severity
from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks


def _run(text: str) -> Tuple[Facts, Report]:
    facts = load_facts(text, "paste.txt")
    return facts, run_checks(discover(), facts)


def _leads(report: Report) -> List[str]:
    return [c.lead.code for c in causes(report)]


def _finding(report: Report, code: str) -> str:
    found = [f for f in report.findings() if f.code == code and f.severity is not Severity.INFO]
    assert found, f"no {code} problem in {[f.code for f in report.findings()]}"
    return " ".join(f"{f.summary} {f.detail} {f.fix.text if f.fix else ''}" for f in found)


# --- torch's libraries built for another CPU than the Python loading them ------------------------------------------

DLOPEN = ("Traceback (most recent call last):\n  File \"main.py\", line 3, in <module>\n    import torch\n"
          "ImportError: dlopen(/opt/envs/sd/lib/python3.11/site-packages/torch/_C.cpython-311-darwin.so, 0x0002): "
          "tried: '/opt/envs/sd/lib/python3.11/site-packages/torch/_C.cpython-311-darwin.so' (mach-o file, but is an "
          "incompatible architecture (have '{have}', need '{need}'))\n")


def test_an_x86_64_torch_in_an_arm64_python_is_named_with_both_architectures() -> None:
    facts, report = _run(DLOPEN.format(have="x86_64", need="arm64"))
    assert facts.platform.system == "Darwin" and facts.platform.machine == "arm64"
    assert _leads(report) == ["platform.machine"]
    text = _finding(report, "platform.machine")
    assert "built for x86_64" in text and "runs as arm64" in text and "--no-cache-dir" in "\n".join(
        next(f for f in report.findings() if f.code == "platform.machine").fix.commands)


def test_a_native_library_in_an_x86_64_python_says_the_python_is_the_wrong_one() -> None:
    _, report = _run(DLOPEN.format(have="arm64", need="x86_64"))
    assert _leads(report) == ["platform.machine"]
    assert "native arm64 Python" in _finding(report, "platform.machine")


def test_an_incompatible_architecture_outside_torch_is_not_torch_failing_to_import() -> None:
    text = ("OSError: dlopen(/opt/envs/a/lib/libsndfile.dylib, 0x0006): tried: '/opt/envs/a/lib/libsndfile.dylib' "
            "(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))")
    facts, report = _run(text)
    assert facts.torch.import_error is None
    assert _leads(report) == ["platform.machine"]


# --- an x86_64 Python under Rosetta on Apple silicon ---------------------------------------------------------------

def test_an_x86_64_platform_string_on_an_apple_chip_is_rosetta() -> None:
    text = ("My MacBook Pro M3 does not find torch 2.5.\n```\n>>> import platform\n>>> platform.platform()\n"
            "'macOS-13.6-x86_64-i386-64bit'\n```\n")
    facts, report = _run(text)
    assert (facts.platform.system, facts.platform.machine) == ("Darwin", "x86_64")
    assert _leads(report) == ["platform.machine"]
    assert "2.2.2" in _finding(report, "platform.machine")


def test_platform_machine_printing_x86_64_with_rosetta_translated_is_rosetta() -> None:
    text = ">>> platform.machine()\n'x86_64'\n$ sysctl sysctl.proc_translated\nsysctl.proc_translated: 1\n" \
           "Running on macOS 14.4\n"
    facts, report = _run(text)
    assert facts.platform.machine == "x86_64"
    assert "Rosetta" in _finding(report, "platform.machine")


def test_collect_env_of_an_x86_64_python_on_an_apple_m2_names_rosetta_and_the_old_macos_version() -> None:
    text = ("PyTorch version: 2.2.2\nIs debug build: False\nCUDA used to build PyTorch: None\n"
            "ROCM used to build PyTorch: N/A\n\nOS: macOS 14.5 (x86_64)\n\n"
            "Python version: 3.11.9 (main, Apr 19 2024, 11:44:45) [Clang 14.0.6 ] (64-bit runtime)\n"
            "Python platform: macOS-10.16-x86_64-i386-64bit\nIs CUDA available: False\n\nCPU:\nApple M2 Max\n")
    facts, report = _run(text)
    assert facts.platform.machine == "x86_64"
    assert _leads(report) == ["platform.machine"]
    assert "10.16" in _finding(report, "platform.machine")


def test_an_intel_mac_is_no_problem() -> None:
    _, report = _run(">>> platform.platform()\n'macOS-12.7-x86_64-i386-64bit'\n")
    assert _leads(report) == []
    assert any(f.code == "platform.machine" for f in report.findings())  # a note on the last x86_64 release


def test_an_arm64_python_on_an_apple_chip_is_no_problem() -> None:
    _, report = _run("Apple M1\n>>> platform.platform()\n'macOS-14.1-arm64-arm-64bit'\n")
    assert not [f for f in report.findings() if f.code == "platform.machine"]


# --- a Linux container on a Mac ---------------------------------------------------------------------------------

def test_a_linuxkit_aarch64_container_asking_for_mps_is_the_mac_host() -> None:
    text = (">>> platform.platform()\n'Linux-6.6.26-linuxkit-aarch64-with-glibc2.35'\n"
            ">>> torch.backends.mps.is_available()\nFalse\n")
    facts, report = _run(text)
    assert facts.platform.container == "docker" and facts.torch.mps_available is False
    assert _leads(report) == ["platform.container"]
    finding = next(f for f in report.findings() if f.code == "platform.container")
    assert finding.severity is Severity.ERROR and "MPS" in finding.summary


def test_docker_desktop_for_mac_named_in_prose_is_the_mac_host() -> None:
    text = "I run the image in Docker Desktop for Mac and torch.cuda.is_available() returns False.\n"
    assert "platform.container" in _leads(_run(text)[1])


def test_an_x86_64_linuxkit_kernel_is_not_taken_for_a_mac() -> None:
    _, report = _run(">>> platform.platform()\n'Linux-5.15.49-linuxkit-x86_64-with-glibc2.31'\n")
    assert not [f for f in report.findings() if f.code == "platform.container" and "Mac" in f.summary]


def test_mps_answers_are_read_from_the_repl_and_from_comments() -> None:
    assert read_paste(">>> torch.backends.mps.is_available()\nTrue\n").facts.torch.mps_available is True
    said = read_paste("print(torch.backends.mps.is_available())  # False\n").facts.torch.mps_available
    assert said is False


# --- xformers whose CUDA extension did not load ---------------------------------------------------------------------

def test_xformers_operators_refused_for_lack_of_cuda_support_are_the_xformers_build() -> None:
    text = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "     query       : shape=(2, 4096, 8, 40) (torch.float16)\n"
            "`cutlassF` is not supported because:\n    xFormers wasn't build with CUDA support\n"
            "`smallkF` is not supported because:\n    xFormers was not built with CUDA support\n")
    _, report = _run(text)
    assert _leads(report) == ["paste.xformers-mismatch"]


def test_xformers_refusing_an_old_gpu_is_not_a_missing_cuda_extension() -> None:
    text = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "`flshattF` is not supported because:\n    requires a GPU with compute capability > 7.5\n")
    _, report = _run(text)
    assert "paste.xformers-mismatch" not in [f.code for f in report.findings()]


def test_pip_finding_no_newer_torch_for_a_rosetta_python_is_the_same_cause() -> None:
    text = ("On my MacBook Air M2:\n$ pip install torch==2.5.1\nERROR: Could not find a version that satisfies the "
            "requirement torch==2.5.1 (from versions: 2.1.2, 2.2.0, 2.2.1, 2.2.2)\n"
            "$ python -c \"import platform; print(platform.platform())\"\nmacOS-14.6.1-x86_64-i386-64bit\n")
    _, report = _run(text)
    assert _leads(report) == ["platform.machine"]
    assert "paste.torch-version-not-found" in [f.code for f in report.findings()]


def test_the_older_wrong_architecture_wording_is_the_same_cause() -> None:
    text = ("ImportError: dlopen(/Users/me/env/lib/python3.8/site-packages/torch/_C.cpython-38-darwin.so, 2): "
            "no suitable image found.  Did find: /Users/me/env/lib/python3.8/site-packages/torch/_C.cpython-38-darwin.so: "
            "mach-o, but wrong architecture\n")
    facts, report = _run(text)
    assert facts.platform.system == "Darwin"
    assert _leads(report) == ["platform.machine"]
    assert "another CPU architecture" in _finding(report, "platform.machine")


def test_uname_of_an_arm64_kernel_with_an_x86_64_process_is_rosetta() -> None:
    text = ("Darwin Mac-Studio.local 23.4.0 Darwin Kernel Version 23.4.0: Fri Mar 15 00:12:49 PDT 2024; "
            "root:xnu-10063.101.17~1/RELEASE_ARM64_T6020 x86_64\n")
    facts, report = _run(text)
    assert facts.platform.machine == "x86_64"
    assert _leads(report) == ["platform.machine"]


def test_conda_info_of_an_osx_64_environment_on_an_m1_is_rosetta() -> None:
    text = "     active environment : base\n               platform : osx-64\nRunning on an M1 Max.\n"
    facts, report = _run(text)
    assert (facts.platform.system, facts.platform.machine) == ("Darwin", "x86_64")
    assert _leads(report) == ["platform.machine"]
