"""Check the environment variables that break or slow CUDA, and parse torch's allocator settings."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from gpudoctor import plausible
from gpudoctor.checks.support import install as _fix
from gpudoctor.checks.support import words as _cmd
from gpudoctor.facts import Facts, Source
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.registry import Check, check, need

CUDA_ENV_DOCS = "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html"
ALLOC_CONF_DOCS = "https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"
ALLOC_VARS = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")
CHANGED_AFTER_START = "changing env variable cuda_visible_devices after program start"

# Allocator options torch accepts (union over releases up to 2.14), by the kind of value each takes.
BOOL_KEYS = frozenset({
    "expandable_segments", "release_lock_on_cudamalloc", "release_lock_on_hipmalloc",
    "pinned_use_cuda_host_register", "pinned_use_hip_host_register", "pinned_use_background_threads",
    "pinned_free_catch_all", "graph_capture_record_stream_reuse", "throw_on_cudamalloc_oom",
})
INT_KEYS = {  # key -> smallest value torch accepts
    "max_split_size_mb": 20, "max_non_split_rounding_mb": 20, "large_segment_size_mb": 11,
    "pinned_num_register_threads": 1, "pinned_reserve_segment_size_mb": 0,
    "pinned_max_cached_size_mb": 0, "pinned_max_round_threshold_mb": 0,
}
FRACTION_KEYS = {"garbage_collection_threshold": "(0.0, 1.0)", "per_process_memory_fraction": "[0.0, 1.0]"}
KNOWN_KEYS = sorted(BOOL_KEYS | set(INT_KEYS) | set(FRACTION_KEYS) | {"backend", "roundup_power2_divisions"})
BACKENDS = ("native", "cudaMallocAsync")


@dataclass(frozen=True)
class AllocProblem:
    """The first thing torch would reject in an allocator setting: the token and why."""

    token: str
    message: str


def _lex(value: str) -> List[str]:
    """Split like torch: ``, : [ ]`` are tokens of their own, spaces are dropped."""
    return [t for t in re.split(r"([,:\[\]])", value.replace(" ", "")) if t]


def _power_of_two(text: str) -> bool:
    return text.isdigit() and int(text) > 0 and int(text) & (int(text) - 1) == 0


def _check_value(key: str, value: str) -> Optional[str]:
    if key in BOOL_KEYS:
        return None if value in ("True", "False") else f"{key} takes True or False (capitalised), not {value!r}"
    if key in INT_KEYS:
        digits = re.match(r"\d+", value)
        if not digits:
            return f"{key} takes a whole number, not {value!r}"
        if int(digits.group()) < INT_KEYS[key]:
            return f"{key} must be at least {INT_KEYS[key]}, not {digits.group()}"
        if key == "pinned_num_register_threads" and not (_power_of_two(digits.group()) and int(digits.group()) <= 128):
            return f"{key} must be a power of 2 up to 128, not {digits.group()}"
        return None
    if key in FRACTION_KEYS:
        number = re.match(r"\d*\.?\d+(?:[eE][-+]?\d+)?", value)
        if not number:
            return f"{key} takes a number in {FRACTION_KEYS[key]}, not {value!r}"
        x = float(number.group())
        inside = 0.0 < x < 1.0 if FRACTION_KEYS[key].startswith("(") else 0.0 <= x <= 1.0
        return None if inside else f"{key} must be in {FRACTION_KEYS[key]}, not {value}"
    if key == "backend":
        return None if value in BACKENDS else f"backend is native or cudaMallocAsync, not {value!r}"
    return None if _power_of_two(value) else f"roundup_power2_divisions takes a power of 2, not {value!r}"


def _roundup_list(tokens: List[str], i: int) -> Tuple[int, Optional[AllocProblem]]:
    """Parse ``[256:1,512:2,>:4]`` starting at the ``[``; returns the index of the ``]``."""
    i += 1
    while i < len(tokens) and tokens[i] != "]":
        size, colon, divs = (tokens[i:i + 3] + ["", "", ""])[:3]
        if colon != ":" or not divs:
            return i, AllocProblem(tokens[i], "roundup_power2_divisions entries are SIZE:DIVISIONS")
        if size != ">" and not _power_of_two(size):
            return i, AllocProblem(size, f"roundup_power2_divisions sizes are powers of 2 or '>', not {size!r}")
        if divs != "0" and not _power_of_two(divs):
            return i, AllocProblem(divs, f"roundup_power2_divisions divisions are powers of 2 or 0, not {divs!r}")
        i += 3
        if i < len(tokens) and tokens[i] == ",":
            i += 1
    if i >= len(tokens):
        return i, AllocProblem("[", "roundup_power2_divisions list has no closing ']'")
    return i, None


def parse_alloc_conf(value: str) -> Optional[AllocProblem]:
    """The first problem torch would raise for this PYTORCH_(CUDA_)ALLOC_CONF value, or None."""
    tokens = _lex(value)
    i = 0
    while i < len(tokens):
        key = tokens[i]
        if key in (",", ":", "[", "]"):
            return AllocProblem(key, f"a stray {key!r} where an option name belongs")
        if key not in KNOWN_KEYS:
            if "=" in key:
                return AllocProblem(key, f"{key!r} uses '='; options are written KEY:VALUE")
            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]}?)" if close else ""
            return AllocProblem(key, f"{key!r} is not an allocator option{hint}")
        if i + 2 >= len(tokens) or tokens[i + 1] != ":":
            return AllocProblem(key, f"{key} has no value; write {key}:VALUE")
        i += 2
        if key == "roundup_power2_divisions" and tokens[i] == "[":
            i, problem = _roundup_list(tokens, i)
            if problem:
                return problem
        else:
            message = _check_value(key, tokens[i])
            if message:
                return AllocProblem(tokens[i], message)
        i += 1
        if i < len(tokens) and tokens[i] != ",":
            spaces = " (options are separated by commas, not spaces)" if " " in value.strip() else ""
            return AllocProblem(tokens[i], f"expected ',' after the value of {key}, got {tokens[i]!r}{spaces}")
        i += 1
    return None


def suggest_alloc_conf(value: str) -> Optional[str]:
    """A corrected value for the usual slips ('=', lower-case booleans, misspelt keys), or None."""
    if "[" in value:
        return None
    entries: List[str] = []
    for entry in (e.strip().replace(" ", "") for e in value.split(",")):
        if not entry:
            continue
        key, _, val = (entry if ":" in entry else entry.replace("=", ":", 1)).partition(":")
        if key not in KNOWN_KEYS:
            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.75)
            key = close[0] if close else key
        if key in BOOL_KEYS and val.lower() in ("true", "false", "1", "0"):
            val = "True" if val.lower() in ("true", "1") else "False"
        entries.append(f"{key}:{val}")
    fixed = ",".join(entries)
    return fixed if fixed != value and parse_alloc_conf(fixed) is None else None


def _var_finding(facts: Facts, name: str, summary: str, detail: str) -> Finding:
    return Finding(
        "env.cuda-vars", Severity.WARNING, f"{name}={facts.env.get(name)}: {summary}", detail,
        Fix("Unset it in the shell, job script or container that sets it.", (_fix.unset_env(facts, name),)),
        (CUDA_ENV_DOCS,), ("env.variables",),
    )


def _visible(facts: Facts, value: str) -> Optional[str]:
    selectors = [t.strip() for t in value.split(",")]
    return _cmd.export(facts, "CUDA_VISIBLE_DEVICES", value) if plausible.gpu_selectors(selectors) else None


@check("env.cuda-vars", "CUDA environment variables")
def cuda_vars(facts: Facts) -> Iterator[Finding]:
    env = facts.env
    if not env.variables and (facts.meta.source == Source.COLLECT_ENV.value or facts.probe_error("env")):
        need(None, "env", "the environment variables were not recorded")
    if (env.get("CUDA_LAUNCH_BLOCKING") or "").strip() == "1":
        yield _var_finding(facts, "CUDA_LAUNCH_BLOCKING", "every kernel launch waits for the GPU to finish, "
                           "so training runs several times slower; required: unset (a debugging switch)",
                           "Use it only to find the line that raised an asynchronous CUDA error.")
    if (env.get("CUDA_CACHE_DISABLE") or "").strip() == "1":
        yield _var_finding(facts, "CUDA_CACHE_DISABLE", "the JIT cache is off, so PTX kernels are compiled "
                           "again at every start; required: unset",
                           "A GPU newer than the wheel's prebuilt kernels runs PTX; compiling it can take minutes.")
    if (env.get("CUDA_MODULE_LOADING") or "").strip().upper() == "EAGER":
        yield _var_finding(facts, "CUDA_MODULE_LOADING", "every kernel of every CUDA library is loaded at "
                           "start: a slower start and more GPU memory per process; required: unset or LAZY",
                           "torch sets LAZY itself when the variable is unset.")
    for name in ALLOC_VARS:
        value = env.get(name)
        problem = parse_alloc_conf(value) if value else None
        if problem is None:
            continue
        better = suggest_alloc_conf(value or "")
        commands = (_cmd.export(facts, name, better),) if better else (_cmd.unset(facts, name),)
        yield Finding(
            "env.cuda-vars", Severity.ERROR,
            f"{name}={value} is malformed at {problem.token!r}: {problem.message}; torch raises at the first "
            "CUDA memory allocation",
            f"Options are comma-separated KEY:VALUE pairs; known keys: {', '.join(KNOWN_KEYS)}.",
            _cmd.fix("Set the corrected value." if better else "Unset it, or fix the option named above.", commands,
                     "Write the options as KEY:VALUE pairs by hand."),
            (ALLOC_CONF_DOCS,), ("env.variables",),
        )
    init_error = facts.torch.init_error or ""
    if CHANGED_AFTER_START in init_error.lower():
        live = facts.meta.source == Source.LIVE.value
        yield Finding(
            "env.cuda-vars", Severity.INFO if live else Severity.WARNING,
            "torch's CUDA error names 'changing env variable CUDA_VISIBLE_DEVICES after program start' as a "
            + ("possible cause; ruled out here, because gpudoctor's probe sets its environment before it starts "
               "(see the driver.uvm check)" if live else
               "possible cause; required: the variable set before the process starts"),
            "CUDA reads CUDA_VISIBLE_DEVICES once, when it initialises; setting os.environ after the first "
            "torch.cuda call has no effect or breaks initialisation.",
            None if live else _cmd.fix(
                "Set it in the shell (or at the very top of the script, before importing torch).",
                (_visible(facts, env.get("CUDA_VISIBLE_DEVICES") or "0"),), "Set it to the GPU indices or UUIDs to use."),
            (CUDA_ENV_DOCS,), ("torch.init_error", "meta.source"),
        )


CHECKS: List[Check] = [cuda_vars]
