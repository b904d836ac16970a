"""A plan in the language of each installer, for each shell; and checks' fixes in the installer of their facts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable, List

import pytest

from gpudoctor.checks.support import install
from gpudoctor.compat import Confidence
from gpudoctor.facts import DriverFacts, Facts, PlatformFacts, TorchFacts
from gpudoctor.installers import Installer
from gpudoctor.recommend import InstallPlan, NewEnv, Package, Target
from gpudoctor.recommend import render
from gpudoctor.shell import Shell

URL = "https://download.pytorch.org/whl/cu128"
CU128 = InstallPlan((Package("torch", "2.14.1", "cu128"), Package("torchvision", "0.29.2", "cu128")), "cu128", URL)
CPU = InstallPlan((Package("torch", "2.14.1", "cpu"),), "cpu", "https://download.pytorch.org/whl/cpu")
FORCE = replace(CU128, force_reinstall=True, force_reason="pip would keep it")
PLANS = {"cu128": CU128, "cpu": CPU, "force": FORCE}
PY = {Shell.POSIX: "/home/me/my env/bin/python", Shell.POWERSHELL: "C:\\Users\\me\\it's env\\Scripts\\python.exe"}


def _all() -> str:
    lines: List[str] = []
    for installer in [None, *Installer]:
        for conda_torch in ([True, False, None] if installer is Installer.CONDA else [None]):
            for seen in ([True, False] if installer is Installer.CONDA else [True]):
                for shell, python in PY.items():
                    for name, plan in PLANS.items():
                        target = Target(shell, python, installer, conda_torch, seen)
                        said = render.spoken(plan, target)
                        head = (f"## {installer.value if installer else 'pip'} {name} {shell.value}"
                                + (f" torch_from_conda={conda_torch}" if installer is Installer.CONDA else "")
                                + ("" if seen else " no-driver"))
                        lines += [head, f"confidence: {said.confidence.value}"]
                        lines += [f"    $ {c}" for c in said.commands] + [f"> {n}" for n in said.notes] + [""]
    return "\n".join(lines)


def test_every_installer_speaks_its_own_language(golden: Callable[[str, str], None]) -> None:
    golden("install-plans-by-installer.md", _all())


def test_pip_stays_pip_where_no_installer_is_known() -> None:
    assert render.commands(CU128, Target(python="/v/bin/python")) == render.commands(
        CU128, Target(python="/v/bin/python", installer=Installer.VENV))


def test_conda_never_gets_a_pip_command_for_condas_own_torch() -> None:
    said = render.spoken(CU128, Target(python="/c/bin/python", installer=Installer.CONDA, torch_from_conda=True))
    assert not any("pip" in c for c in said.commands) and "pytorch-gpu" in said.commands[0]
    assert "cuda-version=12.8" in said.commands[0] and said.confidence is Confidence.UNCONFIRMED
    hidden = render.spoken(CU128, Target(installer=Installer.CONDA, torch_from_conda=True, driver_seen=False))
    assert hidden.commands[0] == "export CONDA_OVERRIDE_CUDA=12.8"
    pip_torch = render.spoken(CU128, Target(python="/c/bin/python", installer=Installer.CONDA, torch_from_conda=False))
    assert pip_torch.commands[0].startswith("/c/bin/python -m pip install ") and "did not install" in pip_torch.notes[0]


def test_a_pep_668_python_gets_a_venv_first_never_pip_into_it() -> None:
    said = render.spoken(CU128, Target(python="/usr/bin/python3", installer=Installer.EXTERNALLY_MANAGED))
    assert said.commands[0] == "/usr/bin/python3 -m venv .venv-torch"
    assert said.commands[1].startswith(".venv-torch/bin/python -m pip install torch==2.14.1+cu128 ")
    assert not any(c.startswith("/usr/bin/python3 -m pip") for c in said.commands)


def test_hostile_interpreters_are_quoted_for_every_installer() -> None:
    hostile = "/tmp/x y/$(touch pwned)/`id`;'/bin/python"
    for installer in Installer:
        for command in render.commands(CU128, Target(Shell.POSIX, hostile, installer, True)):
            assert "$(touch pwned)" not in command or "'" in command
            assert subprocess.run(["sh", "-n", "-c", command], timeout=30).returncode == 0


def _uv() -> List[str]:
    found = shutil.which("uv")
    if found:
        return [found]
    pytest.importorskip("uv")
    return [sys.executable, "-m", "uv"]


def test_uv_takes_the_rendered_commands_as_they_are(tmp_path: Path) -> None:
    uv = _uv()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\nrequires-python = ">=3.9"\n'
                                             "dependencies = []\n")
    (add,) = render.commands(CU128, Target(installer=Installer.UV_PROJECT))
    words = add.split()
    assert words[:2] == ["uv", "add"]
    subprocess.run([*uv, "add", "--frozen", *words[2:]], cwd=tmp_path, check=True, timeout=120, capture_output=True)
    written = (tmp_path / "pyproject.toml").read_text()
    assert 'torch = { index = "pytorch-cu128" }' in written and f'url = "{URL}"' in written
    assert '"torch==2.14.1+cu128"' in written
    (pip,) = render.commands(CU128, Target(python=sys.executable, installer=Installer.UV_VENV))
    flags = [w for w in pip.split() if w.startswith("--")]
    help_text = subprocess.run([*uv, "pip", "install", "--help"], check=True, timeout=60, capture_output=True,
                               text=True).stdout
    assert all(flag.split("=")[0] in help_text for flag in flags) and "cu128" in help_text


def _facts(installer: Installer, from_conda: object = None) -> Facts:
    return Facts(platform=PlatformFacts(system="Linux", machine="x86_64", python_version="3.12.3",
                                        python_executable="/opt/env/bin/python", installer=installer.value,
                                        installer_evidence="test", torch_from_conda=from_conda),  # type: ignore[arg-type]
                 driver=DriverFacts(version="580.95.05"), torch=TorchFacts(installed=False))


def test_checks_fixes_speak_the_installer_of_their_facts() -> None:
    conda = install.recommended_install(_facts(Installer.CONDA, True))
    assert conda is not None and conda.command.startswith("conda install -c conda-forge pytorch-gpu ")
    assert any("pip would shadow" in n for n in conda.notes)
    uv = install.recommended_install(_facts(Installer.UV_VENV))
    assert uv is not None and uv.command.startswith("uv pip install --python /opt/env/bin/python torch==")
    pep = install.recommended_install(_facts(Installer.EXTERNALLY_MANAGED))
    assert pep is not None and pep.command.startswith("/opt/env/bin/python -m venv .venv-torch && ")
    text, _ = pep.fix()
    assert "EXTERNALLY-MANAGED" in text


def test_a_new_environment_plan_keeps_pip_in_the_new_venv() -> None:
    plan = replace(CPU, new_env=NewEnv("3.13"))
    assert render.commands(plan, Target(python="/usr/bin/python3", installer=Installer.EXTERNALLY_MANAGED)) == (
        "python3.13 -m venv .venv-torch",
        ".venv-torch/bin/python -m pip install torch==2.14.1+cpu --index-url https://download.pytorch.org/whl/cpu")


def test_a_pasted_conda_list_gets_a_conda_fix_not_pip() -> None:
    from click.testing import CliRunner

    from gpudoctor.cli import main

    paste = Path(__file__).parent / "fixtures" / "conda-cpu-torch-paste.md"
    result = CliRunner().invoke(main, ["diagnose", str(paste)])
    assert "conda install -c conda-forge pytorch-gpu cuda-version=" in result.output
    assert "pip install" not in result.output and "pip would shadow conda's torch" in result.output
