"""nvidia-smi probe: the driver and GPUs from nvidia-smi's CSV output, for when NVML cannot be used in-process."""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from gpudoctor.facts import DriverFacts, DriverSource, Gpu, GpuProcess
from gpudoctor.probes.command import CommandResult, Runner, find_tool, run_command
from gpudoctor.probes.nvml import throttle_names

SMI_TIMEOUT = 20.0
FIELDS = (
    "index", "name", "uuid", "serial", "pci.bus_id", "driver_version", "memory.total", "memory.used",
    "compute_mode", "compute_cap", "persistence_mode", "mig.mode.current", "pcie.link.gen.current",
    "pcie.link.gen.max", "pcie.link.width.current", "pcie.link.width.max", "utilization.gpu",
    "temperature.gpu", "ecc.mode.current", "ecc.errors.uncorrected.volatile.total",
    "ecc.errors.uncorrected.aggregate.total", "retired_pages.pending", "clocks_throttle_reasons.active",
)
APP_FIELDS = ("gpu_uuid", "pid", "process_name", "used_memory")
_INVALID_FIELD = re.compile(r'Field "([^"]+)" is not a valid field to query')
_HEADER_DRIVER = re.compile(r"Driver Version:\s*([\d.]+)")
_HEADER_CUDA = re.compile(r"CUDA Version:\s*(\d+\.\d+)")
_COMPUTE_MODES = {
    "default": "default", "exclusive_thread": "exclusive_thread", "prohibited": "prohibited",
    "exclusive_process": "exclusive_process", "e. process": "exclusive_process", "e. thread": "exclusive_thread",
}
_WINDOWS_DIRS = (r"C:\Windows\System32", r"C:\Program Files\NVIDIA Corporation\NVSMI")


@dataclass(frozen=True)
class SmiResult:
    """What nvidia-smi told; ``found`` is False when there is no nvidia-smi to run."""

    found: bool
    driver: DriverFacts
    gpus: Tuple[Gpu, ...] = ()
    errors: Tuple[Tuple[str, str], ...] = ()


def value(raw: Optional[str]) -> Optional[str]:
    """A CSV cell, or None for "[N/A]", "[Not Supported]", "N/A" and the like."""
    if raw is None:
        return None
    raw = raw.strip()
    if not raw or raw == "N/A" or (raw.startswith("[") and raw.endswith("]")):
        return None
    return raw


def _int(raw: Optional[str]) -> Optional[int]:
    cell = value(raw)
    try:
        return int(float(cell)) if cell is not None else None
    except ValueError:
        return None


def _enabled(raw: Optional[str]) -> Optional[bool]:
    cell = (value(raw) or "").lower()
    if cell in ("enabled", "yes", "on"):
        return True
    if cell in ("disabled", "no", "off"):
        return False
    return None


