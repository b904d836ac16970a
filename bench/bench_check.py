"""Times `gpudoctor check` against PyTorch's collect_env and a bare `import torch`, median of N runs.

Usage: python bench/bench_check.py [--python PATH] [--runs 5]

Targets: `gpudoctor check` at most 0.6x collect_env's time and at most 0.4 s above the import floor;
`gpudoctor --help` and `gpudoctor checks` under 0.3 s. `gpudoctor check` also imports torchvision (to catch
a torchvision that fails to import), so the torch+torchvision import is timed too, as the floor of what
it actually does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Sequence


def gpudoctor_argv(python: str) -> List[str]:
    exe = shutil.which("gpudoctor", path=str(Path(python).parent)) or shutil.which("gpudoctor")
    return [exe] if exe else [python, "-m", "gpudoctor"]


def time_command(argv: Sequence[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=False)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter with torch installed")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    doctor = gpudoctor_argv(args.python)
    env_note = f"python {args.python}; {os.cpu_count()} CPUs"
    rows = [
        ("python -c 'import torch' (floor)", [args.python, "-c", "import torch"]),
        ("python -c 'import torch, torchvision'", [args.python, "-c", "import torch, torchvision"]),
        ("python -m torch.utils.collect_env", [args.python, "-m", "torch.utils.collect_env"]),
        ("gpudoctor check", [*doctor, "check", "--python", args.python]),
        ("gpudoctor --help", [*doctor, "--help"]),
        ("gpudoctor checks", [*doctor, "checks"]),
    ]
    results = {}
    for label, argv in rows:
        time_command(argv, 1)  # warm the page cache
        results[label] = time_command(argv, args.runs)
    print(f"# bench_check ({env_note}; median of {args.runs})")
    print("| command | median s |\n|---|---|")
    for label, seconds in results.items():
        print(f"| {label} | {seconds:.3f} |")
    floor = results["python -c 'import torch' (floor)"]
    both = results["python -c 'import torch, torchvision'"]
    collect = results["python -m torch.utils.collect_env"]
    check = results["gpudoctor check"]
    verdicts = [
        ("check / collect_env <= 0.6", check / collect, check / collect <= 0.6),
        ("check - import floor <= 0.4 s", check - floor, check - floor <= 0.4),
        ("(info) check - torch+torchvision floor", check - both, True),
        ("--help < 0.3 s", results["gpudoctor --help"], results["gpudoctor --help"] < 0.3),
        ("checks < 0.3 s", results["gpudoctor checks"], results["gpudoctor checks"] < 0.3),
    ]
    print()
    for name, value, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value:.3f}")
    return 0 if all(ok for _, _, ok in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
