"""Runs each lint rule's mistake on a real GPU: the rule must report the snippet, and the GPU shows the effect.

Usage: python bench/lint_truth.py   (needs torch with a working CUDA GPU)

For every rule a short script with the mistake is linted (all rules selected) and then run in a child
process, which prints what actually happened: the error the rule predicts, the tensor left behind, or
the time the mistake costs next to the fixed code. The table says whether the rule fired and what the
GPU did; a rule that did not fire, or a run that did not show the effect, is marked.

On an H100 (torch 2.11.0+cu130, driver 580.159.04) every case was reported and showed its effect: the
discarded copy left x on the CPU; GD102/GD103 raised "Expected all tensors to be on the same device";
hiding the GPUs after CUDA started left cuda:0 working; cuda:1 under CUDA_VISIBLE_DEVICES=0 was an
"invalid device ordinal"; .cuda() without a GPU raised "No CUDA GPUs are available"; creating on the
CPU and moving cost 41x; printing the loss each step 2.6x; per-sample evaluation 121x; a DataLoader
without workers 3.9x; DataParallel on one GPU 2.5x; set_default_tensor_type warned it is deprecated.
loss.item() each step cost nothing measurable (1.0x) in that loop, which is why GD203 is opt-in.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import List, Tuple

from gpudoctor.lint.engine import lint_paths
from gpudoctor.lint.registry import discover

PRE = """
import os, sys, time, warnings
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
def timed(fn, n=3):
    fn(); torch.cuda.synchronize(); start = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize(); return (time.perf_counter() - start) / n
def say(text):
    print("OBSERVED " + text)
"""

CASES: List[Tuple[str, str]] = [
    ("GD101", """
x = torch.randn(3)
x.to(device)
say(f"after x.to({device}) x is still on {x.device}")
"""),
    ("GD102", """
model = nn.Linear(10, 2).to(device)
x = torch.randn(8, 10)
try:
    model(x)
    say("no error")
except RuntimeError as exc:
    say(str(exc).splitlines()[0][:110])
"""),
    ("GD103", """
criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
logits = torch.randn(4, 2).to(device)
target = torch.tensor([1, 0, 0, 1]).to(device)
try:
    criterion(logits, target)
    say("no error")
except RuntimeError as exc:
    say(str(exc).splitlines()[0][:110])
"""),
    ("GD104", """
before = torch.cuda.device_count()
os.environ["CUDA_VISIBLE_DEVICES"] = ""
say(f"device_count() {before} before hiding every GPU, {torch.cuda.device_count()} after; "
    f"cuda:0 still works: {torch.zeros(1, device='cuda:0').device}")
"""),
    ("GD104", """
import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
import torch
if torch.cuda.is_available():
    print("visible:", torch.cuda.device_count())
try:
    torch.zeros(1, device="cuda:1")
    say("no error")
except (RuntimeError, AssertionError) as exc:
    print("OBSERVED with CUDA_VISIBLE_DEVICES=0 set first: " + str(exc).splitlines()[0][:80])
"""),
    ("GD105", """
import os
os.environ["CUDA_VISIBLE_DEVICES"] = ""  # as on a machine without a GPU
import torch
try:
    t = torch.zeros(3).cuda()
    print("OBSERVED no error")
except RuntimeError as exc:
    print("OBSERVED " + str(exc).splitlines()[0][:110])
"""),
    ("GD106", """
import os
os.environ["CUDA_VISIBLE_DEVICES"] = ""  # as on a machine without a GPU
import torch
device = "cuda" if torch.cuda.is_available else "cpu"
try:
    torch.zeros(3, device=device)
    print("OBSERVED no error on " + device)
except RuntimeError as exc:
    print("OBSERVED the untested branch ran: " + str(exc).splitlines()[0][:90])
"""),
    ("GD201", """
def moved():
    for step in range(50):
        noise = torch.zeros(1024, 1024).to(device)
def made():
    for step in range(50):
        noise = torch.zeros(1024, 1024, device=device)
a, b = timed(moved), timed(made)
say(f"50 iterations: {a * 1e3:.1f} ms created on the CPU and moved, {b * 1e3:.1f} ms with device= ({a / b:.0f}x)")
"""),
    ("GD202", """
model = nn.Linear(512, 1).to(device)
x = torch.randn(256, 512, device=device)
sink = open(os.devnull, "w")
def printing():
    for step in range(300):
        loss = model(x).pow(2).mean()
        loss.backward()
        print(loss, file=sink)
