"""Each error message of the catalogue, pasted alone, is classified into facts and named by a check."""

from __future__ import annotations

from typing import Tuple

import pytest

from gpudoctor.model import Severity
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

SAMPLES = {
 "kernel": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
 "sm": "UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
 "insufficient": "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
 "tooold": "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver",
 "notcompiled": "AssertionError: Torch not compiled with CUDA enabled",
 "nodriver": "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
 "802": "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
 "803": "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 803: system has unsupported display driver / cuda driver combination",
 "804": "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW",
 "999": "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.",
 "nvmlmm": "Failed to initialize NVML: Driver/library version mismatch",
 "nvmlunk": "Failed to initialize NVML: Unknown Error",
 "docker": 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
 "ordinal": "RuntimeError: CUDA error: invalid device ordinal",
 "nms": "RuntimeError: operator torchvision::nms does not exist",
 "nmscuda": "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be because the operator doesn't exist for this backend.",
 "jit": "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
 "cudnn": "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory",
 "libcuda": "Could not load library libcuda.so. Error: libcuda.so: cannot open shared object file: No such file or directory",
 "dlopen": "RuntimeError: Failed to dlopen libcuda.so",
 "win126": 'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Python311\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
 "win1114": 'OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "C:\\Users\\me\\venv\\lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.',
 "oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.2 GiB is free.",
 "notorch": "ModuleNotFoundError: No module named 'torch'",
 "nodevice": "RuntimeError: No CUDA GPUs are available",
 "busy": "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
 "flash": "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
 "unavailable": "lightning.fabric.utilities.exceptions.MisconfigurationException: No supported gpu backend found!",
 "containercli": "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.",
 "notfound": "ERROR: Could not find a version that satisfies the requirement torch==1.9.0+cu102 (from versions: 1.4.0, 1.11.0)",
 "bnb": "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers are unavailable.",
 "cudahome": "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
 "dshome": "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)",
 "winlog": '02:54:18-197331 ERROR    Could not load torch: [WinError 126] Das angegebene Modul wurde nicht gefunden. Error loading\n                         "P:\\kohya\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
 "flashabi": "ImportError: /venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
 "xformers": "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.0.1+cu118)",
 "assert": "RuntimeError: CUDA error: device-side assert triggered",
}
EXPECTED = {
    'kernel': 'paste.no-kernel-image',
    'sm': 'gpu.arch-too-new',
    'insufficient': 'paste.driver-insufficient',
    'tooold': 'paste.driver-too-old',
    'notcompiled': 'paste.not-compiled-with-cuda',
    'nodriver': 'driver.not-loaded',
    '802': 'driver.fabric-manager',
    '803': 'paste.error-803',
    '804': 'paste.error-804',
    '999': 'driver.uvm',
    'nvmlmm': 'driver.nvml-mismatch',
    'nvmlunk': 'paste.nvml-unknown-error',
    'docker': 'paste.docker-no-gpu-driver',
    'ordinal': 'paste.invalid-device-ordinal',
    'nms': 'paste.torchvision-nms',
    'nmscuda': 'paste.torchvision-cuda-mismatch',  # the operator exists, without CUDA kernels
    'jit': 'paste.shadowed-cuda-libs',
    'cudnn': 'paste.cudnn-missing',
    'libcuda': 'paste.libcuda-missing',
    'dlopen': 'paste.libcuda-missing',
    'win126': 'windows.dll-load-failed',
    'win1114': 'windows.dll-load-failed',
    'notorch': 'torch.not-installed',
    'nodevice': 'paste.no-device',
    'busy': 'paste.device-busy',
    'flash': 'paste.flash-attn-needs-ampere',
    'bnb': 'paste.bitsandbytes-without-gpu',
    'notfound': 'paste.torch-version-not-found',
    'containercli': 'paste.container-toolkit-no-driver',
    'unavailable': 'paste.cuda-unavailable',
    'cudahome': 'paste.cuda-home-unset',
    'dshome': 'paste.cuda-home-unset',
    'winlog': 'windows.dll-load-failed',
    'flashabi': 'paste.flash-attn-abi',
    'xformers': 'paste.xformers-mismatch',
}


