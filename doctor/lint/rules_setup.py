"""Rules about how a script picks its GPUs: availability, visible devices, DataParallel, default types."""

from __future__ import annotations

import ast
import re
from typing import Any, Iterator, List, Optional, Tuple

from gpudoctor.lint.common import shown
from gpudoctor.lint.flow import Place, device_place, keyword, move_target
from gpudoctor.lint.model import Hit, rule
from gpudoctor.lint.names import CUDA_STRING
from gpudoctor.lint.script import Script

VISIBLE = "CUDA_VISIBLE_DEVICES"
AVAILABILITY = frozenset({
    "torch.cuda.is_available", "torch.cuda.device_count", "torch.accelerator.is_available",
    "torch.accelerator.current_accelerator", "torch.accelerator.device_count", "torch.backends.mps.is_available",
})
INITIALISERS = frozenset({
    "torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.set_device", "torch.cuda.current_device",
    "torch.cuda.get_device_name", "torch.cuda.get_device_properties", "torch.cuda.get_device_capability",
    "torch.cuda.init", "torch.cuda.synchronize", "torch.cuda.mem_get_info", "torch.cuda.empty_cache",
})
ORDINAL = re.compile(r"^cuda:(\d+)$")


def _literal_cuda(script: Script, call: ast.Call) -> bool:
    """``.cuda()``, ``torch.device("cuda")``, ``.to("cuda:0")`` or ``device="cuda"``: a GPU named outright."""
    if script.method(call) == "cuda":
        return True
    values = [keyword(call, "device")]
    if script.method(call) == "to" or script.qualname(call.func) == "torch.device":
        values.append(call.args[0] if call.args else None)
    return any(isinstance(v, ast.Constant) and isinstance(v.value, str) and CUDA_STRING.match(v.value.strip())
               for v in values)


# availability questions that are functions: their bare name is a function object, and always true
_PREDICATES = frozenset({"torch.cuda.is_available", "torch.backends.mps.is_available", "torch.accelerator.is_available",
                         "torch.backends.cudnn.is_available", "torch.cuda.is_bf16_supported"})


def _tested(script: Script, node: ast.AST) -> bool:
    """``node`` is what an if, while, conditional expression, assert, ``not``, ``and``/``or`` tests."""
    parent = script.parent(node)
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return parent.test is node
    return isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not))


@rule("GD106", "availability-not-called")
def availability_not_called(script: Script) -> Iterator[Hit]:
    """`torch.cuda.is_available` is tested without being called: `if torch.cuda.is_available:`.

    Without the parentheses the test asks whether the function exists, which is always true, so the
    script picks CUDA on every machine and fails without a GPU ("Torch not compiled with CUDA enabled",
    "No CUDA GPUs are available"), or never takes its CPU branch. Call it: `torch.cuda.is_available()`.
    The same holds for `torch.backends.mps.is_available`, `torch.accelerator.is_available`,
    `torch.backends.cudnn.is_available` and `torch.cuda.is_bf16_supported`.
    """
    for node in ast.walk(script.tree):
        if isinstance(node, ast.Attribute) and node.attr in ("is_available", "is_bf16_supported") \
                and script.qualname(node) in _PREDICATES and _tested(script, node):
            name = shown(node)
            yield Hit(node, f"`{name}` is tested without being called: a function is always true, so this "
                            "branch is taken on every machine, with or without a GPU",
                      f"call it: `{name}()`")


