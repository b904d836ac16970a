"""Platform probe: operating system, distribution, and on Windows the DLL search folders and the VC++ runtime."""

from __future__ import annotations

import glob
import os
import platform as stdlib_platform
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Optional, Tuple

_VS_FIXEDFILEINFO = b"\xbd\x04\xef\xfe"  # VS_FIXEDFILEINFO.dwSignature 0xFEEF04BD, little-endian
_CUDA_DLLS = ("cudart64_*.dll", "cudnn*.dll", "cublas64_*.dll", "nvcuda.dll")


@dataclass(frozen=True)
class PlatformResult:
    """What the parent process can tell about the operating system."""

    system: Optional[str] = None
    release: Optional[str] = None
    machine: Optional[str] = None
    distro: Optional[str] = None
    dll_search_dirs: Tuple[str, ...] = ()
    vc_runtime_version: Optional[str] = None


def os_release(text: Optional[str]) -> Optional[str]:
    """PRETTY_NAME (or NAME VERSION) of an /etc/os-release file."""
    fields = {}
    for line in (text or "").splitlines():
        key, sep, raw = line.partition("=")
        if sep:
            fields[key.strip()] = raw.strip().strip("\"'")
    if fields.get("PRETTY_NAME"):
        return fields["PRETTY_NAME"]
    joined = " ".join(v for v in (fields.get("NAME"), fields.get("VERSION")) if v)
    return joined or None


def linux_distro(root: Path) -> Optional[str]:
    for path in ("etc/os-release", "usr/lib/os-release"):
        try:
            return os_release((root / path).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return None


def file_version(path: str) -> Optional[str]:
    """The file version in a Windows DLL's version resource ("14.40.33810.0"), read from the file's bytes."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    at = data.find(_VS_FIXEDFILEINFO)
    while 0 <= at <= len(data) - 16:
        struc, ms, ls = struct.unpack_from("<III", data, at + 4)
        if struc == 0x00010000:  # dwStrucVersion of every real VS_FIXEDFILEINFO
            return f"{ms >> 16}.{ms & 0xFFFF}.{ls >> 16}.{ls & 0xFFFF}"
        at = data.find(_VS_FIXEDFILEINFO, at + 1)
    return None


def dll_search_dirs(environ: Mapping[str, str]) -> Tuple[str, ...]:
    """CUDA_PATH* folders and PATH entries that hold CUDA or cuDNN DLLs, in search order."""
    found: List[str] = []
    for name in sorted(k for k in environ if k.upper() == "CUDA_PATH" or k.upper().startswith("CUDA_PATH_V")):
        folder = os.path.join(environ[name], "bin")
        if os.path.isdir(folder):
            found.append(folder)
    for entry in environ.get("PATH", "").split(os.pathsep):
        if entry and any(glob.glob(os.path.join(glob.escape(entry), pattern)) for pattern in _CUDA_DLLS):
            found.append(entry)
    return tuple(dict.fromkeys(found))


def is_store_python(executable: Optional[str]) -> Optional[bool]:
    """True for a Microsoft Store Python (it lives under WindowsApps); None when the path is unknown."""
    if not executable:
        return None
    return bool(re.search(r"[\\/]WindowsApps[\\/]|PythonSoftwareFoundation\.Python\.", executable, re.IGNORECASE))


def probe_platform(root: Path = Path("/"), environ: Optional[Mapping[str, str]] = None) -> PlatformResult:
    """The OS as this (parent) process sees it; the target interpreter reports its own details separately."""
    env = os.environ if environ is None else environ
    uname = stdlib_platform.uname()
    system = uname.system or None
    if system == "Linux":
        distro = linux_distro(root)
    elif system == "Darwin":
        mac = stdlib_platform.mac_ver()[0]
        distro = f"macOS {mac}" if mac else "macOS"
    elif system == "Windows":
        distro = f"Windows {uname.release} ({uname.version})"
    else:
        distro = None
    if system != "Windows":
        return PlatformResult(system, uname.release or None, uname.machine or None, distro)
    runtime = os.path.join(env.get("SystemRoot", r"C:\Windows"), "System32", "msvcp140.dll")
    return PlatformResult(
        system, uname.release or None, uname.machine or None, distro, dll_search_dirs(env), file_version(runtime)
    )
