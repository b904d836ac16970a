"""The collect_env parser: facts read from pastes of every era and variant, the codes the checks find in
them, and refusals of input that is not a collect_env report."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any, Dict, FrozenSet

import pytest

from gpudoctor.facts import Facts
from gpudoctor.parsers.collect_env import MAX_CHARS, ParseError, looks_like_collect_env, parse
from gpudoctor.parsers.collect_env.packages import conda_build_cuda, local_cuda, parse_packages
from gpudoctor.parsers.collect_env.text import match_label, normalise
from gpudoctor.registry import discover
from gpudoctor.runner import run_checks

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "collect_env"
NOT_IN_PASTE = (
    ("libraries", "a collect_env paste does not show the libraries torch loaded or the loader's search path"),
    ("env", "a collect_env paste does not show environment variables"),
)


def load(name: str) -> Facts:
    return parse((FIXTURES / f"{name}.txt").read_text(encoding="utf-8"))


def at(facts: Any, path: str) -> Any:
    """The value at a dotted fact path; numbers index tuples ("gpus.0.name")."""
    value = facts
    for part in path.split("."):
        value = value[int(part)] if part.isdigit() else getattr(value, part)
    return value


# fixture -> {fact path: exact expected value}
FACTS: Dict[str, Dict[str, Any]] = {
    "torch14-cu101-pip": {
        # the arch list is inferred from the 1.4.0 cu101 wheel's row now that the tables reach torch 1.0
        "torch.version": "1.4.0", "torch.cuda": "10.1", "torch.is_available": True,
        "torch.arch_flags": ("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "compute_37"),
        "platform.system": "Linux", "platform.distro": "Ubuntu 18.04.4 LTS", "platform.python_version": "3.7",
        "driver.version": "440.33.01", "gpus.0.name": "GeForce GTX 1080 Ti", "gpus.0.compute_capability": (6, 1),
        "toolkit.nvcc_version": "10.1", "torch.cudnn_version": None, "torchvision.version": "0.5.0",
        "torchaudio.installed": False,
    },
    "torch19-cu102-conda-rtx3090": {
        "torch.version": "1.9.0", "torch.cuda": "10.2", "torch.cuda_compiled": True,
        "torch.arch_flags": ("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "compute_37"),
        "gpus.0.name": "GeForce RTX 3090", "gpus.0.compute_capability": (8, 6), "driver.version": "460.80",
        "platform.libc": "glibc 2.31", "platform.python_version": "3.8", "toolkit.nvcc_version": None,
        "torch.warnings": (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation. "
            "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_61 sm_70 sm_75 compute_37.",
        ),
        "torchvision.version": "0.10.0",
    },
    "torch113-cu117-rtx4090": {
        "torch.version": "1.13.1+cu117", "torch.cuda": "11.7", "gpus.0.compute_capability": (8, 9),
        "torch.arch_flags": ("sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"),
        "driver.version": "525.60.13", "torchvision.cuda": "11.7", "torchaudio.version": "0.13.1+cu117",
    },
    "torch20-docker-could-not-collect": {
        "torch.version": "2.0.1+cu117", "torch.is_available": False, "gpus": (), "driver.version": None,
        "driver.cuda_version": None, "toolkit.nvcc_version": None, "platform.distro": "Debian GNU/Linux 11 (bullseye)",
        "torchvision.version": "0.15.2", "torchvision.cuda": None,
    },
    "torch21-driver-too-old": {
        "torch.version": "2.1.2+cu121", "torch.cuda": "12.1", "torch.is_available": False,
        "driver.version": "470.182.03", "driver.cuda_version": "11.4", "driver.gpu_count": 2,
        "gpus.1.name": "Tesla V100-SXM2-32GB", "toolkit.nvcc_version": "11.4",
        "torch.init_error": (
            "The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by "
            "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
            "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with "
            "your version of the CUDA driver."
        ),
        "torch.cudnn_version": None,
    },
    "torch26-rtx5090-sm120": {
        "torch.version": "2.6.0+cu124", "torch.cuda": "12.4",
        "torch.arch_flags": ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
        "gpus.0.name": "NVIDIA GeForce RTX 5090", "gpus.0.compute_capability": (12, 0), "driver.version": "570.124.04",
        "platform.release": "6.11.0-19-generic", "platform.machine": "x86_64",
    },
    "torch27-cu128-healthy": {
        "torch.version": "2.7.0+cu128", "torch.is_available": True, "gpus.0.compute_capability": (12, 0),
        "torch.arch_flags": ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"),
        "torch.init_error": None, "torch.warnings": (),
    },
    "windows-cpu-wheel-rtx3060": {
        "torch.version": "2.3.1+cpu", "torch.cuda": None, "torch.cuda_compiled": False, "torch.is_available": False,
        "torch.init_error": "Torch not compiled with CUDA enabled", "platform.system": "Windows",
        "platform.release": "10.0.22631", "platform.distro": "Microsoft Windows 11 Home", "platform.libc": None, "platform.machine": "AMD64",
        "gpus.0.name": "NVIDIA GeForce RTX 3060", "driver.version": "555.85", "toolkit.nvcc_version": "12.4",
        "torch.arch_flags": None,
    },
    "macos-mps": {
        "platform.system": "Darwin", "platform.machine": "arm64", "platform.release": "14.2.1",
        "torch.cuda_compiled": False, "torch.is_available": False, "torch.mps_available": None, "gpus": (),
        "driver.version": None,
    },
    "rocm-rx7900": {
        "torch.version": "2.3.0+rocm6.0", "torch.hip": "6.0.32830-d62f6a171", "torch.cuda": None,
        "torch.cuda_compiled": True, "torch.is_available": True, "gpus": (),
        "torch.devices.0.name": "AMD Radeon RX 7900 XTX", "torch.arch_flags": None,
    },
    "xpu-arc": {
        "torch.version": "2.7.0+xpu", "torch.cuda_compiled": False, "torch.is_available": False, "gpus": (),
        "torchvision.version": "0.22.0+xpu",
    },
    "mig-a100": {
        "gpus.0.mig_mode": True, "gpus.0.mig_devices": ("MIG 3g.40gb Device 0", "MIG 3g.40gb Device 1"),
        "gpus.1.mig_devices": ("MIG 7g.80gb Device 0",), "driver.gpu_count": 2,
        "gpus.1.compute_capability": (8, 0), "platform.distro": "Rocky Linux 8.9 (Green Obsidian)",
        "platform.libc": "glibc 2.28", "toolkit.nvcc_version": "12.2",
    },
    "truncated-cpu": {
        "torch.version": "2.5.1+cu124", "gpus.0.name": "NVIDIA GeForce RTX 4080", "packages": (),
        "torchvision.installed": None,
    },
    "markdown-quoted-bold": {
        "torch.version": "2.0.1+cu118", "torch.cuda": "11.8", "platform.python_version": "3.10.11",
        "gpus.0.name": "NVIDIA GeForce RTX 3080", "driver.version": "530.41.03", "toolkit.nvcc_version": "11.8",
        "torchvision.version": "0.15.2+cu118", "torchaudio.version": "2.0.2+cu118",
    },
    "fullwidth-colons": {
        "torch.version": "2.2.1+cu121", "platform.system": "Windows", "platform.distro": "Microsoft Windows 10 专业版",
        "gpus.0.name": "NVIDIA GeForce RTX 3070 Laptop GPU", "driver.version": "546.33", "torch.is_available": True,
        "torch.arch_flags": ("sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
    },
    "wrapped-lines": {
        "torch.cuda": "11.8", "platform.distro": "Ubuntu 20.04.6 LTS", "platform.machine": "x86_64",
        "platform.python_version": "3.9.19", "platform.release": "5.4.0-182-generic",
        "gpus.0.name": "NVIDIA GeForce RTX 2080 Ti", "gpus.1.name": "NVIDIA GeForce RTX 2080 Ti",
        "driver.version": "535.183.01",
    },
    "torch213-found-gpu-cc-v100": {
        "torch.arch_flags": ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"),
        "torch.devices.0.compute_capability": (7, 0), "gpus.0.compute_capability": (7, 0),
        "torch.version": "2.13.0+cu130",
    },
    "torchvision-nms": {
        "torchvision.installed": True, "torchvision.version": "0.18.1",
        "torchvision.import_error": "RuntimeError: operator torchvision::nms does not exist", "torch.version": "2.3.0+cu121",
    },
    "torchvision-cuda-mismatch": {
        "torchvision.version": "0.16.0+cu118", "torchvision.cuda": "11.8",
        "torchvision.import_error": (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. "
            "PyTorch has CUDA Version=12.1 and torchvision has CUDA Version=11.8"
        ),
    },
    "torch110-gtx660-too-old": {
        "gpus.0.compute_capability": (3, 0), "torch.devices.0.name": "NVIDIA GeForce GTX 660 Ti",
        "torch.arch_flags": ("sm_37", "sm_50", "sm_60", "sm_70"),
    },
    "torch28-found-gpu-minmax-gtx1080": {
        "torch.arch_flags": ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"),
        "gpus.0.compute_capability": (6, 1),
    },
    "two-reports": {"torch.version": "2.2.2+cpu", "torch.cuda_compiled": False, "gpus.0.name": "NVIDIA GeForce RTX 4070"},
    "wsl2-rtx4070": {"platform.wsl": 2, "platform.release": "5.15.167.4-microsoft-standard-WSL2", "driver.version": "566.14"},
    "torch-na-fbgemm-dll": {
        "torch.installed": True, "torch.version": "2.4.0+cu121", "torch.is_available": None,
        "torch.location": None,
        "torch.import_error": (
            r'OSError: [WinError 126] The specified module could not be found. Error loading '
            r'"C:\Users\frank\miniconda3\envs\sd\lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies.'
        ),
    },
    "nvml-mismatch": {
        "driver.nvml_error": "version_mismatch", "driver.version": "550.120",
        "driver.nvml_error_text": "Failed to initialize NVML: Driver/library version mismatch", "gpus": (),
    },
    "no-driver-found": {
        "gpus": (), "driver.version": None, "torch.is_available": False,
        "torch.init_error": (
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
            "from http://www.nvidia.com/Download/index.aspx"
        ),
    },
    "conda-cpuonly-windows": {
        "torch.version": "1.12.1", "torch.cuda_compiled": False, "torch.arch_flags": None,
        "gpus.0.compute_capability": (7, 5), "driver.version": "516.94",
    },
    "vllm-format-env-vars": {
        "torch.version": "2.5.1+cu124", "platform.libc": "glibc 2.35", "gpus.1.name": "NVIDIA GeForce RTX 4090",
        "driver.version": "550.120", "torchvision.version": "0.20.1", "env.variables": (
            ("CUDA_VISIBLE_DEVICES", "0,1"), ("NCCL_CUMEM_ENABLE", "0"), ("TORCHINDUCTOR_COMPILE_THREADS", "1"),
        ),
    },
    "issue-template": {
        "torch.version": "1.7.1", "platform.distro": "Ubuntu 18.04", "platform.python_version": "3.8",
        "gpus.0.name": "RTX 3090", "driver.version": None,
    },
}


def test_every_fixture_has_facts_and_codes() -> None:
    names = sorted(path.stem for path in FIXTURES.glob("*.txt"))
    assert len(names) >= 20
    assert sorted(FACTS) == names
    assert sorted(CODES) == names


@pytest.mark.parametrize("name", sorted(FACTS))
def test_facts(name: str) -> None:
    facts = load(name)
    assert facts.meta.source == "collect_env"
    for path, expected in FACTS[name].items():
        assert at(facts, path) == expected, path


@pytest.mark.parametrize("name", sorted(FACTS))
def test_recognised_and_round_trips(name: str) -> None:
    text = (FIXTURES / f"{name}.txt").read_text(encoding="utf-8")
    assert looks_like_collect_env(text)
    facts = parse(text)
    assert Facts.from_json(facts.to_json()) == facts


def test_inferred_values_are_marked() -> None:
    facts = load("torch21-driver-too-old")
    assert facts.inferred == (
        "torch.arch_flags", "gpus.0.compute_capability", "gpus.1.compute_capability", "torchvision.cuda",
    )
    assert facts.is_inferred("torch.arch_flags") and not facts.is_inferred("driver.cuda_version")
    assert ("inferred.torch.arch_flags", "official cu121 wheel of torch 2.1.2 for Linux x86_64 (CONFIRMED)") in facts.extra


def test_arch_list_torch_printed_is_observed_not_inferred() -> None:
    facts = load("torch26-rtx5090-sm120")
    assert not facts.is_inferred("torch.arch_flags")
    assert not facts.is_inferred("gpus.0.compute_capability")
    assert facts.inferred == ("driver.cuda_version", "torchvision.cuda", "torchaudio.cuda")


def test_conda_build_arch_list_is_not_guessed() -> None:
    facts = load("conda-cpuonly-windows")
    assert ("conda.pytorch", "1.12.1 py3.9_cpu_0 pytorch") in facts.extra
    assert ("conda.cpuonly", "2.0 0 pytorch") in facts.extra


def test_system_nvcc_and_cudnn_are_not_torch_facts() -> None:
    facts = load("torch21-driver-too-old")
    assert facts.torch.cuda == "12.1"
    assert facts.toolkit.nvcc_version == "11.4"
    assert facts.torch.cudnn_version is None
    assert dict(facts.extra)["collect_env.system_cudnn"] == (
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.2.4; /usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8.2.4"
    )
    assert dict(facts.extra)["collect_env.nvcc"] == "11.4.152"


def test_probe_errors_of_a_paste_cut_off_in_the_cpu_section() -> None:
    assert load("truncated-cpu").probe_errors == (
        ("packages", "the paste was cut off before 'Versions of relevant libraries'"),
        ("torchvision", "the paste was cut off before 'Versions of relevant libraries'"),
    ) + NOT_IN_PASTE


def test_probe_errors_when_collect_env_could_not_collect() -> None:
    assert load("torch20-docker-could-not-collect").probe_errors == (
        ("driver", "collect_env printed 'Nvidia driver version: No CUDA' (nvidia-smi missing or failing, or no NVIDIA GPU)"),
        ("gpus", "collect_env printed 'GPU models and configuration: No CUDA' (nvidia-smi missing or failing, or no NVIDIA GPU)"),
    ) + NOT_IN_PASTE


def test_probe_errors_when_torch_did_not_import() -> None:
    assert load("torch-na-fbgemm-dll").probe_errors == (
        ("torch", "collect_env could not import torch ('PyTorch version: N/A')"),
    ) + NOT_IN_PASTE


def test_several_reports_read_the_first_and_say_so() -> None:
    facts = load("two-reports")
    assert facts.torch.version == "2.2.2+cpu"
    assert ("collect_env.more_reports", "1 more report(s) followed the first; only the first was read") in facts.extra


def test_paste_cut_off_after_the_warnings_still_gives_the_arch_facts() -> None:
    text = (FIXTURES / "torch213-found-gpu-cc-v100.txt").read_text(encoding="utf-8")
    text = text[: text.index("PyTorch version")]
    facts = parse(text)
    assert facts.torch.arch_flags == ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert facts.torch.devices[0].compute_capability == (7, 0)
    assert facts.torch.version is None
    assert facts.probe_error("torch") == "the paste was cut off before 'PyTorch version'"


def test_allocator_config_becomes_environment_variables() -> None:
    text = (FIXTURES / "torch27-cu128-healthy.txt").read_text(encoding="utf-8").replace(
        "Is XNNPACK available: True", "Is XNNPACK available: True\nCaching allocator config: "
        "{'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True'}")
    assert parse(text).env.variables == (("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),)


# --- pieces --------------------------------------------------------------------------------------


def test_normalise_strips_markup_and_splits_collapsed_lines() -> None:
    text = "> **PyTorch version：** `2.0.1` Is debug build: False CUDA used to build PyTorch: 11.8\n```"
    assert normalise(text) == ["PyTorch version: 2.0.1", "Is debug build: False", "CUDA used to build PyTorch: 11.8"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("PyTorch version: 2.1.0+cu121", ("torch_version", "2.1.0+cu121")),
        ("PyTorch version 1.5.0", ("torch_version", "1.5.0")),
        ("Os: Ubuntu 18.04.3 LTS", ("os", "Ubuntu 18.04.3 LTS")),
        (" - PyTorch Version (e.g., 1.0): 1.7.1", ("tpl_torch_version", "1.7.1")),
        ("Version of relevant libraries:", ("libraries", "")),
        ("Python versions differ", None),
        ("OS X is fine", None),
    ],
)
def test_match_label(line: str, expected: Any) -> None:
    assert match_label(line) == expected


def test_packages_from_pip_and_conda_lines() -> None:
    pkgs = parse_packages([
        "[pip3] torch==2.0.1 [pip3] torchvision==0.15.2",
        "[conda] pytorch                   1.9.0           py3.8_cuda10.2_cudnn7.6.5_0    pytorch",
        "[conda] torch                     2.0.1                    pypi_0    pypi",
    ])
    assert [(d.name, d.version) for d in pkgs.distributions()] == [("torch", "2.0.1"), ("torchvision", "0.15.2")]
    assert pkgs.conda_package("torch").build == "py3.8_cuda10.2_cudnn7.6.5_0"


@pytest.mark.parametrize(
    "build, cuda",
    [("py3.8_cuda10.2.89_cudnn7.6.5_0", "10.2"), ("py3.9_cuda11.3_cudnn8.2.0_0", "11.3"), ("py39_cu113", "11.3"),
     ("cuda118_py310h9ae1f5a_301", "11.8"), ("py3.9_cpu_0", "cpu"), ("cpu_mkl_py310h", "cpu"), ("pypi_0", None)],
)
def test_conda_build_cuda(build: str, cuda: Any) -> None:
    assert conda_build_cuda(build) == cuda


@pytest.mark.parametrize("version, cuda", [("2.1.0+cu121", "12.1"), ("0.9.1+cu92", "9.2"), ("2.3.1+cpu", "cpu"),
                                           ("2.3.0+rocm6.0", None), ("2.3.0", None)])
def test_local_cuda(version: str, cuda: Any) -> None:
    assert local_cuda(version) == cuda


# --- bad input -----------------------------------------------------------------------------------

_PASTE = "paste the output of `python -m torch.utils.collect_env`"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", f"the input is empty; {_PASTE}"),
        ("  \n\t\n", f"the input is empty; {_PASTE}"),
        ("\x00\x01\x02binary\x00" * 20, "the input looks like binary data, not the text of a collect_env report"),
        ("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nImportError: no torch\n",
         f"not a collect_env report (this looks like a Python traceback); {_PASTE}"),
        ("Collecting torch\n  Downloading torch-2.1.0-cp310-cp310-manylinux1_x86_64.whl (670.2 MB)\n"
         "Successfully installed torch-2.1.0\n", f"not a collect_env report (this looks like a pip log); {_PASTE}"),
        ('{"meta": {"schema": 1}}', f"not a collect_env report (this looks like JSON that is not a gpudoctor report); {_PASTE}"),
        ("just some words\nand more words\n", f"not a collect_env report (this looks like text without collect_env fields); {_PASTE}"),
        ("PyTorch version: 2.1.0\n", f"not a collect_env report (this looks like text without collect_env fields); {_PASTE}"),
    ],
)
def test_refusals(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(text)
    assert str(info.value) == message


def test_enormous_input_is_refused_quickly() -> None:
    text = "x" * (MAX_CHARS + 1)
    start = time.perf_counter()
    with pytest.raises(ParseError) as info:
        parse(text)
    assert str(info.value) == "the input is too large (2 MB); paste only the output of `python -m torch.utils.collect_env`"
    assert time.perf_counter() - start < 1.0


def test_large_issue_body_parses_in_reasonable_time() -> None:
    report = (FIXTURES / "torch27-cu128-healthy.txt").read_text(encoding="utf-8")
    text = "log line number %d with some words: and a colon\n" * 20000 % tuple(range(20000)) + report
    start = time.perf_counter()
    assert parse(text).torch.version == "2.7.0+cu128"
    assert time.perf_counter() - start < 5.0


def test_looks_like_refuses_gpudoctor_reports_and_json() -> None:
    report = (FIXTURES / "torch27-cu128-healthy.txt").read_text(encoding="utf-8")
    assert not looks_like_collect_env(json.dumps({"schema": 1, "facts": {}, "results": [], "text": report}))
    assert not looks_like_collect_env("# gpudoctor report\n<!-- gpudoctor-facts -->\n```json\n{}\n```\n" + report)
    assert not looks_like_collect_env("Traceback (most recent call last):\nRuntimeError: CUDA error\n")
    assert not looks_like_collect_env("")


def test_mangled_pastes_never_raise_anything_but_parse_error() -> None:
    rng = random.Random(5)
    texts = [path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("*.txt"))]
    for text in texts:
        for _ in range(12):
            cut = rng.randrange(len(text))
            kind = rng.randrange(4)
            if kind == 0:
                mangled = text[:cut]
            elif kind == 1:
                mangled = text[cut:]
            elif kind == 2:
                lines = text.splitlines()
                rng.shuffle(lines)
                mangled = "\n".join(lines)
            else:
                mangled = text[:cut] + "".join(chr(rng.randrange(32, 0x3000)) for _ in range(40)) + text[cut:]
            try:
                facts = parse(mangled)
            except ParseError as exc:
                assert "\n" not in str(exc)
                continue
            assert Facts.from_json(facts.to_json()) == facts


# --- the scenario table: fixture -> the error and warning codes the built-in checks find -------------

CODES: Dict[str, FrozenSet[str]] = {
    "conda-cpuonly-windows": frozenset({"torch.cpu-build-on-gpu"}),
    "fullwidth-colons": frozenset(),
    "issue-template": frozenset(),
    "macos-mps": frozenset(),
    "markdown-quoted-bold": frozenset(),
    "mig-a100": frozenset(),
    "no-driver-found": frozenset({"driver.not-loaded"}),
    "nvml-mismatch": frozenset({"driver.nvml-mismatch"}),
    "rocm-rx7900": frozenset(),
    "torch-na-fbgemm-dll": frozenset({"torch.import-failed", "windows.dll-load-failed"}),
    "torch110-gtx660-too-old": frozenset({"gpu.arch-too-old"}),
    "torch113-cu117-rtx4090": frozenset(),
    "torch14-cu101-pip": frozenset(),
    "torch19-cu102-conda-rtx3090": frozenset({"gpu.arch-too-new"}),
    "torch20-docker-could-not-collect": frozenset({"driver.not-loaded"}),  # a CUDA build, and no nvidia-smi
    "torch21-driver-too-old": frozenset({"driver.too-old-for-torch", "toolkit.mismatch", "torch.cuda-unavailable"}),
    "torch213-found-gpu-cc-v100": frozenset({"gpu.arch-too-old"}),
    "torch26-rtx5090-sm120": frozenset({"gpu.arch-too-new"}),
    "torch27-cu128-healthy": frozenset(),
    "torch28-found-gpu-minmax-gtx1080": frozenset({"gpu.arch-too-old"}),
    "torchvision-cuda-mismatch": frozenset({"torchvision.cuda-mismatch", "packages.unreleased-combination"}),
    "torchvision-nms": frozenset({"torchvision.import-failed"}),
    "truncated-cpu": frozenset(),
    "two-reports": frozenset({"torch.cpu-build-on-gpu"}),
    "windows-cpu-wheel-rtx3060": frozenset({"torch.cpu-build-on-gpu"}),
    "vllm-format-env-vars": frozenset(),
    "wrapped-lines": frozenset(),
    "wsl2-rtx4070": frozenset(),
    "xpu-arc": frozenset(),
}


@pytest.fixture(scope="module")
def catalogue():  # type: ignore[no-untyped-def]
    return discover(plugins=False)


# Fixtures whose root cause the built-in checks do not name yet; strict, so a fix shows up as XPASS.
KNOWN_GAPS: Dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[n])) if n in KNOWN_GAPS else n
     for n in sorted(CODES)],
)
def test_codes_table(name: str, catalogue) -> None:  # type: ignore[no-untyped-def]
    report = run_checks(catalogue, load(name))
    crashed = [(r.check, r.reason) for r in report.results if r.status.value == "crash"]
    assert crashed == []
    found = {f.code for f in report.findings() if f.severity.value in ("error", "warning")}
    assert found == CODES[name]
