"""Rules about moving tensors and modules between devices: discarded copies, mismatches, per-step copies."""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from gpudoctor.lint.common import creation, gpu_uses, shown
from gpudoctor.lint.flow import Kind, Place, keyword, move_target
from gpudoctor.lint.model import Hit, rule
from gpudoctor.lint.script import Script, key_of

PARAMETER_FREE = frozenset({
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "ELU", "Mish", "Hardswish", "Softplus", "Sigmoid", "Tanh",
    "Softmax", "LogSoftmax", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Flatten", "Unflatten",
    "Identity", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "Upsample", "PixelShuffle",
})
WEIGHT_FIRST = frozenset({"CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss"})
SAME_DEVICE = "computing it fails with 'Expected all tensors to be on the same device'"


@rule("GD101", "discarded-move")
def discarded_move(script: Script) -> Iterator[Hit]:
    """A tensor's `.to()`, `.cuda()` or `.cpu()` result is thrown away.

    `Tensor.to(device)`, `.cuda()` and `.cpu()` return a copy on the other device and leave the tensor
    where it was, so `test_X.to(device)` on a line of its own does nothing but copy and forget; the next
    use of `test_X` is still on the CPU. Keep the result: `test_X = test_X.to(device)`.

    `nn.Module.to()`/`.cuda()` are different: they move the module's parameters and buffers in place and
    return the module itself, so `model.to(device)` on its own line is right. The rule therefore reports a
    call only when the data flow shows its receiver is a tensor (made by a torch function, indexed or
    computed from a tensor, or taken from a DataLoader), never a name bound to an `nn.Module` constructor,
    to a class deriving from `nn.Module`, or a parameter named like a model (`model`, `net`, `criterion`).
    A fresh temporary moved on its own line (`torch.zeros(1).cuda()`, a common way to start CUDA early)
    leaves nothing behind on the old device and is not reported.
    """
    for call in script.calls:
        if script.method(call) not in ("to", "cuda", "cpu") or not isinstance(script.parent(call), ast.Expr):
            continue
        receiver = call.func.value  # type: ignore[attr-defined]
        if isinstance(receiver, ast.Call) or script.flow.kind(receiver) is not Kind.TENSOR:
            continue  # a fresh temporary moved and dropped (`torch.zeros(1).cuda()`) starts CUDA on purpose
        name = shown(receiver)
        target = f"{name} = {shown(call)}" if key_of(receiver) else f"moved = {shown(call)}"
        yield Hit(call, f"the result of `{shown(call)}` is discarded: a tensor's .{script.method(call)}() returns a "
                        f"copy, so {name} stays on its old device (only modules move in place)",
                  f"keep the copy: `{target}`")


def _constructor(script: Script, expr: ast.AST) -> Optional[str]:
    """The class a module value was built from (``torch.nn.Linear``, ``Net``), following names and moves."""
    for _ in range(8):
        if isinstance(expr, ast.Call):
            if script.method(expr) in ("to", "cuda", "cpu", "train", "eval", "half", "float"):
                expr = expr.func.value  # type: ignore[attr-defined]
                continue
            return script.qualname(expr.func)
        key = key_of(expr)
        bindings = script.lookup(key, expr) if key else []
        if len(bindings) != 1 or bindings[0].how != "assign" or bindings[0].value is None:
            return None
        expr = bindings[0].value
    return None


@rule("GD102", "device-mismatch")
def device_mismatch(script: Script) -> Iterator[Hit]:
    """A model is called with an input the data flow shows on the other device.

    `model.to(device)` moves the parameters; every input must follow (`x = x.to(device)`), or the forward
    pass fails with "Expected all tensors to be on the same device". The rule compares the place of the
    module at the call (built on the CPU, moved by `.to()`/`.cuda()`/`.cpu()` in place) with the place of
    each positional tensor argument (created with or without `device=`, moved by `.to()`, taken from a
    DataLoader, which yields CPU tensors). A module handed to another function before the call, or any
    value the flow cannot follow, is not judged. Parameter-free layers (ReLU, pooling, dropout) and loss
    modules without weights run on any device and are skipped; loss weights are GD103.
    """
    flow = script.flow
    for call in script.calls:
        if flow.kind(call.func) is not Kind.MODULE:
            continue
        built = (_constructor(script, call.func) or "").split(".")[-1]
        if built in PARAMETER_FREE or built.endswith("Loss"):
            continue
        model = flow.place(call.func)
        if model is Place.UNKNOWN:
            continue
        for arg in call.args:
            if flow.kind(arg) is not Kind.TENSOR:
                continue
            where = flow.place(arg)
            if {where, model} != {Place.CPU, Place.GPU}:
                continue
            name = shown(call.func)
            fix = (f"move the input first: `{shown(arg)}.to(device)` (or create it with device=device)"
                   if model is Place.GPU else f"move the model once before the loop: `{name}.to(device)`")
            yield Hit(call, f"`{shown(call)}`: {name} is on the {model.value.upper()} but {shown(arg)} is on the "
                            f"{where.value.upper()}; {SAME_DEVICE}", fix)
            break


