"""The Windows, toolkit and platform checks against scenario fixtures and edited facts."""

from __future__ import annotations

from dataclasses import replace

from checkhelp import commands, found, load, skipped
from gpudoctor.checks import platform, toolkit, torch_builds, windows
from gpudoctor.facts import DriverFacts, Facts, LibraryFacts, PlatformFacts, ToolkitFacts, TorchFacts
from gpudoctor.model import CheckResult, Report, Severity, Status
from gpudoctor.runner import run_check

BY_ID = {c.id: c for c in windows.CHECKS + toolkit.CHECKS + platform.CHECKS + torch_builds.CHECKS}
VC = ("Invoke-WebRequest https://aka.ms/vs/17/release/vc_redist.x64.exe -OutFile vc_redist.x64.exe",
      ".\\vc_redist.x64.exe /install /passive /norestart")



def run(check_id: str, facts: Facts) -> CheckResult:
    return run_check(BY_ID[check_id], facts)





# ---------------------------------------------------------------- windows.dll-load-failed


def test_fbgemm_of_torch_240_is_fixed_by_241_with_its_torchvision() -> None:
    result = run("windows.dll-load-failed", load("cat-win-fbgemm-240"))
    assert found(result) == [("error", "import torch fails with [WinError 126] loading fbgemm.dll: a DLL it depends on was not found")]
    assert result.findings[0].fix.text == "Upgrade to torch 2.4.1."  # type: ignore[union-attr]
    assert commands(result) == [(
        "C:\\Users\\ana\\proj\\.venv\\Scripts\\python.exe -m pip install torch==2.4.1+cu121 torchvision==0.19.1+cu121 "
        "--index-url https://download.pytorch.org/whl/cu121",
    )]


def test_c10_init_failure_names_every_cause_that_fits_in_order() -> None:
    result = run("windows.dll-load-failed", load("cat-win-c10-vc-runtime"))
    assert found(result) == [("error", "import torch fails with [WinError 1114] loading c10.dll: a DLL's initialisation routine failed")]
    assert result.findings[0].fix.text == (  # type: ignore[union-attr]
        "Install the latest Visual C++ runtime; then take the CUDA folders out of PATH; then install Python from "
        "python.org and recreate the environment with it."
    )
    assert commands(result) == [VC + (
        "$env:Path = ($env:Path -split ';' | Where-Object { $_ -notmatch 'CUDA\\\\v[0-9.]+\\\\(bin|libnvvp)' }) -join ';'",
        "winget install -e --id Python.Python.3.11",
    )]


def test_an_unexplained_dll_failure_gets_the_runtime_and_a_reinstall() -> None:
    facts = load("cat-win-fbgemm-240")
    error = facts.torch.import_error.replace("fbgemm.dll", "torch_cpu.dll")  # type: ignore[union-attr]
    result = run("windows.dll-load-failed", replace(facts, torch=replace(facts.torch, import_error=error)))
    assert commands(result) == [VC + (
        "C:\\Users\\ana\\proj\\.venv\\Scripts\\python.exe -m pip install --force-reinstall torch==2.4.0+cu121 "
        "--index-url https://download.pytorch.org/whl/cu121",
    )]


def test_winerror_127_with_one_cuda_folder_on_path_points_at_it() -> None:
    facts = load("cat-win-fbgemm-240")
    error = facts.torch.import_error.replace("126] The specified module", "127] The specified procedure")  # type: ignore[union-attr]
    error = error.replace("fbgemm.dll", "cudnn_ops64_9.dll")
    folder = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin"
    facts = replace(facts, torch=replace(facts.torch, import_error=error),
                    libraries=replace(facts.libraries, dll_search_dirs=(folder,)))
    result = run("windows.dll-load-failed", facts)
    assert found(result) == [(
        "error", "import torch fails with [WinError 127] loading cudnn_ops64_9.dll: a DLL it depends on lacks a function "
        "it needs: another version of that DLL was found first",
    )]
    assert result.findings[0].fix.text == "Take the CUDA folders out of PATH."  # type: ignore[union-attr]


def test_windows_check_skips_elsewhere_and_passes_without_a_winerror() -> None:
    assert skipped(run("windows.dll-load-failed", load("cat-cudnn-missing-wheel"))) == "not Windows"
    assert run("windows.dll-load-failed", load("cpu-wheel-rtx4080")).findings == ()


