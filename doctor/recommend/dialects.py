"""Install plans in the language of the installer that manages the environment: uv, conda, pixi, Poetry.

pip is the default (``render``); each function here writes one installer's commands, or returns None where
that installer has no better way than pip for the plan (packages conda-forge does not carry, say). Facts about
each tool are marked the way the compatibility tables are: CONFIRMED from the tool's own documentation or
behaviour, SECONDARY or UNCONFIRMED otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from gpudoctor.compat.base import C, S, U, Confidence
from gpudoctor.installers import Installer
from gpudoctor.recommend.plan import InstallPlan
from gpudoctor.shell import Shell, join, set_env

TORCH_FAMILY = ("torch", "torchvision", "torchaudio")
CONDA_NAMES = {"torch": "pytorch", "torchvision": "torchvision", "torchaudio": "torchaudio"}


@dataclass(frozen=True)
class Spoken:
    """A plan in one installer's language: the commands, what to know besides them, and how sure that is."""

    commands: Tuple[str, ...]
    notes: Tuple[str, ...] = ()
    confidence: Confidence = C


@dataclass(frozen=True)
class Where:
    """What the dialects need to know about the target besides the plan."""

    shell: Shell
    python: Optional[str]
    torch_from_conda: Optional[bool] = None
    driver_seen: bool = True


def venv_python(path: str, shell: Shell) -> str:
    """The interpreter of a virtual environment at ``path``, as the target OS lays it out."""
    return rf"{path}\Scripts\python.exe" if shell is not Shell.POSIX else f"{path}/bin/python"


def index_name(plan: InstallPlan) -> str:
    """ "pytorch-cu128": the name a project gives the index of the plan's variant."""
    return f"pytorch-{plan.variant}" if plan.variant else "pytorch"


def _torch_only(plan: InstallPlan) -> bool:
    return bool(plan.packages) and all(p.name in TORCH_FAMILY for p in plan.packages)


def uv_venv(plan: InstallPlan, where: Where) -> Optional[Spoken]:
    """``uv pip install --python PY ... --torch-backend=cu128`` (uv 0.13 lists the backends it knows)."""
    first: Tuple[str, ...] = ()
    python = where.python
    if plan.new_env is not None:
        first = (join(["uv", "venv", "--python", plan.new_env.python, plan.new_env.path], where.shell),)
        python = venv_python(plan.new_env.path, where.shell)
    words: List[str] = ["uv", "pip", "install"]
    if python:
        words += ["--python", python]
    if plan.force_reinstall:
        for package in plan.packages:
            words += ["--reinstall-package", package.name]
    elif plan.upgrade:
        words.append("--upgrade")
    words += list(plan.requirements)
    notes: Tuple[str, ...] = ()
    if plan.index_url and plan.variant and _torch_only(plan):
        words.append(f"--torch-backend={plan.variant}")
        notes = (f"A uv too old to know the {plan.variant} backend takes --index-url {plan.index_url} instead.",)
    elif plan.index_url:
        words += ["--index-url", plan.index_url]
    return Spoken(first + (join(words, where.shell),), notes)


def uv_project(plan: InstallPlan, where: Where) -> Optional[Spoken]:
    """``uv add --index pytorch-cu128=URL torch==...``: uv writes the [tool.uv.sources] and [[tool.uv.index]]."""
    if plan.force_reinstall and not plan.index_url:
        words = ["uv", "sync"]
        for package in plan.packages:
            words += ["--reinstall-package", package.name]
        return Spoken((join(words, where.shell),))
    words = ["uv", "add"]
    snippet: Tuple[str, ...] = ()
    if plan.index_url:
        name = index_name(plan)
        words += ["--index", f"{name}={plan.index_url}"]
        sources = "\n".join(f'{p.name} = {{ index = "{name}" }}' for p in plan.packages)
        snippet = (f"uv add records the index in pyproject.toml:\n[tool.uv.sources]\n{sources}\n\n[[tool.uv.index]]\n"
                   f'name = "{name}"\nurl = "{plan.index_url}"\n(add explicit = true to that index so that only '
                   "these packages come from it), and uv sync installs it elsewhere.",)
    words += list(plan.requirements)
    if plan.new_env is not None:
        snippet += (f"Run it in a uv project (uv init --python {plan.new_env.python} makes one); uv creates the "
                    "project's .venv itself.",)
    return Spoken((join(words, where.shell),), snippet)


def _conda_specs(plan: InstallPlan) -> List[str]:
    cuda = plan.cuda
    flavour = "gpu" if cuda else "cpu"
    specs = [f"pytorch-{flavour}"]
    if cuda:
        specs.append(f"cuda-version={cuda}")
    specs += [CONDA_NAMES[p.name] for p in plan.packages if p.name != "torch"]
    return specs