def _weight(script: Script, call: ast.Call) -> Optional[ast.expr]:
    name = (script.qualname(call.func) or "").split(".")
    if len(name) < 3 or name[:2] != ["torch", "nn"] or not name[-1].endswith("Loss"):
        return None
    for kw in ("weight", "pos_weight"):
        value = keyword(call, kw)
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            return value
    return call.args[0] if call.args and name[-1] in WEIGHT_FIRST else None


@rule("GD103", "loss-weight-on-cpu")
def loss_weight_on_cpu(script: Script) -> Iterator[Hit]:
    """A loss module built with a weight tensor stays on the CPU while the script trains on the GPU.

    `nn.CrossEntropyLoss(weight=w)` (likewise `pos_weight=` and the other weighted losses) keeps `w` as a
    buffer of the module. Loss modules are modules: the buffer moves only with `criterion.to(device)` (or
    `.cuda()`), and a CPU weight against GPU logits fails with "Expected all tensors to be on the same
    device". Reported when the script puts something on a GPU, calls the loss, the weight was created on
    the CPU, and the loss module is never moved.
    """
    if not gpu_uses(script):
        return
    flow = script.flow
    for call in script.calls:
        weight = _weight(script, call)
        target = script.parent(call)
        if weight is None or not isinstance(target, ast.Assign) or len(target.targets) != 1:
            continue
        key = key_of(target.targets[0])
        if key is None or flow.place(weight) is not Place.CPU:
            continue
        used = moved = False
        for other in script.calls:
            used = used or key_of(other.func) == key
            if isinstance(other.func, ast.Attribute) and key_of(other.func.value) == key:
                moved = moved or move_target(other) is Place.GPU
        if used and not moved:
            yield Hit(call, f"{key} = {shown(call)} keeps its weight on the CPU while the script runs on the GPU "
                            f"(line {gpu_uses(script)[0].lineno}) and {key} is never moved; {SAME_DEVICE}",
                      f"move the loss module with the model: `{key} = {shown(call)}.to(device)`")


def _per_epoch(loop: ast.stmt) -> bool:
    """``for epoch in range(epochs)``: work once per epoch is not work per step."""
    target = getattr(loop, "target", None)
    return isinstance(target, ast.Name) and "epoch" in target.id.lower()


@rule("GD201", "cpu-tensor-moved-in-loop")
def cpu_tensor_moved_in_loop(script: Script) -> Iterator[Hit]:
    """A tensor is created on the CPU inside a loop and then copied to the GPU, every iteration.

    `torch.zeros(n).cuda()` or `torch.tensor(x).to(device)` inside a loop allocates and fills a CPU
    tensor, then copies it over PCIe each time round. Creation functions take `device=`: build the tensor
    where it is used, `torch.zeros(n, device=device)`, `torch.tensor(x, device=device)`, or
    `x.new_zeros(n)` / `torch.zeros_like(x)` to follow an existing tensor. The legacy constructors
    (`torch.FloatTensor(...)`) cannot build on the GPU at all; use `torch.tensor`/`torch.empty` with
    `dtype=` and `device=`. `torch.from_numpy` is not reported (it shares the array's memory, the copy is
    the point), nor is a loop over epochs (`for epoch in ...`), where the copy happens once per epoch.
    """
    for call in script.calls:
        around = script.loops_around(call)
        if move_target(call) is not Place.GPU or not around or _per_epoch(around[0]):
            continue
        receiver = call.func.value  # type: ignore[attr-defined]
        made = creation(script, receiver)
        source = receiver
        if made is None and isinstance(receiver, ast.Name):
            bindings = script.lookup(receiver.id, receiver)
            if len(bindings) == 1 and bindings[0].how == "assign" and bindings[0].value is not None \
                    and script.loops_around(bindings[0].node)[:1] == script.loops_around(call)[:1]:
                source = bindings[0].value
                made = creation(script, source)
        if made is None:
            continue
        device = "device" if script.method(call) == "cuda" or not call.args else shown(call.args[0])
        text = ast.unparse(source)
        if not made.endswith("Tensor") and len(text) <= 60:
            better = f"`{text[:-1]}, device={device})`".replace("(, ", "(")
        else:
            better = f"`torch.tensor(..., device={device})` (or `torch.empty(size, device={device})`)"
        yield Hit(call, f"`{shown(call)}` builds a tensor on the CPU and copies it to the GPU on every iteration",
                  f"create it on the device: {better}")