# ---------------------------------------------------------------- toolkit.mismatch


def test_nvcc_of_another_major_warns_when_it_matters() -> None:
    result = run("toolkit.mismatch", load("cat-nvcc-mismatch"))
    assert found(result) == [(
        "warning", "nvcc at /usr/local/cuda-11.8/bin/nvcc (from CUDA_HOME) is CUDA 11.8, but torch was built with CUDA 12.1: "
        "CUDA extensions will not build",
    )]
    assert result.findings[0].detail == (
        "Observed: CUDA 11.8. Required: a CUDA 12.x toolkit. This matters only when something compiles CUDA code against "
        "torch (pip installing a package with CUDA kernels, torch.utils.cpp_extension): the build stops with \"The detected "
        "CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.1)\". Running torch itself does not "
        "use this toolkit."
    )
    assert commands(result) == [(
        "export CUDA_HOME=/usr/local/cuda-12.1",
        "/home/ana/venv/bin/python -m pip install torch==2.1.2+cu118 --index-url https://download.pytorch.org/whl/cu118",
    )]


def test_a_minor_mismatch_is_information_and_no_toolkit_is_a_skip() -> None:
    assert found(run("toolkit.mismatch", load("cat-cudnn-undefined-symbol"))) == [(
        "info", "nvcc at /usr/local/cuda-12.3/bin/nvcc (from /usr/local/cuda) is CUDA 12.3; torch was built with CUDA 12.1 "
        "(same major: extension builds only warn)",
    )]
    assert skipped(run("toolkit.mismatch", load("cat-cudnn-shadowed"))) == (
        "no CUDA toolkit (nvcc) found; torch wheels carry their own CUDA runtime, so none is needed to run them"
    )
    cpu = Facts(torch=TorchFacts(installed=True, version="2.13.0+cpu", cuda_compiled=False),
                toolkit=ToolkitFacts(nvcc_path="/usr/local/cuda/bin/nvcc", nvcc_version="12.4"))
    assert skipped(run("toolkit.mismatch", cpu)) == "torch is a CPU build; its extensions build without CUDA"


# ---------------------------------------------------------------- platform.wsl


def test_a_linux_driver_inside_wsl_is_named_with_the_package_removal() -> None:
    result = run("platform.wsl", load("cat-wsl-linux-driver"))
    libcuda = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    assert found(result) == [(
        "error", f"a Linux NVIDIA driver is installed inside WSL ({libcuda}); WSL 2 must use the Windows driver's /usr/lib/wsl/lib",
    )]
    assert commands(result) == [(f"dpkg -S {libcuda}", f'sudo apt-get purge "$(dpkg -S {libcuda} | cut -d: -f1)"', "sudo ldconfig")]


def test_wsl_without_the_windows_driver_libraries_and_wsl1() -> None:
    facts = load("cat-wsl-linux-driver")
    missing = replace(facts, libraries=LibraryFacts(libcuda_paths=(), wsl_lib_dir=False))
    assert found(run("platform.wsl", missing)) == [(
        "error", "/usr/lib/wsl/lib is missing: the Windows NVIDIA driver does not reach this WSL distribution",
    )]
    assert commands(run("platform.wsl", missing)) == [("wsl --update", "wsl --shutdown")]
    wsl1 = replace(facts, platform=replace(facts.platform, wsl=1))
    assert found(run("platform.wsl", wsl1)) == [("error", "this is WSL 1, which has no GPU support; CUDA needs WSL 2")]


def test_wsl_with_only_the_windows_driver_passes_and_other_linux_skips() -> None:
    facts = load("cat-wsl-linux-driver")
    good = replace(facts, libraries=LibraryFacts(libcuda_paths=("/usr/lib/wsl/lib/libcuda.so.1",), wsl_lib_dir=True))
    assert (run("platform.wsl", good).status, found(run("platform.wsl", good))) == (Status.PASS, [])
    assert skipped(run("platform.wsl", load("cat-cudnn-shadowed"))) == "not running under WSL"