def _override(plan: InstallPlan, where: Where) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """CONDA_OVERRIDE_CUDA where the driver is not visible (a container build, a login node)."""
    if where.driver_seen or not plan.cuda:
        return (), ()
    note = (f"No driver is visible here, so the solver would not see the __cuda virtual package and would pick a "
            f"CPU build: CONDA_OVERRIDE_CUDA={plan.cuda} declares it.",)
    return (set_env("CONDA_OVERRIDE_CUDA", plan.cuda, where.shell),), note


def conda(plan: InstallPlan, where: Where) -> Optional[Spoken]:
    """conda-forge's pytorch-gpu (or pytorch-cpu) with cuda-version, where conda itself installed torch."""
    if not _torch_only(plan) or (plan.new_env is None and where.torch_from_conda is not True):
        return None
    if plan.new_env is not None:
        words = ["conda", "create", "-n", "torch", "-c", "conda-forge", f"python={plan.new_env.python}"]
        why = "A new conda environment named torch, everything from conda-forge."
    else:
        words = ["conda", "install", "-c", "conda-forge"] + (["--force-reinstall"] if plan.force_reinstall else [])
        why = ("conda installed torch in this environment, so conda replaces it: pip would shadow conda's torch and "
               "leave two copies.")
    words += _conda_specs(plan)
    setup, notes = _override(plan, where)
    torch = plan.package("torch")
    notes += (f"{why} mamba and micromamba take the same arguments.",)
    if torch is not None and torch.version:
        notes += (f"conda-forge builds its own torch; its newest build may not be {torch.version} (UNCONFIRMED: "
                  "gpudoctor has no table of conda-forge builds). `pytorch=*=cuda*` also asks for a CUDA build.",)
    return Spoken(setup + (join(words, where.shell),), notes, U)


def pixi(plan: InstallPlan, where: Where) -> Optional[Spoken]:
    """``pixi add pytorch-gpu`` and the CUDA the workspace declares in [system-requirements]."""
    if not _torch_only(plan):
        return None
    specs = ([f"python={plan.new_env.python}.*"] if plan.new_env is not None else []) + _conda_specs(plan)
    commands: Tuple[str, ...] = (join(["pixi", "add", *specs], where.shell),)
    notes: Tuple[str, ...] = ()
    if plan.cuda:
        major = plan.cuda.split(".")[0]
        notes = (f'pixi picks a CUDA build only where the workspace declares CUDA: add\n[system-requirements]\ncuda = '
                 f'"{major}"\nto pixi.toml (newer pixi: {{ platform = "linux-64", cuda = "{major}" }} in '
                 "[workspace] platforms).",)
    if plan.new_env is not None:
        notes += ("Run it in a pixi workspace (pixi init makes one).",)
    return Spoken(commands, notes, S)


def poetry(plan: InstallPlan, where: Where) -> Optional[Spoken]:
    """``poetry source add --priority explicit pytorch-cu128 URL`` and ``poetry add ... --source pytorch-cu128``."""
    if plan.force_reinstall:
        return None  # Poetry keeps a locked build as it is; pip through the environment's interpreter replaces it
    commands: List[str] = []
    words = ["poetry", "add", *plan.requirements]
    if plan.index_url:
        name = index_name(plan)
        commands.append(join(["poetry", "source", "add", "--priority", "explicit", name, plan.index_url], where.shell))
        words += ["--source", name]
    commands.append(join(words, where.shell))
    notes = (f"Run it in a Poetry project (poetry init makes one) whose Python is {plan.new_env.python}.",) \
        if plan.new_env is not None else ()
    return Spoken(tuple(commands), notes)


def externally_managed(plan: InstallPlan, where: Where) -> Optional[Spoken]:
    """Never pip into a Python marked EXTERNALLY-MANAGED: a virtual environment first, then pip in there."""
    if plan.new_env is not None:
        return None
    python = where.python or "python3"
    words = [venv_python(".venv-torch", where.shell), "-m", "pip", "install"]
    words += (["--upgrade"] if plan.upgrade else []) + list(plan.requirements)
    if plan.index_url:
        words += ["--index-url", plan.index_url]
    notes = ("This Python is marked EXTERNALLY-MANAGED (PEP 668): its packages belong to the OS package manager, "
             "so torch goes into a virtual environment (Debian and Ubuntu need the python3-venv package for it).",)
    return Spoken((join([python, "-m", "venv", ".venv-torch"], where.shell), join(words, where.shell)), notes)


DIALECTS: Dict[Installer, Callable[[InstallPlan, Where], Optional[Spoken]]] = {
    Installer.UV_VENV: uv_venv,
    Installer.UV_PROJECT: uv_project,
    Installer.CONDA: conda,
    Installer.PIXI: pixi,
    Installer.POETRY: poetry,
    Installer.EXTERNALLY_MANAGED: externally_managed,
}

CONDA_PIP_NOTE = {
    False: ("conda did not install torch in this environment (no conda-meta/pytorch-*.json), so pip replaces "
            "pip's own torch without shadowing a conda package."),
    None: ("This is a conda environment: if `conda list pytorch` names a conda channel, conda installed torch and "
           "`conda install -c conda-forge pytorch-gpu` replaces it instead; pip would shadow it."),
}
