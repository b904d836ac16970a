"""The installer probe names what manages an environment, on environments built here with the real tools."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from gpudoctor.installers import Installer
from gpudoctor.probes import installer as probe
from gpudoctor.probes.installer import probe_installer

PY = f"{sys.version_info[0]}.{sys.version_info[1]}"


def _uv() -> Optional[list[str]]:
    found = shutil.which("uv")
    if found:
        return [found]
    try:
        import uv  # noqa: F401 - the PyPI package ships the binary
    except ImportError:
        return None
    return [sys.executable, "-m", "uv"]


def _bin(prefix: Path) -> Path:
    return prefix / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def test_a_venv_made_by_python_m_venv_is_a_plain_venv(tmp_path: Path) -> None:
    env = tmp_path / "my env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    found = probe_installer(str(_bin(env)), PY, tmp_path)
    assert found.installer is Installer.VENV and "pyvenv.cfg" in (found.evidence or "")
    assert found.torch_from_conda is None


def test_a_venv_made_by_uv_venv_is_a_uv_venv(tmp_path: Path) -> None:
    uv = _uv()
    if uv is None:
        pytest.skip("uv is not installed (it is in the test extra)")
    env = tmp_path / "uvenv"
    subprocess.run([*uv, "venv", "--python", sys.executable, str(env)], check=True, timeout=120,
                   capture_output=True)
    found = probe_installer(str(_bin(env)), PY, tmp_path)
    assert found.installer is Installer.UV_VENV, found


def test_a_uv_projects_own_venv_is_a_uv_project(tmp_path: Path) -> None:
    uv = _uv()
    if uv is None:
        pytest.skip("uv is not installed (it is in the test extra)")
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\nrequires-python = ">=3.8"\n'
                                            "dependencies = []\n")
    subprocess.run([*uv, "venv", "--python", sys.executable], cwd=project, check=True, timeout=120, capture_output=True)
    subprocess.run([*uv, "lock", "--offline"], cwd=project, check=True, timeout=120, capture_output=True)
    assert (project / "uv.lock").is_file()
    found = probe_installer(str(_bin(project / ".venv")), PY, project / "src")
    assert found.installer is Installer.UV_PROJECT and "uv.lock" in (found.evidence or "")
    elsewhere = probe_installer(str(_bin(project / ".venv")), PY, tmp_path)  # run outside the project
    assert elsewhere.installer is Installer.UV_VENV


def _conda_prefix(root: Path, *records: str) -> Path:
    (root / "conda-meta").mkdir(parents=True)
    (root / "bin").mkdir()
    (root / "bin" / "python").write_text("")
    for record in records:
        (root / "conda-meta" / record).write_text("{}")
    return root


def test_a_conda_prefix_says_whether_conda_installed_torch(tmp_path: Path) -> None:
    conda = _conda_prefix(tmp_path / "envs" / "ml", "python-3.12.3-h1.json", "pytorch-2.5.1-cuda126_py312.json")
    found = probe_installer(str(conda / "bin" / "python"), "3.12.3", tmp_path)
    assert (found.installer, found.torch_from_conda) == (Installer.CONDA, True)
    pip_torch = _conda_prefix(tmp_path / "envs" / "pip", "python-3.12.3-h1.json", "pytorch-cuda-12.4-h1.json")
    found = probe_installer(str(pip_torch / "bin" / "python"), "3.12.3", tmp_path)
    assert (found.installer, found.torch_from_conda) == (Installer.CONDA, False)
    assert "not a conda package" in (found.evidence or "")


def test_a_pixi_environment_is_pixi_not_conda(tmp_path: Path) -> None:
    (tmp_path / "pixi.toml").write_text("[workspace]\nname = 'w'\n")
    env = _conda_prefix(tmp_path / ".pixi" / "envs" / "default", "pytorch-2.7.0-cuda126.json")
    found = probe_installer(str(env / "bin" / "python"), "3.12.3", tmp_path)
    assert (found.installer, found.torch_from_conda) == (Installer.PIXI, True)
    assert f"of the workspace {tmp_path}" in (found.evidence or "")


def test_poetry_is_told_by_its_cache_or_by_its_project(tmp_path: Path) -> None:
    cached = tmp_path / ".cache" / "pypoetry" / "virtualenvs" / "app-x1-py3.12"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(cached)], check=True, timeout=120)
    assert probe_installer(str(_bin(cached)), PY, tmp_path).installer is Installer.POETRY
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.poetry]\nname = 'app'\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True, timeout=120)
    assert probe_installer(str(_bin(project / ".venv")), PY, project).installer is Installer.POETRY


def test_pep_668_marks_the_base_interpreter_and_venvs_are_exempt(tmp_path: Path) -> None:
    base = tmp_path / "usr"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python3").write_text("")
    assert probe_installer(str(base / "bin" / "python3"), "3.12.3", tmp_path).installer is Installer.SYSTEM
    (base / "lib" / "python3.12").mkdir(parents=True)
    (base / "lib" / "python3.12" / "EXTERNALLY-MANAGED").write_text("[externally-managed]\n")
    found = probe_installer(str(base / "bin" / "python3"), "3.12.3", tmp_path)
    assert found.installer is Installer.EXTERNALLY_MANAGED and "EXTERNALLY-MANAGED" in (found.evidence or "")
    windows = tmp_path / "Python312"
    (windows / "Lib").mkdir(parents=True)
    (windows / "Lib" / "EXTERNALLY-MANAGED").write_text("")
    assert probe_installer(str(windows / "python.exe"), "3.12.3", tmp_path, "Windows").installer \
        is Installer.EXTERNALLY_MANAGED
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    assert probe_installer(str(_bin(venv)), "3.12.3", tmp_path).installer is Installer.VENV


def test_the_probe_is_bounded_and_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert probe_installer(None, None).installer is None
    assert probe_installer("/no\x00where", "3.12").installer is None
    prefix = _conda_prefix(tmp_path / "big")
    for i in range(30):
        (prefix / "conda-meta" / f"a{i:03d}-1-0.json").write_text("{}")
    (prefix / "conda-meta" / "pytorch-2.5.1-0.json").write_text("{}")
    assert probe.conda_torch(prefix) is True
    monkeypatch.setattr(probe, "ENTRY_CAP", 0)  # no entry looked at: nothing is claimed
    assert probe.conda_torch(prefix) is False

    def boom(*_: object) -> object:
        raise RuntimeError("unexpected")

    monkeypatch.setattr(probe, "prefix_of", boom)
    assert probe_installer("/usr/bin/python3", "3.12.3", tmp_path).installer is None


def test_a_hostile_pyvenv_cfg_is_read_within_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / "v"
    (env / "bin").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n" + "x" * 200 + "\nuv = 0.5.0\n")
    monkeypatch.setattr(probe, "READ_CAP", 100)
    assert probe_installer(str(env / "bin" / "python"), "3.12", tmp_path).installer is Installer.VENV
    monkeypatch.setattr(probe, "READ_CAP", 64 * 1024)
    assert probe_installer(str(env / "bin" / "python"), "3.12", tmp_path).installer is Installer.UV_VENV
