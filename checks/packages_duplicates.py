"""The duplicate-torch check: more than one torch visible to the target interpreter, and which one wins."""

from __future__ import annotations

from typing import Iterator, List, Optional

from packaging.utils import canonicalize_name

from gpudoctor import plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.checks import packages as pk
from gpudoctor.facts import Facts
from gpudoctor.facts.sites import site_kind, site_owner
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import check, skip

DUPLICATE_LINKS = ("https://pip.pypa.io/en/stable/user_guide/#user-installs", "https://docs.python.org/3/library/site.html")


def _pythonpath(facts: Facts) -> List[str]:
    value = facts.env.get("PYTHONPATH") or ""
    return [e for e in value.split(";" if _fix.is_windows(facts) else ":") if e]


def _kind(facts: Facts, site: str) -> str:
    if any(e.rstrip("\\/") == site for e in _pythonpath(facts)):
        return "PYTHONPATH"
    return site_kind(site).value


def _move_aside(facts: Facts, torch_dir: str) -> Optional[str]:
    if not plausible.path(torch_dir):
        return None
    if _fix.is_windows(facts):
        return _cmd.command(facts, ["Rename-Item", torch_dir, "torch.stray"])
    return _cmd.command(facts, ["mv", torch_dir, torch_dir + ".stray"])


def _removal(facts: Facts, torch_dir: str, imported: bool) -> Fix:
    """How to take one torch directory off the path: edit PYTHONPATH, pip uninstall it, or move it aside."""
    site = pk.parent(torch_dir)
    kind = _kind(facts, site)
    aside = "Rename that torch folder (for example to torch.stray)."
    if kind == "PYTHONPATH":
        rest = [e for e in _pythonpath(facts) if e.rstrip("\\/") != site]
        sep = ";" if _fix.is_windows(facts) else ":"
        command = (_cmd.export(facts, "PYTHONPATH", sep.join(rest)) if plausible.path_list(rest) else None) if rest \
            else _cmd.unset(facts, "PYTHONPATH")
        return _cmd.fix(f"Take {site} out of PYTHONPATH, here and in the profile that sets it.", (command,),
                        "Remove it from the setting that names it.")
    if not any(d.location and d.location.rstrip("\\/") == site for d in facts.packages if canonicalize_name(d.name) == "torch"):
        return _cmd.fix(f"{torch_dir} is not an installed distribution (a copied or source tree): move it aside.",
                        (_move_aside(facts, torch_dir),), aside)
    if kind == "user site" and imported:
        return Fix("Uninstall the user-site torch; pip removes the first torch on the path, which is this one.",
                   (f"{_fix.python(facts)} -m pip uninstall -y torch",))
    owner = site_owner(site)
    if owner is None or kind == "user site":
        return _cmd.fix(f"Move {torch_dir} aside.", (_move_aside(facts, torch_dir),), aside)
    conda = f" (if conda installed it: conda remove -p {owner.prefix} pytorch)" if "conda" in kind else ""
    interpreter = owner.interpreter
    uninstall = _cmd.command(facts, [interpreter, "-m", "pip", "uninstall", "-y", "torch"]) \
        if plausible.path(interpreter) else None
    return _cmd.fix(f"Uninstall the torch in {site} with the Python it belongs to{conda}.", (uninstall,),
                    "Run pip uninstall torch with the python of that environment.")


def _listed_twice(facts: Facts, listed: List[str]) -> Iterator[Finding]:
    """A pasted report, which says which torch imported but not from where: a listed torch of another version."""
    imported = facts.torch.version
    other = sorted({v for v in listed if v and imported and _fix.base_version(v) != _fix.base_version(imported)})
    if not imported or not other:
        raise skip("the directory torch is imported from is not known")
    py = _fix.python(facts)
    yield Finding(
        "packages.duplicate-torch", Severity.WARNING,
        f"torch {imported} is the one imported, but the package list also shows torch {', '.join(other)}",
        "Observed: two torch versions in one report, the trace of two installations (pip and conda, or a user site "
        "beside the environment); which of them Python imports depends on the search path. Required: one torch.",
        Fix("See where each torch lives, then uninstall all but the one you want with the tool that installed it.",
            (f"{py} -c \"import torch; print(torch.__version__, torch.__file__)\"", f"{py} -m pip list", "conda list pytorch")),
        DUPLICATE_LINKS, ("torch.version", "packages"),
    )


