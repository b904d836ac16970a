"""The torch child run for real under fake target interpreters, and the parent's reading of its output."""

from __future__ import annotations

import ast
import glob
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest

from gpudoctor.facts import CompanionFacts, Distribution, TorchFacts
from gpudoctor.probes.python import PythonError, validate
from gpudoctor.probes.records import read_records
from gpudoctor.probes.torch import CHILD, ChildRun, PythonInfo, TorchResult, ending, interpret, probe_torch

FAKES = Path(__file__).resolve().parent / "fixtures" / "probes" / "torch"
VENV_PYTHON = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "python"


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter with nothing installed: a fresh virtual environment without pip."""
    env = tmp_path_factory.mktemp("bare") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    return str(env / "bin" / "python")


def _environ(fake: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CUDA_VISIBLE_DEVICES")}
    env["PYTHONPATH"] = str(FAKES / fake)
    return env


def _info(bare_python: str) -> PythonInfo:
    return PythonInfo(
        version="%d.%d.%d" % sys.version_info[:3],
        executable=bare_python,
        implementation="CPython",
        libc=" ".join(p for p in platform.libc_ver() if p) or None,
        machine=platform.machine(),
        system="Linux",
        conda_env=None,
        virtualenv=True,
    )


def test_child_is_python_36_syntax() -> None:
    tree = ast.parse(CHILD.read_text(encoding="utf-8"), feature_version=(3, 6))
    imported = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names)
    assert "importlib.metadata" not in CHILD.read_text(encoding="utf-8")  # new in 3.8


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fakes use POSIX signals and paths")
def test_fake_torch_that_imports(bare_python: str) -> None:
    result = probe_torch(bare_python, 30, _environ("imports"))
    site = str(FAKES / "imports")
    assert result == TorchResult(
        python=_info(bare_python),
        packages=(
            Distribution("nvidia-cudnn-cu12", "9.5.1.17", site, ()),
            Distribution(
                "torch",
                "2.6.0+cu126",
                site,
                ("filelock", 'nvidia-cudnn-cu12==9.5.1.17; platform_system == "Linux" and platform_machine == "x86_64"'),
            ),
            Distribution("torchvision", "0.21.0+cu126", site, ("numpy", "torch==2.6.0")),
        ),
        torch=TorchFacts(
            installed=True,
            version="2.6.0+cu126",
            location=f"{site}/torch",
            cuda="12.6",
            cuda_compiled=True,
            arch_flags=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
            cudnn_error=(
                "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 5, 1) "
                "but found runtime version (8, 6, 0)."
            ),
            is_available=False,
            init_error=(
                "CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
                "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"
            ),
            warnings=("Failed to initialize NumPy: _ARRAY_API not found",),
            device_count=0,
            loaded_libraries=result.torch.loaded_libraries,
            mps_available=False,
        ),
        torchvision=CompanionFacts(
            installed=True,
            version="0.21.0+cu126",
            location=f"{site}/torchvision",
            import_error="RuntimeError: operator torchvision::nms does not exist",
            import_traceback=(
                "Traceback (most recent call last):\n"
                f'  File "{site}/torchvision/__init__.py", line 6, in <module>\n'
                '    raise RuntimeError("operator torchvision::nms does not exist")\n'
                "RuntimeError: operator torchvision::nms does not exist"
            ),
            ops_error=(
                "Failed to load '_C_stable' extension: OSError: libcudart.so.12: cannot open shared object file: "
                f"No such file or directory; loading it directly: {site}/torchvision/_C_stable.so: invalid ELF header"
            ),
        ),
        torchaudio=CompanionFacts(installed=False),
    )
    assert any(path.endswith("/libc.so.6") for path in result.torch.loaded_libraries)


def test_fake_torch_whose_import_fails(bare_python: str) -> None:
    result = probe_torch(bare_python, 30, _environ("broken"))
    assert result.errors == ()
    init = FAKES / "broken" / "torch" / "__init__.py"
    assert result.torch == TorchFacts(
        installed=True,
        location=str(FAKES / "broken" / "torch"),
        import_error="OSError: libcudnn.so.9: cannot open shared object file: No such file or directory",
        import_traceback=(
            "Traceback (most recent call last):\n"
            f'  File "{init}", line 1, in <module>\n'
            '    raise OSError("libcudnn.so.9: cannot open shared object file: No such file or directory")\n'
            "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory"
        ),
    )
    assert result.torchvision == CompanionFacts(installed=False)


def test_fake_torch_that_hangs_is_stopped_at_the_limit(bare_python: str) -> None:
    result = probe_torch(bare_python, 2, _environ("hang"))
    assert result.errors == (("torch", "importing torch did not finish within 2 s"),)
    assert result.torch == TorchFacts(installed=True, location=str(FAKES / "hang" / "torch"), timed_out=True)
    assert result.python == _info(bare_python)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")
def test_fake_torch_that_segfaults(bare_python: str) -> None:
    result = probe_torch(bare_python, 30, _environ("segfault"))
    assert result.torch == TorchFacts(
        installed=True, location=str(FAKES / "segfault" / "torch"), crashed="killed by signal 11 (SIGSEGV)"
    )
    init = FAKES / "segfault" / "torch" / "__init__.py"
    assert result.errors == (
        (
            "torch",
            "the torch probe killed by signal 11 (SIGSEGV) while importing torch "
            f"(last Python frame: File {init}, line 4 in <module>)",
        ),
    )
    assert result.python == _info(bare_python)


def test_no_torch_installed_is_not_an_error(bare_python: str) -> None:
    result = probe_torch(bare_python, 30, _environ("nothing-here"))
    assert result == TorchResult(
        python=_info(bare_python),
        torch=TorchFacts(installed=False),
        torchvision=CompanionFacts(installed=False),
        torchaudio=CompanionFacts(installed=False),
    )


def test_python_that_prints_garbage(bare_python: str, tmp_path: Path) -> None:
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "Welcome to the cluster! module load cuda/12.1"\nexec {bare_python} "$@"\n')
    wrapper.chmod(0o755)
    result = probe_torch(str(wrapper), 30, _environ("nothing-here"))
    assert result.errors == (
        ("torch", "the torch probe printed lines that are not JSON records: 'Welcome to the cluster! module load cuda/12.1'"),
    )
    assert result.torch == TorchFacts(installed=False)


def test_target_that_cannot_start(tmp_path: Path) -> None:
    result = probe_torch(str(tmp_path / "missing-python"), 5)
    assert result == TorchResult(
        errors=(("torch", f"could not start {tmp_path / 'missing-python'}: No such file or directory"),)
    )


def test_records_keep_what_arrived_and_quote_the_first_bad_line() -> None:
    stdout = "\n".join(
        [
            '{"record": "phase", "section": "torch", "doing": "importing torch"}',
            "x" * 150,
            "[1, 2]",
            '{"record": "torch", "installed": true, "version": "2.5.1"}',
            '{"record": "child_error", "section": "torchvision", "error": "KeyError: \'x\'"}',
        ]
    )
    records = read_records(stdout)
    assert records.phase == ("torch", "importing torch")
    assert records.done is False
    assert records.get("torch") == {"record": "torch", "installed": True, "version": "2.5.1"}
    assert records.errors == (
        ("torchvision", "the torch probe failed while reading torchvision: KeyError: 'x'"),
        ("torch", f"the torch probe printed lines that are not JSON records: '{'x' * 100}...' and 1 more"),
    )


def test_a_hang_while_importing_torchvision_is_charged_to_torchvision() -> None:
    stdout = "\n".join(
        [
            '{"record": "torch", "installed": true, "version": "2.5.1+cu124"}',
            '{"record": "phase", "section": "torchvision", "doing": "importing torchvision"}',
        ]
    )
    result = interpret(ChildRun(stdout=stdout, returncode=-9, timed_out=True), 60)
    assert result.torch == TorchFacts(installed=True, version="2.5.1+cu124")
    assert result.torchvision == CompanionFacts(import_error="importing torchvision did not finish within 60 s")
    assert result.errors == (("torchvision", "importing torchvision did not finish within 60 s"),)


def test_exit_status_wording() -> None:
    assert ending(-11) == "killed by signal 11 (SIGSEGV)"
    assert ending(-9) == "killed by signal 9 (SIGKILL)"
    assert ending(0xC0000005) == "crashed with access violation (0xC0000005)"
    assert ending(3) == "exited with status 3"


@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="the project's virtual environment is not built")
def test_real_torch_of_the_project_environment() -> None:
    result = probe_torch(str(VENV_PYTHON), 120)
    assert result.errors == ()
    t = result.torch
    assert (t.installed, t.version, t.cuda, t.cuda_compiled, t.is_available, t.device_count) == (
        True, "2.14.1+cu130", "13.0", True, False, 0
    )
    assert t.arch_flags == ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert t.init_error is None and t.import_error is None and t.timed_out is False and t.crashed is None
    assert any(p.endswith("/torch/lib/libtorch_cpu.so") for p in t.loaded_libraries)
    assert result.torchvision.import_error is None and result.torchvision.ops_error is None
    assert [d.name for d in result.packages if d.name in ("torch", "torchvision")] == ["torch", "torchvision"]


def test_a_second_torch_on_the_path_is_reported(bare_python: str) -> None:
    env = _environ("imports")
    env["PYTHONPATH"] = os.pathsep.join([str(FAKES / "imports"), str(FAKES / "broken")])
    result = probe_torch(bare_python, 30, env)
    assert (result.torch.location, result.torch.other_locations) == (
        str(FAKES / "imports" / "torch"),
        (str(FAKES / "broken" / "torch"),),
    )


def _old_python(minor: int) -> Optional[str]:
    """A working Python 3.minor: on PATH, or one that pyenv installed."""
    candidates = [shutil.which(f"python3.{minor}") or ""]
    candidates += sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/python3.{minor}")))
    for candidate in filter(None, candidates):
        try:
            return validate(candidate).path
        except PythonError:
            continue
    return None


@pytest.mark.parametrize("minor", [6, 7, 8])
def test_child_under_old_pythons(minor: int) -> None:
    python = _old_python(minor)
    if python is None:
        pytest.skip(f"no working Python 3.{minor} here (PATH or ~/.pyenv)")
    result = probe_torch(python, 30, _environ("broken"))
    assert result.errors == ()
    assert result.python is not None and (result.python.version or "").startswith(f"3.{minor}.")
    assert result.torch.import_error == "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory"


def test_a_child_that_dies_before_torch_leaves_torch_unknown() -> None:
    stderr = 'Traceback (most recent call last):\n  File "x", line 1\nSyntaxError: invalid syntax\n'
    result = interpret(ChildRun(stdout="", stderr=stderr, returncode=1), 60)
    assert result == TorchResult(
        errors=(("torch", "the torch probe exited with status 1 while starting the torch probe (SyntaxError: invalid syntax)"),)
    )
