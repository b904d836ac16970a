"""Reports the target Python, its packages, torch, torchvision and torchaudio as JSON lines; standard library only."""

# Run by path under the interpreter being diagnosed, which may be any Python 3.6 or newer, so this file
# uses nothing from gpudoctor and no syntax or standard library module newer than 3.6. One JSON object
# per line goes to the original stdout; everything else anything prints goes to stderr, so stray output
# cannot corrupt the records.


import faulthandler
import importlib
import json
import os
import re
import sys
import traceback
import warnings
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional

HERE = os.path.dirname(os.path.realpath(__file__))
if sys.path and os.path.realpath(sys.path[0] or os.curdir) == HERE:
    del sys.path[0]  # this folder holds modules named torch.py and platform.py; they must not shadow anything

_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
faulthandler.enable()

LIMIT = 8000
WANTED = ("torch", "torchvision", "torchaudio", "triton")
WANTED_PREFIXES = ("nvidia-", "cuda-", "pytorch-")
REQUIRES_OF = ("torch", "torchvision", "torchaudio")
_EXTRA_ONLY = re.compile(r"extra\s*==")


def emit(record: Dict[str, Any]) -> None:
    _OUT.write(json.dumps(record, ensure_ascii=True, default=str) + "\n")
    _OUT.flush()


def phase(section: str, doing: str) -> None:
    emit({"record": "phase", "section": section, "doing": doing})


def clip(text: str, limit: int = LIMIT) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def describe(exc: BaseException) -> str:
    return clip("".join(traceback.format_exception_only(type(exc), exc)), 2000)


