"""Torch probe: reads what torch_child.py reported under the target interpreter into facts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import List, Mapping, Optional, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.facts import CompanionFacts, Distribution, TorchDevice, TorchFacts
from gpudoctor.probes.child_process import CHILD, OUTPUT_CAP, ChildRun, ending, last_frame, last_line, spawn
from gpudoctor.probes.fields import Fields, dropped_error
from gpudoctor.probes.records import ChildRecords, read_records

__all__ = ["CHILD", "ChildRun", "PythonInfo", "TorchResult", "ending", "interpret", "probe_torch"]

MIB = 1024 * 1024
MAX_DEVICE_INDEX = 4095


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


def _python_info(rec: Fields) -> PythonInfo:
    prefix, base = rec.text("prefix"), rec.text("base_prefix")
    return PythonInfo(
        version=rec.text("version"),
        executable=rec.text("executable") or None,
        implementation=rec.text("implementation"),
        libc=rec.text("libc"),
        machine=rec.text("machine") or None,
        system=rec.text("system") or None,
        conda_env=prefix if rec.flag("conda") else None,
        virtualenv=(prefix != base) if prefix and base else None,
    )


def _packages(rec: Fields) -> Tuple[Tuple[Distribution, ...], List[Tuple[str, str]]]:
    dists, errors = [], []
    for item in rec.objects("distributions"):
        one = Fields(item, "python.distributions[]", rec.dropped)
        name, location, error = one.text("name"), one.text("location"), one.text("error")
        if error:
            errors.append(("packages", f"{name} in {location}: {error}"))
            continue
        if not name:
            continue
        requires = one.texts("requires") or ()
        dists.append(Distribution(name, one.text("version") or "", location, requires))
    order = {d.location: i for i, d in reversed(list(enumerate(dists)))}
    dists.sort(key=lambda d: (canonicalize_name(d.name), order.get(d.location, 0)))
    return tuple(dists), errors


def _uuid(value: Optional[str]) -> Optional[str]:
    if not value:
        return None
    return value if value.upper().startswith(("GPU-", "MIG-")) else f"GPU-{value}"


def _device(rec: Fields) -> Optional[TorchDevice]:
    index, major, minor, memory = rec.number("index"), rec.number("major"), rec.number("minor"), rec.number("total_memory")
    if index is not None and index > MAX_DEVICE_INDEX:
        rec.dropped.append(f"{rec.kind}.index ({index}, more than {MAX_DEVICE_INDEX})")
        return None
    if major is not None and minor is not None and (major > 99 or minor > 99):
        rec.dropped.append(f"{rec.kind}.major/minor ({major}.{minor}, not a compute capability)")
        major = minor = None
    return TorchDevice(
        index=index or 0,
        name=rec.text("name"),
        compute_capability=(major, minor) if major is not None and minor is not None else None,
        total_memory_mib=memory // MIB if memory is not None else None,
        multi_processor_count=rec.number("multi_processor_count"),
        uuid=_uuid(rec.text("uuid")),
        pci_bus_id=rec.text("pci_bus_id"),
    )


def _torch(r: ChildRecords, torch_dirs: Tuple[str, ...], dropped: List[str]) -> TorchFacts:
    t, cudnn, cuda = (Fields(r.get(kind), kind, dropped) for kind in ("torch", "cudnn", "cuda"))
    cuda_warnings = list(cuda.texts("warnings") or ())
    init_warning = next((w for w in cuda_warnings if w.startswith("CUDA initialization")), None)
    init_error = cuda.text("error") or init_warning
    others = list(t.texts("warnings") or ()) + [w for w in cuda_warnings if w != init_error]
    location = t.text("location")
    norm = os.path.normcase(os.path.normpath(location)) if location else None
    devices = (_device(Fields(d, "cuda.devices[]", dropped)) for d in cuda.objects("devices"))
    return TorchFacts(
        installed=t.flag("installed"),
        version=t.text("version"),
        location=location,
        import_error=t.text("import_error"),
        import_traceback=t.text("import_traceback"),
        cuda=t.text("cuda"),
        hip=t.text("hip"),
        cuda_compiled=t.flag("cuda_compiled"),
        arch_flags=t.texts("arch_flags"),
        cudnn_version=cudnn.number("version"),
        cudnn_error=cudnn.text("error"),
        is_available=cuda.flag("is_available"),
        init_error=init_error,
        warnings=tuple(dict.fromkeys(others)),
        device_count=cuda.number("device_count"),
        devices=tuple(d for d in devices if d is not None),
        loaded_libraries=tuple(sorted(Fields(r.get("libraries"), "libraries", dropped).texts("loaded") or ())),
        mps_available=Fields(r.get("mps"), "mps", dropped).flag("available"),
        other_locations=tuple(d for d in torch_dirs if os.path.normcase(os.path.normpath(d)) != norm),
    )


def _companion(rec: Fields) -> CompanionFacts:
    return CompanionFacts(
        installed=rec.flag("installed"),
        version=rec.text("version"),
        location=rec.text("location"),
        cuda=rec.text("cuda"),
        import_error=rec.text("import_error"),
        import_traceback=rec.text("import_traceback"),
        ops_error=rec.text("ops_error"),
    )


def interpret(run: ChildRun, timeout: float) -> TorchResult:
    """Turn the child's output and exit into facts; whatever arrived before a fault is kept."""
    if run.start_error:
        return TorchResult(errors=(("torch", run.start_error),))
    r = read_records(run.stdout)
    errors: List[Tuple[str, str]] = list(r.errors)
    dropped: List[str] = []
    py = Fields(r.get("python"), "python", dropped)
    packages, package_errors = _packages(py)
    errors += package_errors
    torch_dirs = py.texts("torch_dirs") or ()
    torch = _torch(r, torch_dirs, dropped)
    companions = {name: _companion(Fields(r.get(name), name, dropped)) for name in ("torchvision", "torchaudio")}
    info = _python_info(py) if r.get("python") else None
    bad_types = dropped_error(dropped)
    if bad_types:
        errors.append(bad_types)
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
        elif section in ("torch", "python") and run.timed_out and not run.overflowed:
            torch = replace(torch, timed_out=True)
        elif section == "torch" or run.overflowed:
            torch = replace(torch, crashed=what)
    return TorchResult(
        python=info,
        packages=packages,
        torch=torch,
        torchvision=companions["torchvision"],
        torchaudio=companions["torchaudio"],
        errors=tuple(errors),
    )


def probe_torch(python: str, timeout: float = 60.0, environ: Optional[Mapping[str, str]] = None) -> TorchResult:
    """Run the torch child under ``python`` and read what it reported."""
    return interpret(spawn(python, timeout, environ), timeout)
