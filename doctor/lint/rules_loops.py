"""Rules about what a training or evaluation loop does each step: host syncs, per-sample work, data loading."""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from gpudoctor.lint.common import gpu_uses, is_tensor, shown, step_loop_of
from gpudoctor.lint.flow import Kind, Place, keyword
from gpudoctor.lint.model import Hit, rule
from gpudoctor.lint.script import Script

SYNC_METHODS = ("item", "tolist", "cpu", "numpy")
SYNC_BUILTINS = ("float", "int", "bool")


def _in_print(script: Script, node: ast.AST) -> bool:
    return any(isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == "print"
               for a in script.ancestors(node))


def _shows_tensor(script: Script, args: List[ast.expr]) -> Optional[ast.AST]:
    for arg in args:
        for node in ast.walk(arg):
            if isinstance(node, ast.Call) and script.method(node) in ("item", "tolist"):
                return node
            if isinstance(node, (ast.Name, ast.Attribute)) and is_tensor(script, node):
                return node
    return None


@rule("GD202", "print-every-step")
def print_every_step(script: Script) -> Iterator[Hit]:
    """A tensor is printed on every training step.

    Printing a CUDA tensor (or its `.item()`) copies it to the host, which waits for every queued kernel:
    a host sync per step, and a line of output per step besides. The training loop is the innermost loop
    around `.backward()`; a print under an `if` (`if step % 100 == 0:`) or after the loop is fine.
    """
    for call in script.calls:
        if not (isinstance(call.func, ast.Name) and call.func.id == "print") or step_loop_of(script, call) is None:
            continue
        shown_value = _shows_tensor(script, call.args)
        if shown_value is not None:
            yield Hit(call, f"`{shown(call)}` prints {shown(shown_value)} on every training step: each print waits "
                            "for the GPU to finish (a host sync) and writes a line per step",
                      "print every N steps (`if step % 100 == 0:`) or once per epoch")


def _sync(script: Script, call: ast.Call) -> Optional[str]:
    method = script.method(call)
    if method in SYNC_METHODS:
        receiver = call.func.value  # type: ignore[attr-defined]
        kind = script.flow.kind(receiver)
        if kind is Kind.TENSOR or (kind is Kind.UNKNOWN and method == "item"):
            return f".{method}()"
        return None
    if isinstance(call.func, ast.Name) and call.func.id in SYNC_BUILTINS and len(call.args) == 1 \
            and is_tensor(script, call.args[0]):
        return f"{call.func.id}()"
    return None


@rule("GD203", "sync-every-step", default=False)
def sync_every_step(script: Script) -> Iterator[Hit]:
    """A value is copied to the host on every training step (`.item()`, `.cpu()`, `.numpy()`, `float(t)`).

    Each of these waits for the GPU to finish all queued work, so the CPU cannot run ahead and queue the
    next step while the GPU computes (PyTorch's performance tuning guide lists them as syncs to avoid).
    Keep the running sums on the device (`running_loss += loss.detach()`) and call `.item()` every N
    steps or once per epoch.

    Off by default (select it with `--select GD203`): `running_loss += loss.item()` is the pattern of
    PyTorch's own tutorials and examples, and when the inputs are copied from pageable memory (no
    `pin_memory=True` with `non_blocking=True`) every step syncs at that copy anyway, so the extra sync
    costs little. Turn it on when tuning a loop that feeds the GPU asynchronously.
    """
    for call in script.calls:
        what = _sync(script, call)
        if what is None or _in_print(script, call) or step_loop_of(script, call) is None:
            continue
        inner = call.func.value if isinstance(call.func, ast.Attribute) else None
        if any(isinstance(n, ast.Call) and n is not call and _sync(script, n) for n in ast.walk(inner or call)):
            continue  # one report per chain: x.cpu().numpy() is reported at .cpu()
        yield Hit(call, f"`{shown(call)}` copies to the host on every training step ({what} waits for the GPU)",
                  "accumulate on the device (`total += loss.detach()`) and call .item() every N steps or per epoch")


