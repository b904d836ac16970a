"""Whole pasted issue bodies: segments, parsers per format, merged facts with provenance, and conflicts."""

from __future__ import annotations

import gc

import pytest

from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.paste.segments import MAX_LINE, Kind, split
from gpudoctor.parsers.report import InputError, load_facts

SMI = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
|   0  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0  On |                  Off |
|  0%   45C    P8              25W / 450W |    512MiB / 24564MiB |      0%      Default |
+-----------------------------------------+----------------------+----------------------+
"""
BODY = (
    "My GPU is not used.\r\n\r\n```\r\n$ nvidia-smi\r\n" + SMI.replace("\n", "\r\n") + "```\r\n\r\n"
    "```python\r\n>>> import torch\r\n>>> torch.cuda.is_available()\r\nFalse\r\n"
    "$ python -c \"import torch; print(torch.__version__, torch.version.cuda)\"\r\n2.1.0+cpu None\r\n```\r\n"
    "> Traceback (most recent call last):\r\n>   File \"train.py\", line 3, in <module>\r\n"
    ">     raise AssertionError(\"Torch not compiled with CUDA enabled\")\r\n"
    "> AssertionError: Torch not compiled with CUDA enabled\r\n"
)


def test_segments_follow_fences_and_quotes_and_keep_line_numbers() -> None:
    body = split(BODY)
    kinds = [(s.kind, s.first, s.last) for s in body.segments]
    assert kinds == [(Kind.PROSE, 1, 1), (Kind.FENCE, 4, 10), (Kind.FENCE, 14, 18), (Kind.QUOTE, 20, 23)]
    assert body.segments[2].info == "python"
    assert body.segments[2].lines[0].text == ">>> import torch"  # a prompt is not a quote


def test_values_carry_the_line_they_came_from() -> None:
    paste = read_paste(BODY)
    facts = paste.facts
    assert facts.driver.version == "535.104.05" and facts.driver.cuda_version == "12.2"
    assert [(g.name, g.memory_total_mib) for g in facts.gpus] == [("NVIDIA GeForce RTX 4090", 24564)]
    assert facts.torch.version == "2.1.0+cpu" and facts.torch.cuda_compiled is False
    assert facts.torch.is_available is False
    assert facts.torch.init_error == "AssertionError: Torch not compiled with CUDA enabled"
    extra = dict(facts.extra)
    assert extra["paste.line.driver.version"].startswith("6: | NVIDIA-SMI 535.104.05")
    assert extra["paste.line.torch.version"] == "18: 2.1.0+cpu None"
    assert extra["paste.line.signature.not-compiled-with-cuda"] == "23: AssertionError: Torch not compiled with CUDA enabled"
    assert facts.meta.source == "paste"


def test_host_and_container_disagreeing_are_kept_apart() -> None:
    host = SMI
    container = SMI.replace("535.104.05", "550.54.14").replace("CUDA Version: 12.2", "CUDA Version: 12.4")
    paste = read_paste(f"host:\n```\n{host}```\ncontainer:\n```\n{container}```\n")
    assert paste.facts.driver.version == "535.104.05"
    assert [(c.path, c.kept.value, c.other.value, c.other.line) for c in paste.conflicts] == [
        ("driver.version", "535.104.05", "550.54.14", 13),
        ("driver.cuda_version", "12.2", "12.4", 13),
    ]
    assert "paste.conflict" in dict(paste.facts.extra)


def test_agreeing_versions_keep_the_more_specific() -> None:
    paste = read_paste("```\ntorch==2.1.0\n```\n- PyTorch version (GPU?): 2.1.0+cu121 (True)\n")
    assert paste.facts.torch.version == "2.1.0+cu121" and not paste.conflicts
    assert paste.facts.torch.is_available is True and paste.facts.torch.cuda == "12.1"


@pytest.mark.parametrize(
    ("text", "path", "value"),
    [
        ("Package    Version\n---------- -------\ntorch      2.3.1\nnumpy 1.26.4\n", "torch.version", "2.3.1"),
        ("Name: torch\nVersion: 2.0.1\nSummary: Tensors\n", "torch.version", "2.0.1"),
        ("# Name   Version   Build  Channel\npytorch  2.1.0  py3.10_cuda11.8_cudnn8.7.0_0  pytorch\n", "torch.cuda", "11.8"),
        ("# Name   Version   Build  Channel\npytorch  2.1.0  py3.10_cpu_0  pytorch\n", "torch.cuda_compiled", False),
        ("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.1, V12.1.105\n", "toolkit.nvcc_version", "12.1"),
        ("$ echo $LD_LIBRARY_PATH\n/usr/local/cuda/lib64:/opt/x\n", "libraries.ld_library_path", ("/usr/local/cuda/lib64", "/opt/x")),
        ("export LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64\n", "libraries.ld_library_path", ("/usr/local/cuda-11.8/lib64",)),
        (">>> torch.cuda.get_arch_list()\n['sm_50', 'sm_60', 'sm_70', 'sm_80', 'sm_90']\n", "torch.arch_flags",
         ("sm_50", "sm_60", "sm_70", "sm_80", "sm_90")),
        ("- `transformers` version: 4.40.0\n- Platform: Linux-5.15.0-microsoft-standard-WSL2-x86_64-with-glibc2.35\n",
         "platform.wsl", 2),
        ("- Platform: Linux-4.4.0-19041-Microsoft-x86_64-with-glibc2.31\n", "platform.wsl", 1),
        ("## System Information\n- **OS:** nt\n", "platform.system", "Windows"),
        ("Ultralytics YOLOv8.0.1 Python-3.10.12 torch-2.0.1+cu118 CUDA:0 (Tesla T4, 15102MiB)\n", "torch.version", "2.0.1+cu118"),
        ("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234abcd-0000-1111-2222-333344445555)\n", "driver.version", None),
        ('C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\torch\\x.py\n'
         "numpy==1.26\n", "platform.system", "Windows"),
    ],
    ids=["pip-list", "pip-show", "conda-cuda", "conda-cpu", "nvcc", "echo-ld", "export-ld", "arch-list",
         "transformers-env", "wsl1", "comfyui-os", "yolo", "smi-L", "windows-path"],
)
def test_formats(text: str, path: str, value: object) -> None:
    facts = read_paste(text).facts
    section, field = path.split(".")
    assert getattr(getattr(facts, section), field) == value


def test_smi_list_names_gpus_and_ldd_lists_libraries() -> None:
    text = ("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234abcd-0000-1111-2222-333344445555)\n"
            "\tlibcudnn.so.8 => not found\n\tlibcudart.so.12 => /usr/local/cuda/lib64/libcudart.so.12 (0x7f)\n"
            "[  123.4] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n")
    facts = read_paste(text).facts
    assert [g.name for g in facts.gpus] == ["NVIDIA A100-SXM4-80GB"]
    assert facts.torch.loaded_libraries == ("/usr/local/cuda/lib64/libcudart.so.12",)
    extra = dict(facts.extra)
    assert extra["paste.ldd.not_found"] == "libcudnn.so.8"
    assert extra["paste.xid"].startswith("79: pid=1234, GPU has fallen off the bus")


def test_a_traceback_from_import_torch_is_the_import_error() -> None:
    text = ("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n    import torch\n"
            "  File \"/venv/lib/python3.10/site-packages/torch/__init__.py\", line 235, in <module>\n"
            "    from torch._C import *\nImportError: libtorch_cuda.so: failed to map segment from shared object\n")
    facts = read_paste(text).facts
    assert facts.torch.import_error == "ImportError: libtorch_cuda.so: failed to map segment from shared object"
    assert dict(facts.extra)["paste.traceback"] == facts.torch.import_error


def test_nothing_recognisable_is_refused_with_what_to_paste() -> None:
    assert not read_paste("my printer is broken, please help\n").recognised
    with pytest.raises(InputError, match="run `python -m torch.utils.collect_env` or `gpudoctor facts`"):
        load_facts("my printer is broken, please help\n", "in.txt")


def test_a_traceback_alone_is_diagnosed_not_refused() -> None:
    facts = load_facts("Traceback (most recent call last):\n  File \"x.py\"\nRuntimeError: CUDA error\n", "in.txt")
    assert dict(facts.extra)["paste.traceback"] == "RuntimeError: CUDA error"


def test_long_lines_are_cut_and_said_so() -> None:
    text = "x" * (3 * MAX_LINE) + "\nRuntimeError: CUDA error: invalid device ordinal\n"
    facts = read_paste(text).facts
    extra = dict(facts.extra)
    assert extra["paste.signature"] == "invalid-device-ordinal"
    assert extra["paste.unread"] == f"1 line(s) longer than {MAX_LINE} characters were cut"


def test_a_hundred_thousand_traceback_lines_give_one_error() -> None:
    frames = '  File "x.py", line 1, in f\n    f()\n' * 50_000
    text = "Traceback (most recent call last):\n" + frames + "RecursionError: maximum recursion depth exceeded\n"
    paste = read_paste(text)
    assert [o.value for o in paste.observations if o.path == "traceback"] == [
        "RecursionError: maximum recursion depth exceeded"
    ]


def test_mixed_encodings_are_read_not_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from gpudoctor.parsers.report import read_input

    path = tmp_path / "issue.txt"
    line = "| GPU 0: NVIDIA GeForce RTX 3090 -- Temperatur 45°C |\r\n".encode("cp1252")  # a Windows console's bytes
    path.write_bytes(line * 200 + b"RuntimeError: CUDA error: invalid device ordinal\r\n")
    facts = load_facts(*read_input(str(path)))
    assert dict(facts.extra)["paste.signature"] == "invalid-device-ordinal"


def test_a_body_too_large_for_collect_env_is_still_read() -> None:
    report = "Collecting environment information...\nPyTorch version: 2.1.0+cu121\nIs CUDA available: False\n"
    text = report + ("x" * 4000 + "\n") * 550 + "AssertionError: Torch not compiled with CUDA enabled\n"
    facts = load_facts(text, "in.txt")
    assert facts.torch.version == "2.1.0+cu121"
    assert dict(facts.extra)["paste.signature"] == "not-compiled-with-cuda"


SGLANG = """\
Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]
CUDA available: True
GPU 0,1: NVIDIA H100 80GB HBM3
GPU 0,1 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 12.1, V12.1.105
CUDA Driver Version: 535.104.05
PyTorch: 2.4.0+cu121
sglang: 0.3.0
"""
COMFY = """\
## System Information
- **ComfyUI Version:** v0.3.10
- **OS:** nt
- **Python Version:** 3.12.7 (tags/v3.12.7:0b05ead, Oct  1 2024, 03:06:41) [MSC v.1941 64 bit (AMD64)]
- **Pytorch Version:** 2.5.1+cu124
## Devices
- **Name:** cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync
"""
LLAMAFACTORY = """\
- `llamafactory` version: 0.9.1
- Platform: Linux-5.15.0-122-generic-x86_64-with-glibc2.35
- Python version: 3.11.10
- PyTorch version: 2.4.0+cu121 (GPU)
- Transformers version: 4.46.1
- GPU type: NVIDIA A800-SXM4-80GB
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SGLANG, ("2.4.0+cu121", True, "535.104.05", "12.1", ["NVIDIA H100 80GB HBM3"], "3.10.12")),
        (COMFY, ("2.5.1+cu124", True, None, None, ["NVIDIA GeForce RTX 4090"], "3.12.7")),
        (LLAMAFACTORY, ("2.4.0+cu121", True, None, None, ["NVIDIA A800-SXM4-80GB"], "3.11.10")),
    ],
    ids=["sglang-check-env", "comfyui-system-info", "llamafactory-env"],
)
def test_env_reports_of_other_projects(text: str, expected: tuple) -> None:
    facts = read_paste(text).facts
    got = (facts.torch.version, facts.torch.is_available, facts.driver.version, facts.toolkit.nvcc_version,
           [g.name for g in facts.gpus], facts.platform.python_version)
    assert got == expected