def _codes(text: str, severities: Tuple[Severity, ...] = (Severity.ERROR, Severity.WARNING)) -> Tuple[str, ...]:
    report = run_checks(discover(plugins=False), load_facts(text + "\n", "in.txt"))
    return tuple(f.code for f in report.findings() if f.severity in severities)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_message_names_its_cause(name: str) -> None:
    codes = _codes(SAMPLES[name])
    assert EXPECTED[name] in codes
    assert len(codes) == len(set(codes)) and not any(c.startswith("paste.") for c in codes if c != EXPECTED[name])


@pytest.mark.parametrize("name", ["oom", "assert"])
def test_a_working_gpu_that_failed_elsewhere_is_healthy(name: str) -> None:
    assert _codes(SAMPLES[name]) == ()
    info = _codes(SAMPLES[name], (Severity.INFO,))
    assert any(code in ("paste.out-of-memory", "paste.device-side-assert") for code in info)


def test_fatal_xid_is_an_error_and_an_application_xid_a_warning() -> None:
    fatal = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus."
    app = "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, Graphics Exception"
    assert _codes(fatal, (Severity.ERROR,)) == ("paste.xid",)
    assert _codes(app, (Severity.WARNING,)) == ("paste.xid",)


def test_a_pasted_cpu_build_without_a_gpu_is_a_warning() -> None:
    text = "# Name   Version   Build  Channel\npytorch  1.9.0  py3.8_cpu_0  pytorch"
    assert _codes(text) == ("paste.cpu-build",)


def test_two_environments_with_a_cpu_build_name_it_first() -> None:
    text = ("Ultralytics YOLOv8.0.53 Python-3.9.1 torch-1.8.1+cu111 CUDA:0 (NVIDIA GeForce RTX 3070, 8192MiB)\n"
            "Ultralytics YOLOv8.0.54 Python-3.10.6 torch-2.0.0+cpu CPU")
    assert _codes(text) == ("paste.cpu-build", "paste.two-environments")


def test_a_framework_setting_that_forces_the_cpu_is_a_note_not_an_error() -> None:
    text = "- PyTorch version (GPU?): 1.12.1+cu116 (True)\n- `Accelerate` default config:\n        - use_cpu: True"
    assert _codes(text) == ()
    assert _codes(text, (Severity.INFO,))[-1] == "paste.framework-forces-cpu"


def test_a_kernel_log_is_not_taken_for_json() -> None:
    text = "[   21.091872] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)"
    assert _codes(text, (Severity.ERROR,)) == ("paste.gpu-fell-off-the-bus",)


def test_xformers_names_the_installed_cpu_torch() -> None:
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)")
    assert _codes(text) == ("paste.cpu-build", "paste.xformers-mismatch")


def test_ldd_not_found_names_the_missing_library() -> None:
    text = "$ ldd libtorch_cuda.so\n\tlibcudnn.so.8 => not found\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x7f)"
    assert _codes(text) == ("paste.cuda-lib-missing",)


def test_an_ipython_traceback_of_import_torch_with_a_dll_error() -> None:
    text = ("ImportError                               Traceback (most recent call last)\n"
            "<ipython-input-3-eb42ca6e4af3> in <module>\n----> 1 import torch\n\n"
            "~\\.conda\\envs\\py3\\lib\\site-packages\\torch\\__init__.py in <module>\n"
            "---> 81 from torch._C import *\n\n"
            "ImportError: DLL load failed: The specified module could not be found.")
    facts = load_facts(text, "in.txt")
    assert facts.torch.import_error == "ImportError: DLL load failed: The specified module could not be found."
    assert facts.torch.installed is True and facts.platform.system == "Windows"
    assert "paste.windows-dll" in _codes(text)


def test_a_pasted_collect_env_with_a_cpu_build_and_no_gpu_is_named() -> None:
    text = "Collecting environment information...\nPyTorch version: 1.7.1+cpu\nIs debug build: False\n" \
           "CUDA used to build PyTorch: Could not collect\n"
    assert "paste.cpu-build" in _codes(text)


def test_cuda_asked_for_on_a_mac_is_named_as_such() -> None:
    text = ('  File "/Users/me/app/env/lib/python3.10/site-packages/torch/cuda/__init__.py", line 471, in _lazy_init\n'
            '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
            "AssertionError: Torch not compiled with CUDA enabled")
    assert _codes(text) == ("paste.macos-no-cuda",)


def test_cuda_unavailable_stays_quiet_when_the_paste_says_why() -> None:
    text = ("MisconfigurationException: No supported gpu backend found!\n"
            "AssertionError: Torch not compiled with CUDA enabled")
    assert _codes(text) == ("paste.not-compiled-with-cuda",)