def test_libcuda_so_not_found_under_wsl_adds_the_wsl_folder() -> None:
    facts = load("cat-wsl-linux-driver")
    torch = replace(facts.torch, init_error="OSError: libcuda.so: cannot open shared object file: No such file or directory")
    facts = replace(facts, torch=torch, libraries=LibraryFacts(libcuda_paths=("/usr/lib/wsl/lib/libcuda.so.1",), wsl_lib_dir=True))
    result = run("platform.wsl", facts)
    assert found(result) == [("warning", "libcuda.so cannot be opened: it lives in /usr/lib/wsl/lib, which is not searched")]
    assert commands(result) == [("export LD_LIBRARY_PATH=/usr/lib/wsl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",)]


# ---------------------------------------------------------------- platform.container


def test_a_container_started_without_gpus() -> None:
    result = run("platform.container", load("cat-container-no-gpus"))
    assert found(result) == [("error", "no /dev/nvidia* devices in this docker container: it was started without GPU access")]
    assert commands(result) == [(
        "docker run --rm --gpus all ubuntu nvidia-smi -L", "sudo apt-get install -y nvidia-container-toolkit",
        "sudo nvidia-ctk runtime configure --runtime=docker", "sudo systemctl restart docker",
    )]
    k8s = load("cat-container-no-gpus")
    k8s = replace(k8s, platform=replace(k8s.platform, container="kubernetes"))
    assert commands(run("platform.container", k8s)) == [("kubectl describe nodes | grep -i nvidia.com/gpu",)]


def test_forward_compatibility_error_804_in_an_image_newer_than_the_driver() -> None:
    result = run("platform.container", load("cat-container-804"))
    assert found(result) == [(
        "error", "the image's CUDA 12.5.1 is newer than the host driver 535.183.01 (supports CUDA 12.2): Error 804",
    )]
    assert commands(result) == [(
        "export LD_LIBRARY_PATH=/usr/local/nvidia/lib64",
        "/usr/bin/python3 -m pip install torch==2.4.1+cu124 --index-url https://download.pytorch.org/whl/cu124",
    )]


def test_a_container_with_no_sign_of_a_gpu_is_a_note_not_a_warning() -> None:
    facts = load("cat-container-no-gpus")
    facts = replace(facts, extra=tuple(kv for kv in facts.extra if kv[0] != "nvidia_pci"))
    result = run("platform.container", facts)
    assert found(result) == [("info", "no /dev/nvidia* devices in this docker container, and nothing shows that it should have a GPU")]
    assert result.status is Status.PASS
    assert Report(facts, (result,)).exit_code(Severity.WARNING) == 0  # --fail-on warning passes a healthy CPU container
    assert result.findings[0].detail == (
        "Observed: no /dev/nvidia* device nodes. Required: the NVIDIA runtime passing GPUs in (docker run --gpus all). "
        "Nothing here shows that the host has an NVIDIA GPU; if it has none, this is expected."
    )
    asked = replace(facts, env=replace(facts.env, variables=(("NVIDIA_VISIBLE_DEVICES", "all"),)))
    result = run("platform.container", asked)
    assert found(result) == [("error", "no /dev/nvidia* devices in this docker container: it was started without GPU access")]
    assert result.findings[0].detail == (
        "Observed: no /dev/nvidia* device nodes; NVIDIA_VISIBLE_DEVICES=all asks for GPUs. "
        "Required: the NVIDIA runtime passing GPUs in (docker run --gpus all)."
    )


def test_device_nodes_without_driver_libraries_and_outside_containers() -> None:
    facts = load("cat-container-no-gpus")
    facts = replace(facts, platform=replace(facts.platform, dev_nvidia=("/dev/nvidia0", "/dev/nvidiactl")))
    assert found(run("platform.container", facts)) == [(
        "error", "this docker container has /dev/nvidia* devices but no driver libraries (libcuda, NVML)",
    )]
    assert skipped(run("platform.container", load("cat-cudnn-shadowed"))) == "not inside a container"


# ---------------------------------------------------------------- platform.macos and GPUs present


def test_macos_says_how_to_use_mps_or_why_it_is_missing() -> None:
    assert found(run("platform.macos", load("cat-macos-mps"))) == [(
        "info", 'macOS has no CUDA; this Mac\'s GPU works through MPS: use torch.device("mps")',
    )]
    facts = load("cat-macos-mps")
    rosetta = replace(facts, platform=replace(facts.platform, machine="x86_64"), torch=replace(facts.torch, mps_available=False))
    result = run("platform.macos", rosetta)
    assert found(result) == [("warning", "macOS has no CUDA, and MPS (the Mac GPU backend) is not available to this torch")]
    assert result.findings[0].detail == (
        "Observed: torch.backends.mps.is_available() is False; this Python runs as x86_64 (an Intel Mac, or Rosetta on "
        "Apple silicon). Required: Apple silicon (or an AMD GPU) with macOS 12.3 or later and an arm64 Python for Apple silicon."
    )
    assert skipped(run("platform.macos", load("cat-cudnn-shadowed"))) == "not macOS"