def quiet():
    for step in range(300):
        loss = model(x).pow(2).mean()
        loss.backward()
a, b = timed(printing), timed(quiet)
say(f"300 steps: {a * 1e3:.0f} ms printing the loss each step, {b * 1e3:.0f} ms without ({a / b:.1f}x)")
"""),
    ("GD203", """
model = nn.Linear(512, 1).to(device)
x = torch.randn(256, 512, device=device)
def synced():
    total = 0.0
    for step in range(300):
        loss = model(x).pow(2).mean()
        loss.backward()
        total += loss.item()
def on_device():
    total = torch.zeros((), device=device)
    for step in range(300):
        loss = model(x).pow(2).mean()
        loss.backward()
        total += loss.detach()
a, b = timed(synced), timed(on_device)
say(f"300 steps: {a * 1e3:.0f} ms with loss.item() each step, {b * 1e3:.0f} ms summing on the device ({a / b:.1f}x)")
"""),
    ("GD204", """
net = nn.Sequential(nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 5), nn.ReLU(),
                    nn.MaxPool2d(2), nn.Conv2d(64, 128, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 2)).to(device)
test_X = torch.rand(2494, 50, 50)
def per_sample():
    with torch.no_grad():
        for i in range(len(test_X)):
            out = net(test_X[i].view(-1, 1, 50, 50).to(device))
            predicted = torch.argmax(out)
            if predicted == 0:
                pass
def batched():
    with torch.no_grad():
        for i in range(0, len(test_X), 500):
            out = net(test_X[i:i + 500].view(-1, 1, 50, 50).to(device))
            predicted = (out.argmax(1) == 0).sum()
a, b = timed(per_sample, 1), timed(batched, 1)
say(f"2494 test images: {a:.2f} s one at a time, {b:.3f} s in batches of 500 ({a / b:.0f}x)")
"""),
    ("GD205", """
from torch.utils.data import DataLoader, Dataset
class Decoded(Dataset):
    def __len__(self):
        return 2048
    def __getitem__(self, i):
        image = torch.rand(3, 224, 224)
        return (image - image.mean()) / image.std(), i % 10
model = nn.Conv2d(3, 8, 3).to(device)
def epoch(loader):
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        model(images)
if __name__ == "__main__":
    plain = DataLoader(Decoded(), batch_size=64)
    tuned = DataLoader(Decoded(), batch_size=64, num_workers=8, pin_memory=True)
    a, b = timed(lambda: epoch(plain), 1), timed(lambda: epoch(tuned), 1)
    say(f"2048 images: {a:.2f} s with num_workers=0, {b:.2f} s with 8 workers and pinned memory ({a / b:.1f}x)")
"""),
    ("GD206", """
model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
wrapped = nn.DataParallel(model)
x = torch.randn(256, 1024, device=device)
a, b = timed(lambda: wrapped(x), 200), timed(lambda: model(x), 200)
say(f"forward on 1 GPU: {a * 1e6:.0f} us through DataParallel, {b * 1e6:.0f} us plain ({a / b:.1f}x)")
"""),
    ("GD301", """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_default_tensor_type('torch.cuda.FloatTensor')
    a = torch.ones(2, 3)
    torch.set_default_tensor_type('torch.FloatTensor')
say(f"a is on {a.device}; warning: " + (str(caught[0].message).splitlines()[0][:90] if caught else "none"))
"""),
]


def main() -> int:
    rules = discover(plugins=False).select(["ALL"])
    rows = []
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for number, (code, body) in enumerate(CASES):
            path = Path(tmp) / f"case_{number}_{code}.py"
            own = body.lstrip().startswith("import os")  # the case sets the environment before torch starts
            path.write_text(("" if own else textwrap.dedent(PRE).lstrip()) + textwrap.dedent(body).lstrip())
            result = lint_paths([str(path)], rules)
            lines = [str(d.line) for d in result.diagnostics if d.code == code]
            done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                                  check=False, env={**os.environ, "PYTHONWARNINGS": "ignore"})
            observed = [ln[9:] for ln in done.stdout.splitlines() if ln.startswith("OBSERVED ")]
            seen = observed[0] if observed else f"no result (exit {done.returncode}): {done.stderr.strip()[-120:]}"
            missed += not lines or not observed
            rows.append(f"| {code} | {'line ' + ', '.join(lines) if lines else 'NOT REPORTED'} | {seen} |")
    print("| rule | reported | observed on the GPU |\n|---|---|---|")
    print("\n".join(rows))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