def _sample_names(script: Script, loop: ast.For | ast.AsyncFor) -> Tuple[List[str], List[str]]:
    """Names of ``loop`` that index samples (``i`` of ``range(len(X))``) and that hold one sample of a tensor."""
    indices: List[str] = []
    samples: List[str] = []
    target, items = loop.target, loop.iter
    if isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.args:
        if items.func.id == "tqdm":
            items = items.args[0]
    if isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.func.id == "range" \
            and isinstance(target, ast.Name):
        indices.append(target.id)
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            bindings = script.lookup(node.id, loop.body[0])
            if bindings and bindings[-1].how == "iter" and script.flow.kind(bindings[-1].value) is Kind.TENSOR:
                samples.append(node.id)
    return indices, samples


def _one_sample(script: Script, arg: ast.expr, indices: List[str], samples: List[str]) -> bool:
    for node in ast.walk(arg):
        if isinstance(node, ast.Name) and node.id in samples:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id in indices \
                and is_tensor(script, node.value):
            return True
    return False


@rule("GD204", "per-sample-evaluation")
def per_sample_evaluation(script: Script) -> Iterator[Hit]:
    """A model is run one sample at a time in a loop (`for i in range(len(test_X))`).

    Calling the model on `test_X[i]` for every i launches every layer's kernels once per sample and, with
    the comparison that usually follows (`if predicted == real:`), waits for the GPU once per sample: the
    GPU sits idle between tiny kernels. Evaluate in batches: slice `test_X[i:i + batch]` (or use a
    DataLoader) and compare whole batches on the device, `correct += (out.argmax(1) == y).sum()`.
    """
    for loop in script.loops:
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        indices, samples = _sample_names(script, loop)
        if not indices and not samples:
            continue
        for node in script.walk_local(loop.body):
            if isinstance(node, ast.Call) and script.flow.kind(node.func) is Kind.MODULE \
                    and any(_one_sample(script, a, indices, samples) for a in node.args):
                yield Hit(node, f"`{shown(node)}` runs the model on one sample per iteration of "
                                f"`for {shown(loop.target)} in {shown(loop.iter)}`",
                          "evaluate in batches: slice `X[i:i + batch]` or use a DataLoader, and compare whole "
                          "batches on the device")
                break


@rule("GD205", "dataloader-without-workers")
def dataloader_without_workers(script: Script) -> Iterator[Hit]:
    """A DataLoader feeding a GPU loads every batch in the training process (no `num_workers`).

    With the default `num_workers=0` the training loop stops each step to read, decode and collate the
    next batch while the GPU waits. Feeding a GPU, load in worker processes (`num_workers=4` or so) and
    page-lock the batches (`pin_memory=True`) so `.to(device, non_blocking=True)` can overlap the copy
    with compute. Reported only in scripts that put something on a GPU, and never for a DataLoader
    built from `**kwargs` the rule cannot read. A loader given either `num_workers` or `pin_memory`
    was tuned on purpose and is not reported, nor is one over a `TensorDataset` already on the GPU.
    """
    if not gpu_uses(script):
        return
    for call in script.calls:
        name = script.qualname(call.func) or ""
        if not (name.startswith("torch.utils.data") and name.endswith(".DataLoader")):
            continue
        if any(kw.arg is None for kw in call.keywords) or len(call.args) > 5:
            continue
        if not (_unset(keyword(call, "num_workers"), 0) and _unset(keyword(call, "pin_memory"), False)):
            continue
        if _on_gpu_already(script, call.args[0] if call.args else keyword(call, "dataset")):
            continue
        yield Hit(call, "DataLoader feeding the GPU loads every batch in the training process (num_workers=0) into "
                        "pageable memory (pin_memory=False) while the GPU waits",
                  "pass num_workers=4 (or os.cpu_count() // 2) and pin_memory=True, and move batches with "
                  ".to(device, non_blocking=True)")


def _on_gpu_already(script: Script, dataset: Optional[ast.expr]) -> bool:
    """``TensorDataset(x_gpu, y_gpu)`` (or a name bound to one): the data is on the GPU, nothing to load."""
    if isinstance(dataset, ast.Name):
        bindings = script.lookup(dataset.id, dataset)
        dataset = bindings[-1].value if len(bindings) == 1 else None
    if not (isinstance(dataset, ast.Call) and (script.qualname(dataset.func) or "").endswith("TensorDataset")):
        return False
    return any(script.flow.place(arg) is Place.GPU for arg in dataset.args)


def _unset(value: Optional[ast.expr], default: object) -> bool:
    return value is None or (isinstance(value, ast.Constant) and value.value == default)