def test_no_nvidia_gpu_is_said_plainly_and_only_when_the_facts_show_it() -> None:
    assert found(run("platform.no-nvidia-gpu", load("no-gpu-cpu-laptop"))) == [
        ("info", "this machine has no NVIDIA GPU: torch can only use the CPU here"),
    ]
    assert run("platform.no-nvidia-gpu", load("health-nouveau")).findings == ()
    assert run("platform.no-nvidia-gpu", load("cat-cudnn-shadowed")).findings == ()
    unknown = Facts(platform=PlatformFacts(system="Linux"), driver=DriverFacts(nvml_error="library_not_found"))
    assert skipped(run("platform.no-nvidia-gpu", unknown)) == "whether this machine has an NVIDIA GPU is not known"


def test_rocm_build_on_nvidia_and_cuda_build_on_amd() -> None:
    result = run("torch.rocm-build-on-nvidia", load("cat-rocm-on-nvidia"))
    assert found(result) == [(
        "error", "torch 2.7.1+rocm6.3 is a ROCm (AMD) build, but this machine's GPU is NVIDIA (NVIDIA GeForce RTX 4090)",
    )]
    assert result.findings[0].fix.commands[0].endswith("--index-url https://download.pytorch.org/whl/cu126")  # type: ignore[union-attr]
    result = run("torch.cuda-build-on-amd", load("cat-cuda-on-amd"))
    assert found(result) == [(
        "warning", "torch 2.6.0+cu124 is a CUDA build, but this machine shows an AMD GPU (kernel module amdgpu) and no NVIDIA GPU",
    )]
    assert commands(result) == [(
        "/home/ana/venv/bin/python -m pip install torch==2.6.0+rocm6.2.4 --index-url https://download.pytorch.org/whl/rocm6.2.4",
    )]
    assert run("torch.cuda-build-on-amd", load("no-gpu-cpu-laptop")).findings == ()
    assert run("torch.rocm-build-on-nvidia", load("cat-cudnn-shadowed")).findings == ()


def test_a_healthy_cpu_container_passes_fail_on_warning() -> None:
    """A container with no /dev/nvidia*, no NVIDIA device on the bus and no GPU asked for is healthy."""
    from gpudoctor.registry import builtin_checks

    facts = load("cat-container-no-gpus")
    facts = replace(facts, extra=tuple(kv for kv in facts.extra if kv[0] != "nvidia_pci"))
    report = Report(facts, tuple(run_check(c, facts) for c in builtin_checks()))
    assert [f.code for f in report.findings() if f.severity is not Severity.INFO] == []
    assert report.exit_code(Severity.WARNING) == 0
    asked = replace(facts, env=replace(facts.env, variables=(("NVIDIA_VISIBLE_DEVICES", "all"),)))
    report = Report(asked, tuple(run_check(c, asked) for c in builtin_checks()))
    assert report.exit_code(Severity.WARNING) == 1


def test_no_nvidia_gpu_in_a_pasted_report_about_cuda_failing_is_the_answer() -> None:
    laptop = load("no-gpu-cpu-laptop")
    pasted = replace(laptop, meta=replace(laptop.meta, source="paste"),
                     torch=replace(laptop.torch, is_available=None))
    assert found(run("platform.no-nvidia-gpu", pasted)) == [
        ("info", "this machine has no NVIDIA GPU: torch can only use the CPU here")]  # nothing in it fails
    failing = replace(pasted, torch=replace(pasted.torch, is_available=False))
    assert found(run("platform.no-nvidia-gpu", failing)) == [
        ("warning", "this machine has no NVIDIA GPU: torch can only use the CPU here")]
    checked = replace(laptop, torch=replace(laptop.torch, is_available=False))  # `gpudoctor check` on the machine
    assert found(run("platform.no-nvidia-gpu", checked))[0][0] == "info"
