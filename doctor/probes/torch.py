"""Torch probe: reads what torch_child.py reported under the target interpreter into facts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

from gpudoctor.facts import CompanionFacts, Distribution, TorchDevice, TorchFacts
from gpudoctor.probes.child_process import CHILD, OUTPUT_CAP, ChildRun, ending, last_frame, last_line, spawn
from gpudoctor.probes.records import ChildRecords, read_records

__all__ = ["CHILD", "ChildRun", "PythonInfo", "TorchResult", "ending", "interpret", "probe_torch"]

MIB = 1024 * 1024


@dataclass(frozen=True)
class PythonInfo:
    """The target interpreter as it describes itself."""

    version: Optional[str] = None
    executable: Optional[str] = None
    implementation: Optional[str] = None
    libc: Optional[str] = None
    machine: Optional[str] = None
    system: Optional[str] = None
    conda_env: Optional[str] = None
    virtualenv: Optional[bool] = None


@dataclass(frozen=True)
class TorchResult:
    """Everything the child reported, as facts, plus (section, reason) probe errors."""

    python: Optional[PythonInfo] = None
    packages: Tuple[Distribution, ...] = ()
    torch: TorchFacts = field(default_factory=TorchFacts)
    torchvision: CompanionFacts = field(default_factory=CompanionFacts)
    torchaudio: CompanionFacts = field(default_factory=CompanionFacts)
    errors: Tuple[Tuple[str, str], ...] = ()


def _python_info(rec: Dict[str, Any]) -> PythonInfo:
    prefix, base = rec.get("prefix"), rec.get("base_prefix")
    return PythonInfo(
        version=rec.get("version"),
        executable=rec.get("executable") or None,
        implementation=rec.get("implementation"),
        libc=rec.get("libc"),
        machine=rec.get("machine") or None,
        system=rec.get("system") or None,
        conda_env=prefix if rec.get("conda") else None,
        virtualenv=(prefix != base) if prefix and base else None,
    )


def _packages(rec: Dict[str, Any]) -> Tuple[Tuple[Distribution, ...], List[Tuple[str, str]]]:
    dists, errors = [], []
    for item in rec.get("distributions") or ():
        if not isinstance(item, dict):
            continue
        if item.get("error"):
            errors.append(("packages", f"{item.get('name')} in {item.get('location')}: {item['error']}"))
            continue
        requires = tuple(str(r) for r in item.get("requires") or ())
        name, version = str(item.get("name")), str(item.get("version") or "")
        dists.append(Distribution(name, version, item.get("location"), requires))
    order = {d.location: i for i, d in reversed(list(enumerate(dists)))}
    dists.sort(key=lambda d: (d.name.lower().replace("_", "-"), order.get(d.location, 0)))
    return tuple(dists), errors


def _uuid(value: Optional[str]) -> Optional[str]:
    if not value:
        return None
    return value if value.upper().startswith(("GPU-", "MIG-")) else f"GPU-{value}"


def _device(rec: Dict[str, Any]) -> TorchDevice:
    major, minor, memory = rec.get("major"), rec.get("minor"), rec.get("total_memory")
    return TorchDevice(
        index=int(rec.get("index") or 0),
        name=rec.get("name"),
        compute_capability=(major, minor) if isinstance(major, int) and isinstance(minor, int) else None,
        total_memory_mib=memory // MIB if isinstance(memory, int) else None,
        multi_processor_count=rec.get("multi_processor_count"),
        uuid=_uuid(rec.get("uuid")),
        pci_bus_id=rec.get("pci_bus_id"),
    )


def _torch(r: ChildRecords, torch_dirs: Tuple[str, ...]) -> TorchFacts:
    t, cudnn, cuda = r.get("torch"), r.get("cudnn"), r.get("cuda")
    cuda_warnings = [str(w) for w in cuda.get("warnings") or ()]
    init_warning = next((w for w in cuda_warnings if w.startswith("CUDA initialization")), None)
    init_error = cuda.get("error") or init_warning
    others = [str(w) for w in t.get("warnings") or ()] + [w for w in cuda_warnings if w != init_error]
    location = t.get("location")
    norm = os.path.normcase(os.path.normpath(location)) if location else None
    flags = t.get("arch_flags")
    mps = r.get("mps")
    return TorchFacts(
        installed=t.get("installed"),
        version=t.get("version"),
        location=location,
        import_error=t.get("import_error"),
        import_traceback=t.get("import_traceback"),
        cuda=t.get("cuda"),
        hip=t.get("hip"),
        cuda_compiled=t.get("cuda_compiled"),
        arch_flags=tuple(flags) if isinstance(flags, list) else None,
        cudnn_version=cudnn.get("version") if isinstance(cudnn.get("version"), int) else None,
        cudnn_error=cudnn.get("error"),
        is_available=cuda.get("is_available"),
        init_error=init_error,
        warnings=tuple(dict.fromkeys(others)),
        device_count=cuda.get("device_count"),
        devices=tuple(_device(d) for d in cuda.get("devices") or () if isinstance(d, dict)),
        loaded_libraries=tuple(sorted(str(p) for p in r.get("libraries").get("loaded") or ())),
        mps_available=mps.get("available"),
        other_locations=tuple(d for d in torch_dirs if os.path.normcase(os.path.normpath(d)) != norm),
    )


def _companion(rec: Dict[str, Any]) -> CompanionFacts:
    return CompanionFacts(
        installed=rec.get("installed"),
        version=rec.get("version"),
        location=rec.get("location"),
        cuda=rec.get("cuda"),
        import_error=rec.get("import_error"),
        import_traceback=rec.get("import_traceback"),
        ops_error=rec.get("ops_error"),
    )


def interpret(run: ChildRun, timeout: float) -> TorchResult:
    """Turn the child's output and exit into facts; whatever arrived before a fault is kept."""
    if run.start_error:
        return TorchResult(errors=(("torch", run.start_error),))
    r = read_records(run.stdout)
    errors: List[Tuple[str, str]] = list(r.errors)
    py = r.get("python")
    packages, package_errors = _packages(py)
    errors += package_errors
    torch_dirs = tuple(str(d) for d in py.get("torch_dirs") or ())
    torch = _torch(r, torch_dirs)
    companions = {name: _companion(r.get(name)) for name in ("torchvision", "torchaudio")}
    if not r.done:
        section, doing = r.phase
        if run.overflowed:
            what = f"printed more than {OUTPUT_CAP // MIB} MiB and was stopped"
            reason = f"the torch probe {what} while {doing}"
        elif run.timed_out:
            what, reason = "timed_out", f"{doing} did not finish within {timeout:g} s"
        else:
            what = ending(run.returncode)
            reason = f"the torch probe {what} while {doing}"
            said = last_frame(run.stderr) if (run.returncode or 0) < 0 else last_line(run.stderr)
            reason += f" ({said})" if said else ""
        errors.append((section if section in companions else "torch", reason))
        if section in companions:
            note = f"{doing} did not finish within {timeout:g} s" if run.timed_out and not run.overflowed \
                else f"{what} while {doing}"
            companions[section] = replace(companions[section], import_error=note)
        elif section == "torch" and run.timed_out and not run.overflowed:
            torch = replace(torch, timed_out=True)
        elif section == "torch" or run.overflowed:
            torch = replace(torch, crashed=what)
    return TorchResult(
        python=_python_info(py) if py else None,
        packages=packages,
        torch=torch,
        torchvision=companions["torchvision"],
        torchaudio=companions["torchaudio"],
        errors=tuple(errors),
    )


def probe_torch(python: str, timeout: float = 60.0, environ: Optional[Mapping[str, str]] = None) -> TorchResult:
    """Run the torch child under ``python`` and read what it reported."""
    return interpret(spawn(python, timeout, environ), timeout)