def test_conda_env_export_lists_conda_and_pip_packages() -> None:
    text = ("name: myenv\nchannels:\n  - pytorch\ndependencies:\n  - python=3.10.13=h955ad1f_0\n"
            "  - pytorch=2.1.0=py3.10_cuda12.1_cudnn8.9.2_0\n  - pip:\n    - transformers==4.35.0\n")
    facts = read_paste(text).facts
    assert facts.torch.version == "2.1.0" and facts.torch.cuda == "12.1"
    assert facts.package("transformers") is not None and facts.package("transformers").version == "4.35.0"


def test_a_paste_of_many_distinct_errors_keeps_the_facts_bounded() -> None:
    from gpudoctor.parsers.paste import MAX_NOTES

    text = "".join(f"Traceback (most recent call last):\nValueError: case {i}\n" for i in range(3000))
    facts = read_paste(text).facts
    assert sum(1 for key, _ in facts.extra if key.startswith("paste.")) == MAX_NOTES


def test_thousands_of_disagreeing_versions_keep_the_merge_bounded() -> None:
    from gpudoctor.parsers.paste.merge import MAX_CONFLICTS

    text = "".join(f"torch=={i}.0.0\n" for i in range(1, 5001))
    paste = read_paste(text)
    assert paste.facts.torch.version == "1.0.0"
    assert len(paste.conflicts) == MAX_CONFLICTS


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [("2.1.0", "2.1.0+cu121", False), ("2.1", "2.10.0", True), ("1.0.0", "1000.0.0", True),
     ("2.1.0+cpu", "2.1.0+cu121", True)],
)
def test_torch_versions_agree_only_release_by_release(a: str, b: str, conflict: bool) -> None:
    paste = read_paste(f"torch=={a}\n```\ntorch=={b}\n```\n")
    assert bool(paste.conflicts) is conflict