@check("packages.duplicate-torch", "One torch installation")
def duplicate_torch(facts: Facts) -> Iterator[Finding]:
    t = facts.torch
    pk.require_torch(facts)
    dists = [d for d in facts.packages if canonicalize_name(d.name) == "torch"]
    if not t.location:
        yield from _listed_twice(facts, [d.version for d in dists])
        return
    imported, site = t.location.rstrip("\\/"), pk.parent(t.location.rstrip("\\/"))
    version = t.version or "(unknown version)"
    meta = {d.location.rstrip("\\/"): d.version for d in dists if d.location}
    others = [o.rstrip("\\/") for o in t.other_locations if o.rstrip("\\/") != imported]
    evidence = ("torch.location", "torch.other_locations", "packages")
    if meta and site not in meta:
        pip_side = "; ".join(f"{v} in {loc}" for loc, v in meta.items()) or dists[0].version
        yield Finding(
            "packages.duplicate-torch", Severity.ERROR,
            f"Python imports torch {version} from {imported}, but pip's torch is {pip_side}",
            f"Observed: import torch -> {imported} ({_kind(facts, site)}), with no installed-package metadata there. "
            "Required: the torch that pip installed, so that pip and Python agree.",
            _removal(facts, imported, True), DUPLICATE_LINKS, evidence,
        )
        return
    if others and _kind(facts, site) in ("PYTHONPATH", "user site"):
        hidden = "; ".join(f"torch {meta.get(pk.parent(o), '')} in {pk.parent(o)}".replace("torch  ", "torch ") for o in others)
        yield Finding(
            "packages.duplicate-torch", Severity.ERROR,
            f"torch {version} from {site} ({_kind(facts, site)}) hides the environment's {hidden}",
            f"Observed: import torch -> {imported}; also on the path: {', '.join(others)}. Required: one torch, "
            "the environment's own; installing or upgrading torch in the environment changes nothing while this one comes first.",
            _removal(facts, imported, True), DUPLICATE_LINKS, evidence,
        )
        return
    for other in others:
        where = pk.parent(other)
        yield Finding(
            "packages.duplicate-torch", Severity.WARNING,
            f"a second torch{(' ' + meta[where]) if where in meta else ''} in {where} ({_kind(facts, where)}) is hidden behind "
            f"torch {version} from {site}",
            f"Observed: {other} besides {imported}. Required: one torch on the path; the hidden one takes over when the other "
            "is uninstalled and confuses pip and tools that scan the path.",
            _removal(facts, other, False), DUPLICATE_LINKS, evidence,
        )
    same_place = [d for d in dists if d.location and d.location.rstrip("\\/") == site]
    if len({d.version for d in same_place}) > 1:
        versions = " and ".join(sorted(d.version for d in same_place))
        reinstall = pk.torch_reinstall(facts)
        yield Finding(
            "packages.duplicate-torch", Severity.WARNING, f"two torch installs recorded in {site}: {versions}",
            "Observed: two torch metadata directories in one site-packages, the trace of conda and pip (or two pip runs) "
            "installing torch over each other. Required: one; the files on disk may be a mix of both.",
            Fix("Remove conda's record of torch without touching the files, then reinstall one torch with pip.",
                ("conda remove --force pytorch",) + ((reinstall,) if reinstall else ())),
            DUPLICATE_LINKS, evidence,
        )


CHECKS = [duplicate_torch]
