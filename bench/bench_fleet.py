"""Times fleet triage: `gpudoctor diagnose DIR` over a generated fleet of facts files with planted faults.

Usage: python bench/bench_fleet.py [--nodes 10000] [--dir PATH] [--format json] [--jobs N]

Target: 10,000 facts files triaged in under 30 s on a 2-core machine, with memory bounded: the command
reads one file at a time and keeps a small summary per node, so its peak RSS grows with the node count
only by those summaries. The fleet is written first (not timed); the triage runs as a child process
and its peak RSS (the largest of its processes: diagnose judges files on one worker process per usable
CPU, --jobs) is read with resource.getrusage(RUSAGE_CHILDREN). Each run also checks that every
planted fault was found. The CPU time is printed too: on a shared machine the wall time follows the
load, the CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fleetgen import Planted, write_fleet  # noqa: E402


def gpudoctor_argv() -> List[str]:
    return [sys.executable, "-m", "gpudoctor"]


def triage(folder: Path, fmt: str, jobs: Optional[int]) -> Dict[str, Any]:
    start = time.perf_counter()
    extra = ["--jobs", str(jobs)] if jobs else []
    done = subprocess.run([*gpudoctor_argv(), "diagnose", str(folder), "--format", fmt, "--no-plugins", *extra],
                          capture_output=True, text=True, timeout=900, check=False)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_kib, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    if done.returncode not in (0, 1):
        raise SystemExit(f"gpudoctor diagnose failed ({done.returncode}): {done.stderr.strip()}")
    return {"seconds": seconds, "cpu": cpu, "peak_mib": peak_kib / 1024, "stdout": done.stdout,
            "code": done.returncode}


def verify(report: Dict[str, Any], planted: Planted) -> List[str]:
    """What the triage missed of the planted faults (empty: it found all of them)."""
    missed = []
    groups = {g["code"]: set(g["nodes"]) for g in report["groups"]}
    drift = {(d["trait"], d["value"]): set(d["nodes"]) for d in report["drift"]}
    if groups.get("driver.too-old-for-torch") != set(planted.old_driver):
        missed.append("old driver")
    if groups.get("gpu.ecc") != {planted.ecc}:
        missed.append("ECC errors")
    if drift.get(("torch", "2.13.0+cu130")) != set(planted.torch_drift):
        missed.append("torch drift")
    if drift.get(("gpu_count", "7")) != {planted.missing_gpu}:
        missed.append("missing GPU")
    if [u["node"] for u in report["unreadable"]] != [planted.corrupt]:
        missed.append("corrupt file")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--dir", help="write the fleet here and keep it (default: a temporary folder)")
    parser.add_argument("--format", default="json", choices=("terminal", "markdown", "json"))
    parser.add_argument("--jobs", type=int, help="passed to diagnose (default: its own, the usable CPUs)")
    args = parser.parse_args()
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="gpudoctor-fleet-"))
    try:
        start = time.perf_counter()
        planted = write_fleet(folder, args.nodes)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"wrote {args.nodes} files ({size / 2**20:.0f} MiB) in {time.perf_counter() - start:.1f} s")
        result = triage(folder, args.format, args.jobs)
        print(f"triaged {args.nodes} files in {result['seconds']:.1f} s "
              f"({args.nodes / result['seconds']:.0f} files/s; {result['cpu']:.1f} s of CPU), "
              f"peak RSS {result['peak_mib']:.0f} MiB, "
              f"exit code {result['code']}")
        if args.format == "json":
            missed = verify(json.loads(result["stdout"]), planted)
            print("planted faults: all found" if not missed else f"planted faults MISSED: {', '.join(missed)}")
            return 1 if missed else 0
        return 0
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
