"""Times `gpudoctor lint` on 1,000 generated training scripts, the whole command in a fresh process.

Usage: python bench/bench_lint.py [--files 1000] [--runs 3] [--select ALL]

Target: linting 1,000 files takes under 5 s (median of the runs, wall clock, process start included). The
CPU time and the load average are printed too: on a shared machine the wall clock measures the neighbours.
The scripts are generated from templates of typical training code (a model class, a DataLoader, a
training loop with per-step moves and logging, an evaluation loop), each variant a little different so
no two files are equal; about a third carry one of the mistakes the rules find.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List

TEMPLATE = '''"""Training script {n}."""
import os
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
{setup}

class Net{n}(nn.Module):
    def __init__(self, hidden={hidden}):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def train(model, loader, optimizer, epoch, log_interval={interval}):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        {step}
        if batch_idx % log_interval == 0:
            print("epoch {{}} batch {{}} loss {{:.4f}}".format(epoch, batch_idx, loss.item()))


def test(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            pred = model(data).argmax(dim=1)
            correct += pred.eq(target).sum().item()
    return correct / len(loader.dataset)


def main():
    images = torch.rand({size}, 1, 28, 28)
    labels = torch.randint(0, 10, ({size},))
    loader = DataLoader(TensorDataset(images, labels), batch_size={batch}, {loader})
    model = Net{n}().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr={lr})
    for epoch in range({epochs}):
        train(model, loader, optimizer, epoch)
        print(test(model, loader))
    {tail}


if __name__ == "__main__":
    main()
'''
SETUPS = ["", "torch.manual_seed(1)", "os.environ['CUDA_VISIBLE_DEVICES'] = '0'",
          "torch.backends.cudnn.benchmark = True"]
STEPS = ["pass", "noise = torch.zeros(4).to(device)", "print(loss)", "running = loss.detach()"]
LOADERS = ["num_workers=2, pin_memory=True", "shuffle=True", "num_workers=4", "pin_memory=True"]
TAILS = ["torch.save(model.state_dict(), 'm.pt')", "images.to(device)", "model.cpu()", "pass"]


def generate(folder: Path, count: int, seed: int = 0) -> List[Path]:
    rng = random.Random(seed)
    paths = []
    for n in range(count):
        text = TEMPLATE.format(
            n=n, hidden=rng.choice([64, 128, 256]), interval=rng.choice([10, 50, 100]),
            setup=rng.choice(SETUPS), step=rng.choice(STEPS), loader=rng.choice(LOADERS), tail=rng.choice(TAILS),
            size=rng.choice([256, 512]), batch=rng.choice([32, 64]), lr=rng.choice([0.1, 0.01]),
            epochs=rng.choice([1, 2, 3]),
        )
        path = folder / f"pkg{n % 10}" / f"train_{n}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--select", default="", help="rules to run (default: the default set; ALL for every rule)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = generate(folder, args.files)
        lines = sum(p.read_text().count("\n") for p in paths)
        argv = [sys.executable, "-m", "gpudoctor", "lint", str(folder), "--format", "json"]
        if args.select:
            argv += ["--select", args.select]
        times = []
        cpu = []
        findings = 0
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode not in (0, 1):
                print(done.stderr, file=sys.stderr)
                return 2
            findings = done.stdout.count('"code": ')
    median = statistics.median(times)
    print(f"# bench_lint ({os.cpu_count()} CPUs; {args.files} files, {lines} lines; median of {args.runs})")
    print(f"gpudoctor lint: {median:.2f} s wall ({args.files / median:.0f} files/s), "
          f"{statistics.median(cpu):.2f} s CPU, {findings} findings; load average {os.getloadavg()[0]:.1f}")
    ok = median < 5.0
    print(f"target < 5 s for 1,000 files: {'met' if ok or args.files != 1000 else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
