"""Real environments built on this machine, probed for real and judged by the library and install checks.

The base venv holds the CPU torch 2.13.0 wheel; the others are hard-linked copies of it (``cp -al``) changed in one
way each: CUDA 12 and CUDA 13 nvidia wheels side by side, a library of torch deleted, a second torch on PYTHONPATH.
They live under $GPUDOCTOR_TEST_ENVS (default .test-envs/) and are reused while their recipe is unchanged.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, List, Tuple

import pytest

from envs import ENVS, build_env, python_of
from gpudoctor.checks import libs, packages
from gpudoctor.checks import packages_duplicates as duplicates
from gpudoctor.model import CheckResult, Status
from gpudoctor.probes import collect
from gpudoctor.runner import run_check

pytestmark = [
    pytest.mark.realenv,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the environments are built with cp -al on Linux"),
]

BASE = ("torch==2.13.0",)  # the CPU wheel in /opt/wheels on the CI machine
MIXED = ("nvidia-cuda-runtime-cu12==12.6.77", "nvidia-nvtx==13.0.85")  # about 1 MB together
BY_ID = {c.id: c for c in libs.CHECKS + duplicates.CHECKS + packages.CHECKS}


def found(result: CheckResult) -> List[Tuple[str, str]]:
    return [(f.severity.value, f.summary) for f in result.findings]


def site_of(env: Path) -> Path:
    return next((env / "lib").glob("python3*/site-packages"))


def derived(name: str, recipe: str, setup: Callable[[Path], None]) -> Path:
    """A hard-linked copy of the base venv changed by ``setup``; rebuilt when the base or the recipe changes."""
    base = build_env("cat-base", BASE)
    base_env = base.parent.parent
    env = ENVS / name
    stamp = env / ".derived"
    wanted = hashlib.sha256(((base_env / ".requirements").read_text() + recipe).encode()).hexdigest()
    if stamp.exists() and stamp.read_text() == wanted:
        return python_of(env)
    shutil.rmtree(env, ignore_errors=True)
    subprocess.run(["cp", "-al", str(base_env), str(env)], check=True, timeout=300)
    setup(env)
    stamp.write_text(wanted)
    return python_of(env)


def _pip_no_deps(env: Path) -> None:
    cmd = [str(python_of(env)), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", *MIXED]
    done = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def _delete_libtorch_cpu(env: Path) -> None:
    (site_of(env) / "torch" / "lib" / "libtorch_cpu.so").unlink()


@pytest.fixture(scope="module")
def base() -> Path:
    return build_env("cat-base", BASE)


@pytest.fixture(scope="module")
def mixed() -> Path:
    return derived("cat-mixed-majors", "pip --no-deps " + " ".join(MIXED), _pip_no_deps)


def test_cuda12_and_cuda13_wheels_beside_a_cpu_torch(mixed: Path) -> None:
    facts = collect(python=str(mixed))
    assert facts.torch.version == "2.13.0+cpu"
    result = run_check(BY_ID["libs.mixed-cuda-majors"], facts)
    assert found(result) == [(
        "warning", "nvidia-* wheels of 2 CUDA majors in one environment: CUDA 12: nvidia-cuda-runtime-cu12 12.6.77; "
        "CUDA 13: nvidia-nvtx 13.0.85",
    )]
    assert result.findings[0].fix.commands == (  # type: ignore[union-attr]
        f"{mixed} -m pip uninstall -y nvidia-cuda-runtime-cu12",
        f"{mixed} -m pip uninstall -y nvidia-nvtx",
    )


def test_a_stray_cuda_runtime_on_ld_library_path(base: Path, mixed: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    stray = tmp_path / "stray"
    stray.mkdir()
    real = site_of(mixed.parent.parent) / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12"
    shutil.copy(real, stray / "libcudart.so.12")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(stray))
    facts = collect(python=str(base))
    assert facts.libraries.ld_library_path == (str(stray),)
    assert facts.libraries.ld_library_path_cuda == (("libcudart.so.12", f"{stray}/libcudart.so.12"),)
    assert [p for p in facts.torch.loaded_libraries if "cudart" in p] == []  # the CPU build does not load it
    result = run_check(BY_ID["libs.shadowed"], facts)
    assert (result.status, found(result)) == (Status.PASS, [
        ("info", f"LD_LIBRARY_PATH holds CUDA libraries that torch did not load: {stray} (libcudart.so.12)"),
    ])

    monkeypatch.delenv("LD_LIBRARY_PATH")
    monkeypatch.setenv("LD_PRELOAD", f"{stray}/libcudart.so.12")
    preloaded = collect(python=str(base))
    assert f"{stray}/libcudart.so.12" in preloaded.torch.loaded_libraries
    result = run_check(BY_ID["libs.shadowed"], preloaded)
    assert found(result) == [(
        "warning", f"torch loaded the CUDA runtime from {stray}, not from its own wheels "
        f"(the LD_PRELOAD entry {stray}/libcudart.so.12 comes first)",
    )]
    assert result.findings[0].fix.commands == ("unset LD_PRELOAD",)  # type: ignore[union-attr]


def test_a_torch_with_a_deleted_library(base: Path) -> None:
    broken = derived("cat-deleted-libtorch-cpu", "rm torch/lib/libtorch_cpu.so", _delete_libtorch_cpu)
    facts = collect(python=str(broken))
    assert facts.torch.import_error == "ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory"
    where = site_of(broken.parent.parent) / "torch" / "lib" / "libtorch_cpu.so"
    result = run_check(BY_ID["libs.missing"], facts)
    assert found(result) == [("error", f"torch's own library libtorch_cpu.so cannot be loaded: {where} is missing")]
    assert result.findings[0].fix.commands == (  # type: ignore[union-attr]
        f"{broken} -m pip install --force-reinstall torch==2.13.0+cpu --index-url https://download.pytorch.org/whl/cpu --no-deps",
    )
    assert run_check(BY_ID["libs.shadowed"], facts).reason == "torch did not import, so the libraries it loads are not known"


@pytest.mark.parametrize("with_metadata", [True, False])
def test_two_torch_installations_visible_at_once(base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 with_metadata: bool) -> None:
    site = site_of(base.parent.parent)
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["cp", "-al", str(site / "torch"), str(other / "torch")], check=True, timeout=120)
    if with_metadata:
        meta = next(site.glob("torch-*.dist-info"))
        subprocess.run(["cp", "-al", str(meta), str(other / meta.name)], check=True, timeout=60)
    monkeypatch.setenv("PYTHONPATH", str(other))
    facts = collect(python=str(base))
    assert facts.torch.location == f"{other}/torch"
    assert facts.torch.other_locations == (f"{site}/torch",)
    result = run_check(BY_ID["packages.duplicate-torch"], facts)
    if with_metadata:
        assert found(result) == [(
            "error", f"torch 2.13.0+cpu from {other} (PYTHONPATH) hides the environment's torch 2.13.0+cpu in {site}",
        )]
        assert result.findings[0].fix.commands == ("unset PYTHONPATH",)  # type: ignore[union-attr]
    else:
        assert found(result) == [(
            "error", f"Python imports torch 2.13.0+cpu from {other}/torch, but pip's torch is 2.13.0+cpu in {site}",
        )]
        assert result.findings[0].fix.commands == ("unset PYTHONPATH",)  # type: ignore[union-attr]
