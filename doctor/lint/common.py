"""Questions several rules ask of a script: where it uses a GPU, its training-step loops, what runs every step."""

from __future__ import annotations

import ast
from typing import List, Optional

from gpudoctor.lint.flow import Kind, Place, device_place, keyword, move_target
from gpudoctor.lint.names import CREATORS
from gpudoctor.lint.script import LOOPS, SCOPES, Script

CONDITIONAL = (ast.If, ast.IfExp, ast.ExceptHandler, ast.BoolOp, ast.comprehension, ast.Lambda) + LOOPS
MAX_SHOWN = 60


def shown(node: ast.AST) -> str:
    """Source text of ``node`` on one line, cut to a readable length."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def gpu_uses(script: Script) -> List[ast.Call]:
    """Calls that put something on a GPU: ``.cuda()``, ``.to(device)`` and ``device=`` naming a GPU."""
    if "gpu_uses" not in script.cache:
        found: List[ast.Call] = []
        for call in script.calls:
            device = keyword(call, "device")
            if move_target(call) is Place.GPU or (device is not None and device_place(device) is Place.GPU):
                found.append(call)
        script.cache["gpu_uses"] = found
    uses: List[ast.Call] = script.cache["gpu_uses"]
    return uses


def step_loops(script: Script) -> List[ast.stmt]:
    """Training-step loops: the innermost loop around each ``.backward()`` call."""
    if "step_loops" not in script.cache:
        loops: List[ast.stmt] = []
        for call in script.calls:
            if script.method(call) == "backward" or script.qualname(call.func) == "torch.autograd.backward":
                around = script.loops_around(call)
                if around and around[0] not in loops:
                    loops.append(around[0])
        script.cache["step_loops"] = loops
    steps: List[ast.stmt] = script.cache["step_loops"]
    return steps


def every_step(script: Script, node: ast.AST, loop: ast.stmt) -> bool:
    """True when ``node`` runs on every iteration of ``loop``: in its body, under no if, inner loop or handler."""
    child: Optional[ast.AST] = node
    for anc in script.ancestors(node):
        if anc is loop:
            return any(child is stmt for stmt in loop.body)  # type: ignore[attr-defined]
        if isinstance(anc, CONDITIONAL + SCOPES):
            return False
        child = anc
    return False


def step_loop_of(script: Script, node: ast.AST) -> Optional[ast.stmt]:
    """The training-step loop ``node`` runs in on every step, if any."""
    loops = step_loops(script)
    if not loops:
        return None
    around = script.loops_around(node)
    if around and around[0] in loops and every_step(script, node, around[0]):
        return around[0]
    return None


def creation(script: Script, expr: ast.AST) -> Optional[str]:
    """``torch.zeros`` when ``expr`` builds a tensor on the CPU (a torch creator without ``device=``)."""
    if not isinstance(expr, ast.Call) or keyword(expr, "device") is not None:
        return None
    name = script.qualname(expr.func) or ""
    parts = name.split(".")
    if len(parts) == 2 and parts[0] == "torch" and parts[1] in CREATORS and parts[1] != "from_numpy":
        return name
    return None


def is_tensor(script: Script, expr: ast.AST) -> bool:
    return script.flow.kind(expr) is Kind.TENSOR
