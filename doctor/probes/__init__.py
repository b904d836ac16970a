"""The probes: everything that touches the machine, run concurrently and assembled into Facts in a fixed order."""

from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Generic, List, Optional, Tuple, TypeVar

from gpudoctor import __version__
from gpudoctor.facts import DriverFacts, EnvFacts, Facts, LibraryFacts, Meta, Source, ToolkitFacts
from gpudoctor.probes.assemble import driver_and_gpus, merge_errors, platform_facts
from gpudoctor.probes.env import probe_env
from gpudoctor.probes.linux import LinuxResult, probe_linux
from gpudoctor.probes.nvml import NvmlResult, probe_nvml
from gpudoctor.probes.platform import PlatformResult, probe_platform
from gpudoctor.probes.python import PythonError, validate
from gpudoctor.probes.smi import SmiResult, probe_smi
from gpudoctor.probes.toolkit import ToolkitResult, probe_toolkit
from gpudoctor.probes.torch import TorchResult, probe_torch

__all__ = ["PythonError", "collect"]

T = TypeVar("T")
Errors = List[Tuple[str, str]]
GpuResults = Tuple[NvmlResult, Optional[SmiResult]]


class _Daemon(Generic[T]):
    """A call in a daemon thread: a hung driver call (NVML can hang on a wedged GPU) must not block exit."""

    def __init__(self, call: Callable[[], T]) -> None:
        self._call = call
        self._result: Optional[T] = None
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, name="gpudoctor-nvml", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by wait()
            self._error = exc

    def wait(self, timeout: float) -> T:
        self._thread.join(max(timeout, 0.0))
        if self._thread.is_alive():
            raise TimeoutError(f"NVML did not answer within {timeout:g} s")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


def _gpus() -> GpuResults:
    """NVML first; nvidia-smi only when NVML could not be used."""
    nvml = probe_nvml()
    return nvml, (None if nvml.ok else probe_smi())


def _guarded(call: Callable[[], T], section: str, errors: Errors, fallback: T) -> T:
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - a broken probe is a recorded reason, never a crash
        errors.append((section, f"the {section} probe failed: {type(exc).__name__}: {exc}"))
        return fallback


def _outcome(future: Future[T], section: str, errors: Errors, fallback: T) -> T:
    return _guarded(future.result, section, errors, fallback)


def _wait_gpus(daemon: _Daemon[GpuResults], deadline: float) -> GpuResults:
    try:
        return daemon.wait(deadline - time.monotonic())
    except Exception as exc:  # noqa: BLE001
        reason = str(exc) if isinstance(exc, TimeoutError) else f"the NVML probe failed: {type(exc).__name__}: {exc}"
        return NvmlResult(False, DriverFacts(), (), (("driver", reason),)), None


def collect(python: Optional[str] = None, timeout: float = 60.0) -> Facts:
    """Probe this machine and the environment of ``python`` (default: this interpreter) into Facts.

    Raises PythonError when ``python`` is missing or is not a Python 3.8+ interpreter; every other
    failure becomes a (section, reason) entry of ``probe_errors`` and the other probes still run.
    """
    target = validate(python or sys.executable)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    deadline = time.monotonic() + timeout + 5.0
    environ = dict(os.environ)
    on_linux = sys.platform.startswith("linux")
    errors: Errors = []
    gpus_daemon = _Daemon(_gpus)
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="gpudoctor-probe") as pool:
        torch_f = pool.submit(probe_torch, target.path, timeout, environ)
        linux_f = pool.submit(probe_linux, Path("/"), environ) if on_linux else None
        toolkit_f = pool.submit(probe_toolkit, environ)
        base = _guarded(lambda: probe_platform(Path("/"), environ), "platform", errors, PlatformResult())
        env = _guarded(lambda: probe_env(environ), "env", errors, EnvFacts())
        child = _outcome(torch_f, "torch", errors, TorchResult())
        linux = _outcome(linux_f, "linux", errors, LinuxResult()) if linux_f else LinuxResult()
        toolkit = _outcome(toolkit_f, "toolkit", errors, ToolkitResult(ToolkitFacts()))
    nvml, smi = _wait_gpus(gpus_daemon, deadline)
    driver, gpus = driver_and_gpus(nvml, smi, linux, errors)
    errors.extend(child.errors)
    errors.extend(linux.errors)
    if toolkit.error:
        errors.append(("toolkit", toolkit.error))
    ld_path = tuple(e for e in environ.get("LD_LIBRARY_PATH", "").split(":") if e) if base.system != "Windows" else ()
    return Facts(
        meta=Meta(gpudoctor_version=__version__, created=created, source=Source.LIVE.value),
        platform=platform_facts(base, linux, target, child),
        driver=driver,
        gpus=gpus,
        torch=child.torch,
        torchvision=child.torchvision,
        torchaudio=child.torchaudio,
        packages=child.packages,
        libraries=LibraryFacts(
            ld_library_path=ld_path,
            ldconfig_cuda=linux.ldconfig_cuda,
            ld_library_path_cuda=linux.ld_library_path_cuda,
            libcuda_paths=linux.libcuda_paths,
            wsl_lib_dir=linux.wsl_lib_dir if on_linux else None,
            dll_search_dirs=base.dll_search_dirs,
            vc_runtime_version=base.vc_runtime_version,
        ),
        toolkit=toolkit.toolkit,
        env=env,
        extra=linux.extra,
        probe_errors=merge_errors(errors),
    )