@rule("GD105", "cuda-without-availability-check")
def cuda_without_availability_check(script: Script) -> Iterator[Hit]:
    """The script asks for CUDA (`.cuda()`, `"cuda"`) and never asks `torch.cuda.is_available()`.

    On a machine without a usable GPU, or under a CPU-only torch, the first `.cuda()` fails with
    "Torch not compiled with CUDA enabled" or "No CUDA GPUs are available". Pick the device once,
    `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`, and move with `.to(device)`.
    Any call of `torch.cuda.is_available`, `torch.cuda.device_count` or `torch.accelerator.is_available`
    anywhere in the file counts as asking. Reported once per file, at the first such call.
    """
    uses = [c for c in script.calls if _literal_cuda(script, c)]
    if not uses or any(script.qualname(c.func) in AVAILABILITY for c in script.calls):
        return
    more = f" (and {len(uses) - 1} more)" if len(uses) > 1 else ""
    yield Hit(uses[0], f"`{shown(uses[0])}`{more} assumes a CUDA GPU but the script never checks "
                       "torch.cuda.is_available(): without a GPU it fails with 'No CUDA GPUs are available'",
              "pick the device once: `device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")` "
              "and move with .to(device)")


def _visible_sets(script: Script) -> List[Tuple[Any, Optional[str]]]:
    """Statements that set CUDA_VISIBLE_DEVICES in code, with the literal value when there is one."""
    found: List[Tuple[Any, Optional[str]]] = []
    for const in script.strings:
        if const.value != VISIBLE:
            continue
        parent = script.parent(const)
        grand = script.parent(parent) if parent is not None else None
        value: Optional[ast.AST] = None
        if isinstance(parent, ast.Subscript) and isinstance(grand, ast.Assign) and parent in grand.targets:
            parent = grand
            value = grand.value
        elif isinstance(parent, ast.Call) and (script.qualname(parent.func) or "").endswith(
                ("environ.setdefault", "putenv", "environ.__setitem__")) and len(parent.args) == 2:
            value = parent.args[1]
        elif isinstance(parent, ast.Dict) and isinstance(grand, ast.Call) \
                and (script.qualname(grand.func) or "").endswith("environ.update"):
            value = parent.values[parent.keys.index(const)]
            parent = grand
        else:
            continue
        literal = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
        found.append((parent, literal))
    return found


def _initialises(script: Script, call: ast.Call) -> bool:
    if script.qualname(call.func) in INITIALISERS or move_target(call) is Place.GPU:
        return True
    device = keyword(call, "device")
    return device is not None and device_place(device) is Place.GPU


def _ordinals(script: Script) -> List[Tuple[Any, int]]:
    """Hard-coded GPU numbers: "cuda:N", ``torch.device("cuda", N)``, ``.cuda(N)``, ``set_device(N)``."""
    found: List[Tuple[Any, int]] = []
    for const in script.strings:
        text = const.value
        match = ORDINAL.match(text.strip()) if isinstance(text, str) else None
        if match:
            found.append((const, int(match.group(1))))
    for call in script.calls:
        name = script.qualname(call.func)
        args = call.args[1:] if name == "torch.device" else call.args
        if (name in ("torch.device", "torch.cuda.set_device") or script.method(call) == "cuda") and args \
                and isinstance(args[0], ast.Constant) and type(args[0].value) is int:
            found.append((call, args[0].value))
    return found


@rule("GD104", "visible-devices-after-init")
def visible_devices_after_init(script: Script) -> Iterator[Hit]:
    """`CUDA_VISIBLE_DEVICES` is set in code after CUDA started, or a hard-coded `cuda:N` it renumbered away.

    CUDA reads `CUDA_VISIBLE_DEVICES` once, when the process first touches the GPU
    (`torch.cuda.is_available()`, `device_count()`, the first `.cuda()`); setting `os.environ[...]` after
    that changes nothing, and `cuda:N` keeps naming physical GPU N. Set before that point, it hides and
    renumbers the GPUs from 0: with `CUDA_VISIBLE_DEVICES="0,2,3"`, `cuda:1` is physical GPU 2, and with
    `"2"` only `cuda:0` exists, so a hard-coded `cuda:2` fails with "invalid device ordinal". Set it in
    the shell (`CUDA_VISIBLE_DEVICES=2 python train.py`) and address the visible GPUs from `cuda:0`.
    """
    ordinals = _ordinals(script)
    for setter, literal in _visible_sets(script):
        scope = script.scope(setter)
        at = (setter.lineno, setter.col_offset)
        earlier = [c for c in script.calls if (c.lineno, c.col_offset) < at and _initialises(script, c)
                   and script.scope(c) in (scope, script.module_scope)]
        if earlier:
            named = f"; the hard-coded cuda:{ordinals[0][1]} (line {ordinals[0][0].lineno}) still names physical " \
                    f"GPU {ordinals[0][1]}" if ordinals else ""
            yield Hit(setter, f"{VISIBLE} is set after CUDA was initialised by `{shown(earlier[0])}` (line "
                              f"{earlier[0].lineno}), so it has no effect in this process{named}",
                      f"set it before the first CUDA call, or in the shell: `{VISIBLE}={literal or '1'} python "
                      f"{script.path.rsplit('/', 1)[-1]}`")
            continue
        if literal is None:
            continue
        visible = [p for p in literal.split(",") if p.strip()]
        for node, index in ordinals:
            if (node.lineno, node.col_offset) > at and index >= len(visible):
                yield Hit(node, f"cuda:{index} does not exist: {VISIBLE}={literal!r} (line {setter.lineno}) leaves "
                                f"{len(visible)} GPU(s) visible, renumbered from cuda:0; this fails with 'invalid "
                                "device ordinal'",
                          f"address the visible GPUs as cuda:0..cuda:{max(len(visible) - 1, 0)} (cuda:0 is physical "
                          f"GPU {visible[0].strip() if visible else '?'})")