def full_traceback(exc: BaseException) -> str:
    """The traceback from the module being imported on, without this file's and importlib's frames."""
    tb = exc.__traceback__
    while tb is not None and _is_machinery(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return clip("".join(traceback.format_exception(type(exc), exc, tb)))


def _is_machinery(filename: str) -> bool:
    if filename.startswith("<frozen importlib"):
        return True
    real = os.path.realpath(filename)
    return real == os.path.realpath(__file__) or real == os.path.realpath(importlib.__file__ or "")


def warning_texts(caught: List[warnings.WarningMessage]) -> List[str]:
    """User and runtime warnings (what torch says about CUDA); deprecation chatter is left out."""
    kept = [w for w in caught if issubclass(w.category, (UserWarning, RuntimeWarning))]
    return [clip(str(w.message), 2000) for w in kept[:20]]


def normalise(name: str) -> str:
    """packaging.utils.canonicalize_name, written out: this file runs stdlib-only inside the target interpreter,
    which may not have packaging; everywhere else gpudoctor uses canonicalize_name itself."""
    return re.sub(r"[-_.]+", "-", name).lower()


def path_entries() -> List[str]:
    seen, entries = set(), []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real not in seen:
            seen.add(real)
            entries.append(entry)
    return entries


def _read_text(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _egg_requires(folder: str) -> List[str]:
    """Unconditional requirements of an .egg-info folder's requires.txt (the lines before any [section])."""
    text = _read_text(os.path.join(folder, "requires.txt")) or ""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            break
        if line and not line.startswith("#"):
            out.append(line)
    return out


def read_distribution(folder: str) -> Dict[str, Any]:
    """Name, version and Requires-Dist of a .dist-info or .egg-info folder (PEP 566 metadata, read with email)."""
    import email.parser

    meta_file = "METADATA" if folder.endswith(".dist-info") else "PKG-INFO"
    text = _read_text(os.path.join(folder, meta_file))
    if text is None:
        raise OSError("%s has no %s file" % (os.path.basename(folder), meta_file))
    message = email.parser.Parser().parsestr(text, headersonly=True)
    requires = message.get_all("Requires-Dist") or []
    if folder.endswith(".egg-info") and not requires:
        requires = _egg_requires(folder)
    return {"name": message.get("Name") or "", "version": message.get("Version") or "", "requires": list(requires)}


def distributions(entries: List[str]) -> List[Dict[str, Any]]:
    """torch, torchvision, torchaudio, triton, nvidia-*, cuda-* and pytorch-* distributions, every copy."""
    found = []
    for entry in entries:
        try:
            names = sorted(os.listdir(entry))
        except OSError:
            continue
        for folder in names:
            path = os.path.join(entry, folder)
            if not folder.endswith((".dist-info", ".egg-info")) or not os.path.isdir(path):
                continue
            if not normalise(folder).startswith(("torch", "triton", "nvidia", "cuda", "pytorch")):
                continue
            try:
                dist = read_distribution(path)
                wanted = normalise(dist["name"])
                if wanted not in WANTED and not wanted.startswith(WANTED_PREFIXES):
                    continue
                requires = []
                if wanted in REQUIRES_OF:
                    requires = [r for r in dist["requires"] if not _EXTRA_ONLY.search(r)]
                found.append({"name": dist["name"], "version": dist["version"], "location": entry, "requires": requires})
            except Exception as exc:  # a damaged dist-info folder is itself worth reporting
                found.append({"name": folder, "version": "", "location": entry, "error": describe(exc)})
    return found


def python_record() -> None:
    import platform

    entries = path_entries()
    torch_dirs = [os.path.join(e, "torch") for e in entries if os.path.isfile(os.path.join(e, "torch", "__init__.py"))]
    emit(
        {
            "record": "python",
            "version": "%d.%d.%d" % tuple(sys.version_info[:3]),
            "executable": sys.executable,
            "implementation": platform.python_implementation(),
            "libc": " ".join(part for part in platform.libc_ver() if part) or None,
            "system": platform.system(),
            "machine": platform.machine(),
            "prefix": sys.prefix,
            "base_prefix": getattr(sys, "real_prefix", None) or getattr(sys, "base_prefix", sys.prefix),
            "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
            "torch_dirs": torch_dirs,
            "distributions": distributions(entries),
        }
    )


def find(name: str) -> Optional[str]:
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return locations[0]
    return os.path.dirname(spec.origin) if spec.origin else ""


def torch_record() -> Optional[ModuleType]:
    """Import torch and report its build; returns the module, or None when it did not import."""
    location = find("torch")
    if location is None:
        emit({"record": "torch", "installed": False})
        return None
    record: Dict[str, Any] = {"record": "torch", "installed": True, "location": location}
    emit(record)  # kept if the import never returns
    phase("torch", "importing torch")
    torch: Optional[ModuleType] = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch = importlib.import_module("torch")
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            record["import_error"] = describe(exc)
            record["import_traceback"] = full_traceback(exc)
    record["warnings"] = warning_texts(caught)
    if torch is not None and not getattr(torch, "__file__", None):
        record["import_error"] = "ImportError: %s has no __init__.py (a leftover folder, not an install)" % location
        torch = None
    if torch is None:
        emit(record)
        return None
    record["version"] = str(getattr(torch, "__version__", "")) or None
    record["location"] = os.path.dirname(str(torch.__file__))
    version = getattr(torch, "version", None)
    record["cuda"] = getattr(version, "cuda", None)
    record["hip"] = getattr(version, "hip", None)
    native: Any = getattr(torch, "_C", None)
    record["cuda_compiled"] = hasattr(native, "_cuda_getDeviceCount")
    if hasattr(native, "_cuda_getArchFlags"):
        try:
            record["arch_flags"] = (native._cuda_getArchFlags() or "").split()
        except Exception as exc:
            record["arch_flags_error"] = describe(exc)
    emit(record)
    return torch


def cudnn_record(torch: Any) -> None:
    phase("torch", "torch.backends.cudnn.version()")
    record = {"record": "cudnn"}
    try:
        record["version"] = torch.backends.cudnn.version()
    except Exception as exc:
        record["error"] = describe(exc)
    emit(record)


def _bus_id(props: Any) -> Optional[str]:
    bus = getattr(props, "pci_bus_id", None)
    if not isinstance(bus, int):
        return None
    domain = getattr(props, "pci_domain_id", 0) or 0
    device = getattr(props, "pci_device_id", 0) or 0
    return "%08X:%02X:%02X.0" % (domain, bus, device)


def _device(torch: Any, index: int) -> Dict[str, Any]:
    try:
        props = torch.cuda.get_device_properties(index)
    except Exception as exc:
        return {"index": index, "error": describe(exc)}
    record = {"index": index, "pci_bus_id": _bus_id(props)}
    for key in ("name", "major", "minor", "total_memory", "multi_processor_count", "uuid"):
        value = getattr(props, key, None)
        record[key] = value if value is None or isinstance(value, (int, str)) else str(value)
    return record


def cuda_record(torch: Any) -> None:
    phase("torch", "torch.cuda.is_available()")
    record: Dict[str, Any] = {"record": "cuda"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            record["is_available"] = bool(torch.cuda.is_available())
        except Exception as exc:
            record["is_available"] = False
            record["error"] = describe(exc)
        if record["is_available"]:
            phase("torch", "torch.cuda.init()")
            try:
                torch.cuda.init()
            except Exception as exc:
                record["error"] = describe(exc)
        try:
            record["device_count"] = torch.cuda.device_count()
        except Exception as exc:
            record.setdefault("error", describe(exc))
        if record["is_available"] and "error" not in record:
            phase("torch", "reading the CUDA devices' properties")
            record["devices"] = [_device(torch, i) for i in range(record.get("device_count") or 0)]
    record["warnings"] = warning_texts(caught)
    emit(record)
    mps = getattr(getattr(torch, "backends", None), "mps", None)
    if mps is not None:
        try:
            emit({"record": "mps", "available": bool(mps.is_available())})
        except Exception as exc:
            emit({"record": "mps", "error": describe(exc)})


def mapped_libraries() -> Optional[List[str]]:
    if not sys.platform.startswith("linux"):
        return None
    found = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                parts = line.split(None, 5)
                path = parts[5].strip() if len(parts) == 6 else ""
                if path.endswith(" (deleted)"):
                    path = path[: -len(" (deleted)")]
                base = os.path.basename(path)
                if path.startswith("/") and (base.endswith(".so") or ".so." in base) and path not in found:
                    found.append(path)
    except OSError:
        return None
    return found


def _version_file(location: str) -> Dict[str, str]:
    info: Dict[str, str] = {}
    try:
        with open(os.path.join(location, "version.py"), encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return info
    for key, field in (("__version__", "version"), ("cuda", "cuda")):
        match = re.search(r"^%s\s*(?::\s*\S+\s*)?=\s*['\"]([^'\"]*)['\"]" % re.escape(key), text, re.M)
        if match:
            info[field] = match.group(1)
    return info


def _dlopen_error(location: str) -> Optional[str]:
    """The loader's own error for the compiled ops library, which the import's message leaves out."""
    import ctypes
    import glob

    for path in sorted(glob.glob(os.path.join(location, "_C*"))):
        if path.endswith((".so", ".pyd")):
            try:
                ctypes.CDLL(path)
            except OSError as exc:
                return str(exc)
    return None


def _cuda_text(value: Any) -> Optional[str]:
    """12010 -> "12.1"; strings pass through; -1, 0 and None mean a CPU build."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "%d.%d" % (value // 1000, (value % 1000) // 10) if value > 0 else None
    return str(value) if value else None


def companion_record(name: str, torch: Optional[ModuleType]) -> None:
    location = find(name)
    if location is None:
        emit({"record": name, "installed": False})
        return
    record: Dict[str, Any] = {"record": name, "installed": True, "location": location}
    record.update(_version_file(location))
    emit(record)  # kept if the import never returns
    if torch is None:
        return  # importing it would only fail again on torch
    phase(name, "importing " + name)
    if name == "torchvision":
        os.environ["TORCHVISION_WARN_WHEN_EXTENSION_LOADING_FAILS"] = "1"
    module, has_ops = None, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            module = importlib.import_module(name)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            record["import_error"] = describe(exc)
            record["import_traceback"] = full_traceback(exc)
    texts = warning_texts(caught)
    record["warnings"] = texts
    if module is not None:
        record["version"] = str(getattr(module, "__version__", "")) or record.get("version")
        record["location"] = os.path.dirname(getattr(module, "__file__", None) or location)
        record["cuda"] = _cuda_text(getattr(getattr(module, "version", None), "cuda", record.get("cuda")))
        try:
            has_ops = bool(module.extension._has_ops()) if name == "torchvision" else None
        except Exception:
            has_ops = None
        if name == "torchaudio" and record.get("cuda") is None:
            try:
                record["cuda"] = _cuda_text(torch.ops.torchaudio.cuda_version())
            except Exception:
                pass
    record["has_ops"] = has_ops
    ops = [t for t in texts if t.startswith("Failed to load") and "_C" in t]
    if name == "torchvision" and (ops or has_ops is False or "import_error" in record):
        cause = _dlopen_error(location)
        parts = ops[:1] + (["loading it directly: " + cause] if cause and not any(cause in t for t in ops) else [])
        record["ops_error"] = "; ".join(parts) or None
    emit(record)


def stage(section: str, function: Callable[..., Any], *args: Any) -> Any:
    """Run one step; a bug here must not cost the records of the steps after it."""
    try:
        return function(*args)
    except Exception as exc:
        emit({"record": "child_error", "section": section, "error": describe(exc)})
        return None


def libraries_record() -> None:
    emit({"record": "libraries", "loaded": mapped_libraries()})


def main() -> None:
    phase("python", "listing the installed distributions")
    stage("python", python_record)
    torch = stage("torch", torch_record)
    if torch is not None:
        stage("torch", cudnn_record, torch)
        stage("torch", cuda_record, torch)
        stage("torch", libraries_record)
    for name in ("torchvision", "torchaudio"):
        stage(name, companion_record, name, torch)
    if torch is not None:
        stage("torch", libraries_record)
    emit({"record": "done"})
    _OUT.close()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)  # skip interpreter shutdown, which takes a second or more once torch is loaded


if __name__ == "__main__":
    main()