def _cc(raw: Optional[str]) -> Optional[Tuple[int, int]]:
    match = re.fullmatch(r"(\d+)\.(\d+)", value(raw) or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def _throttle(raw: Optional[str]) -> Tuple[str, ...]:
    try:
        return throttle_names(int(value(raw) or "", 16))
    except ValueError:
        return ()


def parse_gpu(row: Mapping[str, Optional[str]], processes: Tuple[GpuProcess, ...] = ()) -> Gpu:
    """One CSV row (field name -> cell) as a Gpu."""
    mode = value(row.get("compute_mode"))
    return Gpu(
        index=_int(row.get("index")) or 0,
        name=value(row.get("name")),
        uuid=value(row.get("uuid")),
        serial=value(row.get("serial")),
        pci_bus_id=value(row.get("pci.bus_id")),
        compute_capability=_cc(row.get("compute_cap")),
        memory_total_mib=_int(row.get("memory.total")),
        memory_used_mib=_int(row.get("memory.used")),
        compute_mode=_COMPUTE_MODES.get(mode.lower()) if mode else None,
        persistence_mode=_enabled(row.get("persistence_mode")),
        mig_mode=_enabled(row.get("mig.mode.current")),
        pcie_gen_current=_int(row.get("pcie.link.gen.current")),
        pcie_gen_max=_int(row.get("pcie.link.gen.max")),
        pcie_width_current=_int(row.get("pcie.link.width.current")),
        pcie_width_max=_int(row.get("pcie.link.width.max")),
        utilization_percent=_int(row.get("utilization.gpu")),
        temperature_c=_int(row.get("temperature.gpu")),
        ecc_mode=_enabled(row.get("ecc.mode.current")),
        ecc_uncorrected_volatile=_int(row.get("ecc.errors.uncorrected.volatile.total")),
        ecc_uncorrected_aggregate=_int(row.get("ecc.errors.uncorrected.aggregate.total")),
        retired_pages_pending=_enabled(row.get("retired_pages.pending")),
        throttle_reasons=_throttle(row.get("clocks_throttle_reasons.active")),
        processes=processes,
    )


def _rows(stdout: str, fields: Sequence[str]) -> List[Dict[str, Optional[str]]]:
    rows: List[Dict[str, Optional[str]]] = []
    for cells in csv.reader(stdout.splitlines(), skipinitialspace=True):
        if len(cells) == len(fields):
            rows.append(dict(zip(fields, cells)))
    return rows


def query(run: Runner, exe: str, flag: str, fields: Sequence[str]) -> Tuple[CommandResult, List[str]]:
    """Run a CSV query, dropping each field this nvidia-smi does not know and asking again."""
    wanted = list(fields)
    while True:
        done = run([exe, f"{flag}={','.join(wanted)}", "--format=csv,noheader,nounits"], SMI_TIMEOUT)
        unknown = _INVALID_FIELD.search(done.output)
        if done.ok or unknown is None or unknown.group(1) not in wanted or len(wanted) == 1:
            return done, wanted
        wanted.remove(unknown.group(1))


def failure_text(done: CommandResult) -> str:
    return done.error or done.output or f"nvidia-smi exited with status {done.returncode}"


def _processes(run: Runner, exe: str) -> Dict[str, List[GpuProcess]]:
    done, fields = query(run, exe, "--query-compute-apps", APP_FIELDS)
    found: Dict[str, List[GpuProcess]] = {}
    if not done.ok:
        return found
    for row in _rows(done.stdout, fields):
        pid = _int(row.get("pid"))
        if pid is not None:
            proc = GpuProcess(pid, value(row.get("process_name")), _int(row.get("used_memory")))
            found.setdefault(value(row.get("gpu_uuid")) or "", []).append(proc)
    return found


def probe_smi(environ: Optional[Mapping[str, str]] = None, run: Runner = run_command) -> SmiResult:
    """Ask nvidia-smi for the driver (its header) and every GPU (its CSV query)."""
    env = os.environ if environ is None else environ
    exe = find_tool("nvidia-smi", env, _WINDOWS_DIRS if os.name == "nt" else ())
    if exe is None:
        return SmiResult(False, DriverFacts(), (), (("gpus", "nvidia-smi not found on PATH"),))
    header = run([exe], SMI_TIMEOUT)
    if not header.ok:
        text = failure_text(header)
        errors = (("gpus", f"nvidia-smi failed: {text.splitlines()[0]}"),)
        return SmiResult(True, DriverFacts(smi_error_text=text), (), errors)
    driver_match, cuda_match = _HEADER_DRIVER.search(header.stdout), _HEADER_CUDA.search(header.stdout)
    done, fields = query(run, exe, "--query-gpu", FIELDS)
    if not done.ok:
        text = failure_text(done)
        driver = DriverFacts(
            source=DriverSource.NVIDIA_SMI.value,
            version=driver_match.group(1) if driver_match else None,
            cuda_version=cuda_match.group(1) if cuda_match else None,
            smi_error_text=text,
        )
        return SmiResult(True, driver, (), (("gpus", f"nvidia-smi --query-gpu failed: {text.splitlines()[0]}"),))
    rows = _rows(done.stdout, fields)
    processes = _processes(run, exe)
    gpus = tuple(parse_gpu(row, tuple(processes.get(value(row.get("uuid")) or "", ()))) for row in rows)
    version = next((v for v in (value(row.get("driver_version")) for row in rows) if v), None)
    driver = DriverFacts(
        source=DriverSource.NVIDIA_SMI.value,
        version=version or (driver_match.group(1) if driver_match else None),
        cuda_version=cuda_match.group(1) if cuda_match else None,
        gpu_count=len(gpus),
    )
    return SmiResult(True, driver, gpus)