@rule("GD206", "data-parallel")
def data_parallel(script: Script) -> Iterator[Hit]:
    """`nn.DataParallel` is used; PyTorch recommends `DistributedDataParallel`, even on one machine.

    DataParallel runs one Python process that scatters each batch, replicates the model onto every GPU
    every step and gathers the outputs on GPU 0: the GIL and GPU 0 become the bottleneck and GPU 0 runs
    out of memory first. DistributedDataParallel runs one process per GPU and only all-reduces gradients.
    """
    for call in script.calls:
        name = script.qualname(call.func) or ""
        if name in ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                    "torch.nn.parallel.data_parallel.DataParallel"):
            yield Hit(call, f"`{shown(call)}` replicates the model from one process every step; "
                            "DistributedDataParallel is faster, even on one machine",
                      "run one process per GPU: `torchrun --nproc-per-node=N train.py` with "
                      "`model = DistributedDataParallel(model.to(rank), device_ids=[rank])` and a DistributedSampler")


DEFAULT_TYPES = {"Float": "", "Double": "torch.float64", "Half": "torch.float16", "BFloat16": "torch.bfloat16"}


@rule("GD301", "set-default-tensor-type")
def set_default_tensor_type(script: Script) -> Iterator[Hit]:
    """`torch.set_default_tensor_type` is deprecated; use `set_default_device` and `set_default_dtype`.

    The one call mixes two settings (device and dtype), silently makes every factory call allocate on
    the GPU (including in libraries that did not expect it), and is deprecated since PyTorch 2.1.
    `torch.set_default_tensor_type('torch.cuda.FloatTensor')` becomes `torch.set_default_device('cuda')`;
    `'torch.DoubleTensor'` becomes `torch.set_default_dtype(torch.float64)`. Better still, pass
    `device=` where tensors are created.
    """
    for call in script.calls:
        if script.qualname(call.func) != "torch.set_default_tensor_type":
            continue
        arg = call.args[0] if call.args else None
        text = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else ""
        fixes = []
        if ".cuda." in text:
            fixes.append("torch.set_default_device('cuda')")
        elif text:
            fixes.append("torch.set_default_device('cpu')")
        kind = text.rsplit(".", 1)[-1].replace("Tensor", "")
        if DEFAULT_TYPES.get(kind):
            fixes.append(f"torch.set_default_dtype({DEFAULT_TYPES[kind]})")
        instead = " and ".join(f"`{f}`" for f in fixes) or "`torch.set_default_device(...)`/`set_default_dtype(...)`"
        yield Hit(call, f"`{shown(call)}` is deprecated and changes the device of every tensor created afterwards",
                  f"use {instead}, or pass device= where tensors are created")
