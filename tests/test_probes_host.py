"""Environment, toolkit, platform and target-interpreter probes, and collect() tying them together."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.facts import EnvFacts, Facts, ToolkitFacts
from gpudoctor import probes
from gpudoctor.probes import PythonError, collect
from gpudoctor.probes.env import probe_env
from gpudoctor.probes.platform import dll_search_dirs, file_version, is_store_python, os_release
from gpudoctor.probes.python import validate
from gpudoctor.probes.toolkit import ToolkitResult, probe_toolkit

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="fake executables are shell scripts")


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def test_env_keeps_known_variables_and_masks_secrets() -> None:
    environ = {
        "CUDA_VISIBLE_DEVICES": "",
        "CUDA_PATH_V12_4": "/opt/cuda-12.4",
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
        "TORCH_HUB_TOKEN": "hf_abcdef",
        "PYTORCH_API_KEY": "sk-123",
        "TORCHVISION_WARN_WHEN_EXTENSION_LOADING_FAILS": "1",
        "HOME": "/home/ana",
        "AWS_SECRET_ACCESS_KEY": "never recorded",
        "PATH": "/usr/local/cuda-12.4/bin:/usr/bin:/opt/NVIDIA/tools:/usr/local/cuda-12.4/bin",
    }
    assert probe_env(environ) == EnvFacts(
        variables=(
            ("CUDA_PATH_V12_4", "/opt/cuda-12.4"),
            ("CUDA_VISIBLE_DEVICES", ""),
            ("PYTORCH_API_KEY", "set"),
            ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),
            ("TORCHVISION_WARN_WHEN_EXTENSION_LOADING_FAILS", "1"),
            ("TORCH_HUB_TOKEN", "set"),
        ),
        path_cuda_entries=("/usr/local/cuda-12.4/bin", "/opt/NVIDIA/tools"),
    )


@posix_only
def test_toolkit_from_path(tmp_path: Path) -> None:
    nvcc = _script(
        tmp_path / "cuda-12.4" / "bin" / "nvcc",
        'echo "nvcc: NVIDIA (R) Cuda compiler driver"\necho "Cuda compilation tools, release 12.4, V12.4.131"\n',
    )
    result = probe_toolkit({"PATH": f"{nvcc.parent}:/usr/bin"})
    assert result == ToolkitResult(ToolkitFacts(str(nvcc), "12.4", str(tmp_path / "cuda-12.4"), "PATH"))


@posix_only
def test_toolkit_cuda_home_wins_even_without_nvcc(tmp_path: Path) -> None:
    _script(tmp_path / "other" / "bin" / "nvcc", "echo 'Cuda compilation tools, release 11.8, V11.8.89'\n")
    home = tmp_path / "empty-cuda"
    result = probe_toolkit({"CUDA_HOME": str(home), "PATH": str(tmp_path / "other" / "bin")})
    assert result == ToolkitResult(ToolkitFacts(None, None, str(home), "CUDA_HOME"))


@posix_only
def test_toolkit_nvcc_that_prints_no_release(tmp_path: Path) -> None:
    nvcc = _script(tmp_path / "cuda" / "bin" / "nvcc", "echo broken >&2\nexit 1\n")
    result = probe_toolkit({"CUDA_HOME": str(tmp_path / "cuda"), "PATH": ""})
    assert result == ToolkitResult(
        ToolkitFacts(str(nvcc), None, str(tmp_path / "cuda"), "CUDA_HOME"),
        f"`{nvcc} --version` printed no release (exit status 1)",
    )


def test_os_release() -> None:
    assert os_release('NAME="Ubuntu"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n') == "Ubuntu 22.04.4 LTS"
    assert os_release("NAME=Rocky Linux\nVERSION='9.3 (Blue Onyx)'\n") == "Rocky Linux 9.3 (Blue Onyx)"
    assert os_release("") is None


def test_vc_runtime_version_from_dll_bytes(tmp_path: Path) -> None:
    fixed = struct.pack("<IIII", 0xFEEF04BD, 0x00010000, (14 << 16) | 40, (33810 << 16) | 0)
    decoy = struct.pack("<II", 0xFEEF04BD, 0x12345678)
    dll = tmp_path / "msvcp140.dll"
    dll.write_bytes(b"MZ" + b"\x00" * 100 + decoy + b"\x00" * 50 + fixed + b"\x00" * 20)
    assert file_version(str(dll)) == "14.40.33810.0"
    assert file_version(str(tmp_path / "missing.dll")) is None


def test_dll_search_dirs(tmp_path: Path) -> None:
    (tmp_path / "cuda" / "bin").mkdir(parents=True)
    (tmp_path / "cuda" / "bin" / "cudart64_12.dll").write_bytes(b"")
    (tmp_path / "cudnn").mkdir()
    (tmp_path / "cudnn" / "cudnn64_8.dll").write_bytes(b"")
    (tmp_path / "tools").mkdir()
    sep = ";" if sys.platform == "win32" else ":"
    environ = {
        "CUDA_PATH": str(tmp_path / "cuda"),
        "PATH": sep.join(str(tmp_path / d) for d in ("tools", "cudnn", "cuda/bin")),
    }
    assert dll_search_dirs(environ) == (str(tmp_path / "cuda" / "bin"), str(tmp_path / "cudnn"))


def test_store_python() -> None:
    store = r"C:\Users\ana\AppData\Local\Microsoft\WindowsApps\PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0\python.exe"
    assert is_store_python(store) is True
    assert is_store_python(r"C:\Python311\python.exe") is False
    assert is_store_python(None) is None


@posix_only
def test_python_validation_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "python"
    with pytest.raises(PythonError, match=r"^.*/nope/python: no such file$"):
        validate(str(missing))
    with pytest.raises(PythonError, match=r"^/bin/echo: is not a Python interpreter \(it printed '-S -c <program>'\)$"):
        validate("/bin/echo")
    garbage = _script(tmp_path / "garbage", "echo 'Segmentation fault'\nexit 139\n")
    with pytest.raises(PythonError, match=r"^.*/garbage: is not a Python interpreter \(it printed 'Segmentation fault'\)$"):
        validate(str(garbage))
    silent = _script(tmp_path / "silent", "exit 3\n")
    with pytest.raises(PythonError, match=r"^.*/silent: is not a Python interpreter \(it exited with status 3 and printed nothing\)$"):
        validate(str(silent))
    old = _script(tmp_path / "python2", "echo GPUDOCTOR-PY 2.7.18\necho /usr/bin/python2\n")
    with pytest.raises(PythonError, match=r"^.*/python2: is Python 2\.7\.18; gpudoctor needs Python 3\.6 or newer there$"):
        validate(str(old))
    plain = tmp_path / "plain"
    plain.write_text("print('hi')\n")
    with pytest.raises(PythonError, match=r"^.*/plain: not executable$"):
        validate(str(plain))
    with pytest.raises(PythonError, match=r"^.*: is a directory, not a Python interpreter$"):
        validate(str(tmp_path))


def test_python_validation_of_this_interpreter() -> None:
    target = validate(sys.executable)
    assert (target.path, target.version) == (sys.executable, "%d.%d.%d" % sys.version_info[:3])


def test_collect_rejects_a_program_that_is_not_python() -> None:
    with pytest.raises(PythonError, match=r"^/bin/ls: is not a Python interpreter \(it printed .*<program>.*\)$"):
        collect("/bin/ls")


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    env = tmp_path_factory.mktemp("bare") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    return str(env / "bin" / "python")


@posix_only
def test_collect_against_an_environment_without_torch(bare_python: str) -> None:
    facts = collect(bare_python, timeout=30)
    assert Facts.from_json(facts.to_json()) == facts
    assert (facts.meta.source, facts.meta.gpudoctor_version) == ("live", "0.1.0")
    assert facts.platform.python_executable == bare_python
    assert facts.platform.python_version == "%d.%d.%d" % sys.version_info[:3]
    assert facts.platform.virtualenv is True
    assert facts.torch.installed is False and facts.torchvision.installed is False and facts.packages == ()
    assert facts.probe_error("torch") is None
    sections = [section for section, _ in facts.probe_errors]
    assert sections == sorted(set(sections), key=sections.index)


@posix_only
def test_collect_survives_probes_that_raise(bare_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(probes, "probe_linux", boom)
    monkeypatch.setattr(probes, "probe_nvml", boom)
    monkeypatch.setattr(probes, "probe_env", boom)
    facts = collect(bare_python, timeout=30)
    assert facts.probe_error("linux") == "the linux probe failed: RuntimeError: boom"
    assert facts.probe_error("env") == "the env probe failed: RuntimeError: boom"
    assert facts.probe_error("driver") == "the NVML probe failed: RuntimeError: boom"
    assert facts.probe_error("gpus") == "the NVML probe failed: RuntimeError: boom"
    assert (facts.env, facts.gpus, facts.torch.installed) == (EnvFacts(), (), False)
