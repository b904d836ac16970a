"""Real virtual environments for tests, built once with pip and reused while their requirements match."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parent.parent
ENVS = Path(os.environ.get("GPUDOCTOR_TEST_ENVS", str(ROOT / ".test-envs")))


def python_of(env: Path) -> Path:
    return env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def build_env(name: str, requirements: Sequence[str], pip_args: Sequence[str] = ()) -> Path:
    """Return the interpreter of a venv holding exactly these requirements, building it if needed."""
    env = ENVS / name
    stamp = env / ".requirements"
    wanted = hashlib.sha256("\n".join([*requirements, "--", *pip_args]).encode()).hexdigest()
    if stamp.exists() and stamp.read_text() == wanted and python_of(env).exists():
        return python_of(env)
    if env.exists():
        shutil.rmtree(env)
    env.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=120)
    if requirements:
        cmd = [str(python_of(env)), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pip_args, *requirements]
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"pip failed building test env {name}:\n{done.stdout}\n{done.stderr}")
    stamp.write_text(wanted)
    return python_of(env)