def test_an_old_nvidia_smi_header_and_a_cuda_visible_devices_command_line() -> None:
    text = ("$ CUDA_VISIBLE_DEVICES=2 python main.py\n"
            "| NVIDIA-SMI 375.39                 Driver Version: 375.39                    |\n"
            "|   0  TITAN X (Pascal)    Off  | 0000:01:00.0      On |                  N/A |\n")
    facts = read_paste(text).facts
    assert facts.driver.version == "375.39"
    assert [g.name for g in facts.gpus] == ["TITAN X (Pascal)"]
    assert facts.env.get("CUDA_VISIBLE_DEVICES") == "2"


def test_a_repl_quoted_version_and_a_yolo_line_without_a_device() -> None:
    text = (">>> torch.__version__\n'2.3.0+cu121'\n\nUltralytics YOLOv8.2.15 Python-3.10.9 torch-2.1.0\n"
            "torch.cuda.is_available(): False\n")
    paste = read_paste(text)
    assert paste.facts.torch.version == "2.3.0+cu121"
    assert [(c.path, c.other.value) for c in paste.conflicts] == [("torch.version", "2.1.0")]
    assert dict(paste.facts.extra)["paste.signature"] == "cuda-unavailable"


@pytest.mark.parametrize(
    ("text", "installer", "from_conda"),
    [
        ("# Name   Version   Build  Channel\npytorch  2.5.1  py3.12_cuda12.4_cudnn9.1.0_0  pytorch\n", "conda", True),
        ("# Name   Version   Build  Channel\ntorch  2.5.1  pypi_0  pypi\n", "conda", False),
        ("$ which python\n/home/me/proj/.pixi/envs/default/bin/python\n", "pixi", None),
        ("$ which python\n/home/me/.cache/pypoetry/virtualenvs/app-Xy12-py3.12/bin/python\n", "poetry", None),
        ("$ which python\n/home/me/miniconda3/envs/ml/bin/python\n", "conda", None),
        ("$ which python\n/home/me/proj/.venv/bin/python\n", None, None),
        ("Package    Version\n---------- -------\ntorch      2.3.1\n", None, None),
    ],
    ids=["conda-list-conda", "conda-list-pip", "pixi-path", "poetry-path", "conda-path", "venv-path", "pip-list"],
)
def test_what_manages_the_environment_where_the_paste_shows_it(text: str, installer: object, from_conda: object) -> None:
    facts = read_paste(text).facts
    assert (facts.platform.installer, facts.platform.torch_from_conda) == (installer, from_conda)
    assert (facts.platform.installer_evidence is not None) == (installer is not None)


def test_triple_backticks_closed_on_the_same_line_are_inline_code_not_a_fence() -> None:
    body = split("I get:\n```Error 803: system has unsupported display driver / cuda driver combination```\n\nSpecs:\nGPU: GTX 1080 Ti\n")
    assert [s.kind for s in body.segments] == [Kind.PROSE]
    assert body.segments[0].lines[-1].number == 5
    fenced = split("```bash\nnvidia-smi\n```\nafter\n")
    assert [s.kind for s in fenced.segments] == [Kind.FENCE, Kind.PROSE]


def test_reading_a_paste_leaves_the_cycle_collector_as_it_found_it() -> None:
    assert gc.isenabled()
    read_paste(BODY)
    assert gc.isenabled()
    gc.disable()
    try:
        read_paste(BODY)
        assert not gc.isenabled()
    finally:
        gc.enable()
