"""Judging a fleet's files on several processes: workers read and check, the parent keeps the fleet state.

Checks are pure Python, so one process uses one core; 10,000 files cost about 15 s of CPU. Each worker
discovers the same checks itself (checks do not pickle), judges files in chunks and sends back only
the small per-node records, in input order, so the result does not depend on the number of workers.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Dict, Iterable, Iterator, Optional, Tuple

from gpudoctor.app import Selection
from gpudoctor.fleet.summary import Record, Redactor, summarise_path
from gpudoctor.registry import Catalogue

CHUNK = 32
IN_PROCESS = 256  # files judged in this process before workers start
MAX_JOBS = 8


_STATE: Optional[Tuple[Catalogue, Optional[Redactor], int, Dict[str, str]]] = None


def default_jobs() -> int:
    """The CPUs this process may run on, at most eight."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return max(1, min(MAX_JOBS, usable))


def _start(selection: Selection, redact: bool, floor: int) -> None:
    global _STATE
    from gpudoctor import registry
    from gpudoctor.redact import redact as redact_facts

    catalogue = registry.discover(plugins=selection.plugins).select(selection.select, selection.ignore)
    _STATE = (catalogue, redact_facts if redact else None, floor, {})


def _judge(path: str) -> Record:
    assert _STATE is not None, "worker not started"
    catalogue, redactor, floor, intern = _STATE
    return summarise_path(path, catalogue, redactor, floor, intern)


def records(paths: Iterable[str], catalogue: Catalogue, redactor: Optional[Redactor], floor: int,
            jobs: int = 1, selection: Selection = Selection()) -> Iterator[Record]:
    """One record per path, in order: the first files in this process (a small fleet needs no workers),
    the rest on ``jobs`` worker processes when ``jobs`` is more than 1."""
    remaining = iter(paths)
    intern: Dict[str, str] = {}
    for path in itertools.islice(remaining, IN_PROCESS if jobs > 1 else None):
        yield summarise_path(path, catalogue, redactor, floor, intern)
    following = next(remaining, None)
    if following is None:
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start,
                             initargs=(selection, redactor is not None, floor)) as pool:
        yield from pool.map(_judge, itertools.chain([following], remaining), chunksize=CHUNK)
