"""Merges observations into one Facts: the first source of each value wins, and two sources that disagree
(a host and a container, two machines) are kept apart as a conflict instead of being blended."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.facts import CompanionFacts, Distribution, Facts, Gpu
from gpudoctor.parsers.paste.observe import Observation

# Values that are messages, not measurements: the first one is kept and later ones are not conflicts.
_MESSAGES = frozenset({"torch.init_error", "torch.import_error", "driver.nvml_error_text", "driver.smi_error_text",
                       "torchvision.import_error"})
_SCALARS = frozenset({
    "driver.version", "driver.kernel_module_version", "driver.cuda_version", "driver.gpu_count", "torch.version", "torch.cuda", "torch.is_available",
    "torch.device_count", "torch.cudnn_version", "torch.mps_available", "torch.cuda_compiled", "torch.installed", "torch.arch_flags",
    "platform.system", "platform.machine", "platform.wsl", "platform.python_version", "platform.container", "toolkit.nvcc_version",
    "libraries.ld_library_path", "platform.installer", "platform.installer_evidence", "platform.torch_from_conda",
    "torch.crashed",
}) | _MESSAGES
_GPU_PREFIX = re.compile(r"^(nvidia|geforce)\s+")
MAX_CONFLICTS = 50  # a paste of thousands of different versions must not make the merge quadratic
_LISTS = frozenset({"torch.warnings", "torch.loaded_libraries", "driver.kernel_modules"})


@dataclass(frozen=True)
class Conflict:
    """Two sources that disagree on one value; ``kept`` is what the facts hold."""

    path: str
    kept: Observation
    other: Observation


@dataclass(frozen=True)
class Merged:
    facts: Facts
    provenance: Tuple[Tuple[str, Observation], ...]
    conflicts: Tuple[Conflict, ...]


def _parts(value: str) -> List[str]:
    """'2.1.0+cu121' -> ['2', '1']: the release without its local tag and trailing zero components."""
    parts = value.split("+")[0].split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return parts


def _same(path: str, a: Any, b: Any) -> bool:
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str):
        if path in ("driver.version", "platform.python_version", "toolkit.nvcc_version"):
            shorter, longer = sorted((a.split("."), b.split(".")), key=len)
            return longer[:len(shorter)] == shorter  # "535.104" is "535.104.05" read less precisely
        if path == "torch.version":  # "2.1.0" agrees with "2.1.0+cu121", not with "2.1.0+cpu" vs "+cu121"
            return _parts(a) == _parts(b) and ("+" not in a or "+" not in b)
    return False


def _fuller(kept: Any, new: Any) -> bool:
    """A later message that holds the whole of the kept one and says more (the same error, quoted in full)."""
    if not isinstance(kept, str) or not isinstance(new, str):
        return False
    core = kept.split(": ", 1)[1] if kept.startswith(("ImportError: ", "RuntimeError: ")) else kept
    return len(new) > len(kept) and core.strip() in new


def _better(path: str, kept: Any, new: Any) -> Any:
    """Of two agreeing values, the more specific (2.1.0+cu121 over 2.1.0)."""
    if isinstance(kept, str) and isinstance(new, str) and len(new) > len(kept):
        return new
    return kept


def _base(section: Any, field: str) -> Any:
    value = getattr(section, field, None)
    return None if value in ((), "") else value


def merge(base: Facts, observations: Iterable[Observation], base_fmt: str = "") -> Merged:
    values: Dict[str, Tuple[Any, Observation]] = {}
    conflicts: List[Conflict] = []
    seen: Set[Tuple[str, Any]] = set()
    listed: Set[Any] = set()
    env_vars: Dict[str, Tuple[str, Observation]] = {}
    lists: Dict[str, List[Any]] = {path: [] for path in _LISTS}
    gpus: List[Tuple[Optional[int], str, Observation]] = []
    mentioned: List[Tuple[Optional[int], str, Observation]] = []  # names in sentences: used when nothing else names one
    memories: List[int] = []
    modes: List[Tuple[str, Observation]] = []
    used: List[int] = []
    packages: Dict[str, Tuple[Distribution, Observation]] = {}
    extra: List[Tuple[str, str]] = []
    for obs in observations:
        path = obs.path
        if path in _SCALARS:
            section, field = path.split(".", 1)
            known = _base(getattr(base, section), field)
            if known is not None:
                if (path not in _MESSAGES and not _same(path, known, obs.value)
                        and (path, repr(obs.value)) not in seen and len(conflicts) < MAX_CONFLICTS):
                    seen.add((path, repr(obs.value)))
                    here = Observation(path, known, -1, 0, str(known), base_fmt)
                    conflicts.append(Conflict(path, here, obs))
                continue
            if path not in values:
                values[path] = (obs.value, obs)
            elif path in _MESSAGES:
                kept, first = values[path]
                if _fuller(kept, obs.value):  # "[WinError 126]" in a title, then the whole message below it
                    values[path] = (obs.value, obs)
            else:
                kept, first = values[path]
                if _same(path, kept, obs.value):
                    values[path] = (_better(path, kept, obs.value), first)
                elif (path, repr(obs.value)) not in seen and len(conflicts) < MAX_CONFLICTS:
                    seen.add((path, repr(obs.value)))
                    conflicts.append(Conflict(path, first, obs))
        elif path in _LISTS:
            if obs.value not in listed and len(lists[path]) < MAX_CONFLICTS:
                listed.add(obs.value)
                lists[path].append(obs.value)
                values.setdefault(path, (None, obs))
        elif path.startswith("env."):
            name = path[len("env."):]
            if not base.env.has(name) and name not in env_vars:
                env_vars[name] = (obs.value, obs)
        elif path == "gpus":
            gpus.append((obs.value[0], obs.value[1], obs))
        elif path == "gpus.mentioned":
            mentioned.append((None, obs.value, obs))
        elif path == "gpus.memory_total_mib":
            memories.append(obs.value)
        elif path == "gpus.memory_used_mib":
            used.append(obs.value)
        elif path == "gpus.compute_mode":
            modes.append((obs.value, obs))
        elif path == "packages":
            key = canonicalize_name(obs.value.name)
            if key not in packages:
                packages[key] = (obs.value, obs)
            elif (not _same("torch.version", packages[key][0].version, obs.value.version)
                  and (key, obs.value.version) not in seen and len(conflicts) < MAX_CONFLICTS):
                seen.add((key, obs.value.version))
                conflicts.append(Conflict(f"packages.{key}", packages[key][1], obs))
        else:
            value = obs.value.value if hasattr(obs.value, "value") else obs.value
            extra.append((f"paste.{path}", str(value)))
            extra.append((f"paste.line.{path}.{value if path == 'signature' else len(extra)}",
                          f"{obs.line}: {obs.quote}"))
    if not gpus and len({name.lower() for _, name, _ in mentioned}) > 1:  # named in sentences: not one machine's list
        extra.append(("paste.gpus_from_prose", str(len(mentioned))))
    if not gpus and mentioned:  # the GPUs were only named in words: no tool showed them on this machine
        extra.append(("paste.gpus_named_only", str(len(mentioned))))
    gpus = gpus or mentioned
    facts = _apply(base, values, lists, _gpus(base, gpus, memories, used, modes), packages)
    if env_vars:
        variables = facts.env.variables + tuple((name, value) for name, (value, _) in env_vars.items())
        facts = dataclasses.replace(facts, env=dataclasses.replace(facts.env, variables=tuple(sorted(variables))))
        values.update({f"env.{name}": (value, obs) for name, (value, obs) in env_vars.items()})
    provenance = [(path, obs) for path, (_, obs) in values.items()]
    provenance += [(f"packages.{key}", obs) for key, (_, obs) in packages.items()]
    provenance += [(f"gpus.{i}", obs) for i, (_, _, obs) in enumerate(gpus) if not base.gpus]
    provenance += [(f"gpus.{i}.compute_mode", obs) for i, (_, obs) in enumerate(modes) if not base.gpus]
    for path, obs in provenance:
        extra.append((f"paste.line.{path}", f"{obs.line}: {obs.quote}"))
    for c in conflicts:
        extra.append(("paste.conflict", f"{c.path}: {_show(c.kept)} vs {_show(c.other)}"))
    facts = dataclasses.replace(facts, extra=facts.extra + tuple(extra))
    return Merged(facts, tuple(provenance), tuple(conflicts))


def _show(obs: Observation) -> str:
    where = f"line {obs.line}" if obs.line else obs.fmt or "the report"
    value = f"{obs.value.name} {obs.value.version}" if isinstance(obs.value, Distribution) else obs.value
    return f"{value} ({where})"


def _gpus(base: Facts, found: List[Tuple[Optional[int], str, Observation]], memories: List[int],
          used: List[int], modes: List[Tuple[str, Observation]]) -> Tuple[Gpu, ...]:
    if base.gpus or not found:
        return base.gpus
    seen: Dict[str, Gpu] = {}
    for index, name, _ in found:
        short = _GPU_PREFIX.sub("", name.lower())
        cut = name.rstrip(". ")
        if index is not None and any(  # nvidia-smi cuts long names ("NVIDIA GeForce ..."): the same GPU
                g.index == index and (g.name or "").startswith(cut) for g in seen.values()):
            continue
        key = f"{index}:{short}" if index is not None else short
        if key in seen or (index is None and any(g.name and name.lower() in g.name.lower() for g in seen.values())):
            continue
        seen[key] = Gpu(index=index if index is not None else len(seen), name=name)
    out = []
    for i, gpu in enumerate(seen.values()):
        memory = memories[i] if i < len(memories) else None
        in_use = used[i] if i < len(used) else None
        mode = modes[i][0] if i < len(modes) else None
        out.append(dataclasses.replace(gpu, memory_total_mib=memory, memory_used_mib=in_use, compute_mode=mode))
    return tuple(out)


def _apply(base: Facts, values: Dict[str, Tuple[Any, Observation]], lists: Dict[str, List[Any]],
           gpus: Tuple[Gpu, ...], packages: Dict[str, Tuple[Distribution, Observation]]) -> Facts:
    changes: Dict[str, Dict[str, Any]] = {}
    for path, (value, _) in values.items():
        if path in _LISTS:
            continue
        section, field = path.split(".", 1)
        changes.setdefault(section, {})[field] = value
    for path, items in lists.items():
        if items:
            section, field = path.split(".", 1)
            changes.setdefault(section, {})[field] = tuple(getattr(getattr(base, section), field)) + tuple(items)
    if "libraries" in changes and "ld_library_path" in changes["libraries"] and not base.env.has("LD_LIBRARY_PATH"):
        entries = changes["libraries"]["ld_library_path"]
        changes["env"] = {"variables": tuple(sorted(base.env.variables + (("LD_LIBRARY_PATH", ":".join(entries)),)))}
    sections = {name: dataclasses.replace(getattr(base, name), **fields) for name, fields in changes.items()}
    dists = base.packages + tuple(d for key, (d, _) in packages.items() if base.package(key) is None)
    facts = dataclasses.replace(base, gpus=gpus, packages=dists, **sections)
    return _companions(facts)


def _companions(facts: Facts) -> Facts:
    out: dict[str, Any] = {}
    for name in ("torchvision", "torchaudio"):
        comp: CompanionFacts = getattr(facts, name)
        dist = facts.package(name)
        if dist is not None and comp.version is None:
            out[name] = dataclasses.replace(comp, installed=True, version=dist.version)
    return dataclasses.replace(facts, **out) if out else facts
