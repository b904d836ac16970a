"""Times `gpudoctor diagnose` on large pasted issue bodies: the whole command on a 1 MB body (target: under
1 s) and, in this process, bodies of 1 to 10 MB of repeated blocks, to show that reading a paste grows
linearly with its size.

    python bench/bench_paste.py [--repeat N]

Prints one row per size: seconds for reading (segments, parsers, merge), for the checks and rendering,
and seconds per MB; then the ratio of the 10 MB per-MB time to the 1 MB one (about 1 when linear); then
the whole command, `python -m gpudoctor diagnose` on the 1 MB body in a fresh interpreter (start-up,
imports and compiling patterns included), which is what a user waits for and what the exit code judges.
Nothing here is a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Tuple

from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render import Format, render
from gpudoctor.render.diagnosis import render_answer
from gpudoctor.runner import run_checks

BLOCK = """\
I can't get the GPU to work, output below.

```
$ nvidia-smi
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
|   0  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0  On |                  Off |
|  0%   45C    P8              25W / 450W |    512MiB / 24564MiB |      0%      Default |
+-----------------------------------------+----------------------+----------------------+
```
- `transformers` version: 4.40.0
- Platform: Linux-5.15.0-105-generic-x86_64-with-glibc2.35
- Python version: 3.10.12
- PyTorch version (GPU?): 2.1.0+cpu (False)

```
Package    Version
---------- -------
torch      2.1.0+cpu
numpy      1.26.4
```
> Traceback (most recent call last):
>   File "train.py", line 3, in <module>
>     x = torch.zeros(1).cuda()
> AssertionError: Torch not compiled with CUDA enabled

"""


def body(size: int) -> str:
    return (BLOCK * (size // len(BLOCK) + 1))[:size]


def timed(text: str) -> Tuple[float, float]:
    catalogue = discover(plugins=False)
    start = time.perf_counter()
    facts = load_facts(text, "body.md")
    read = time.perf_counter() - start
    report = run_checks(catalogue, facts)
    render_answer(report)
    render(report, Format.TERMINAL)
    return read, time.perf_counter() - start - read


def command(text: str, repeat: int) -> float:
    """Best of ``repeat`` runs of the whole command on ``text``, after one untimed run that writes the
    bytecode cache a user's installed copy has (so PYTHONDONTWRITEBYTECODE is left out of its environment)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "body.md")
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        argv = [sys.executable, "-m", "gpudoctor", "diagnose", path]
        times = []
        for run in range(repeat + 1):
            start = time.perf_counter()
            done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            elapsed = time.perf_counter() - start
            if done.returncode not in (0, 1):  # 1: a finding reached --fail-on, as the body means it to
                raise SystemExit(f"gpudoctor diagnose exited {done.returncode}: {done.stderr.strip()}")
            if run:
                times.append(elapsed)
    return min(times)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the fastest is shown")
    args = parser.parse_args(argv)
    mb = 1024 * 1024
    per_mb = {}
    print(f"{'size':>6} {'read s':>8} {'checks+render s':>16} {'total s':>8} {'s/MB':>6}")
    for size in (1, 2, 5, 10):
        text = body(size * mb - 1)
        best = min((timed(text) for _ in range(args.repeat)), key=sum)
        total = sum(best)
        per_mb[size] = total / size
        print(f"{size:>4}MB {best[0]:>8.3f} {best[1]:>16.3f} {total:>8.3f} {per_mb[size]:>6.3f}")
    ratio = per_mb[10] / per_mb[1]
    print(f"\n1 MB body read in this process: {per_mb[1]:.3f} s; per-MB time at 10 MB / at 1 MB = {ratio:.2f} "
          "(linear: about 1)")
    whole = command(body(mb - 1), args.repeat)
    print(f"1 MB body, whole command (python -m gpudoctor diagnose): {whole:.3f} s (target < 1 s)")
    return 0 if whole < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
