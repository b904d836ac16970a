"""Pairwise exchanges: every pair of ranks swaps one payload, in rounds of disjoint pairs (the circle method), so
that a slow link or GPU shows up as the pairs it takes part in, where the full-group collectives only slow down.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any, Callable, Dict, List, Optional, Tuple

PAIR_BYTES = 16 * 1024 * 1024
REPEATS = 3


def rounds(world: int) -> List[List[Tuple[int, int]]]:
    """Rounds of disjoint pairs covering every pair once (n-1 rounds for even n, n for odd n)."""
    ranks: List[Optional[int]] = list(range(world)) + ([None] if world % 2 else [])
    size = len(ranks)
    found: List[List[Tuple[int, int]]] = []
    for _ in range(size - 1):
        pairs = []
        for i in range(size // 2):
            a, b = ranks[i], ranks[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((min(a, b), max(a, b)))
        found.append(sorted(pairs))
        ranks = [ranks[0], ranks[-1], *ranks[1:-1]]
    return found


def exchange(torch: Any, dist: Any, device: Any, peer: int, size: int, timeout: float,
             delay: Callable[[float], None]) -> Dict[str, Any]:
    """Swap ``size`` bytes with ``peer`` (both directions at once); the best of REPEATS, checked for exact values."""
    rank = dist.get_rank()
    limit = timedelta(seconds=timeout)
    out = torch.full((max(size // 4, 1),), float(rank + 1), device=device)
    got = torch.zeros_like(out)
    best = float("inf")
    for _ in range(REPEATS + 1):  # the first is a warm-up
        start = time.perf_counter()
        works = [dist.isend(out, peer), dist.irecv(got, peer)]
        for work in works:
            work.wait(timeout=limit)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        delay(time.perf_counter() - start)
        best = min(best, time.perf_counter() - start)
    wrong = int((got != float(peer + 1)).sum())
    row: Dict[str, Any] = {"peer": peer, "bytes": out.numel() * 4, "seconds": best, "correct": wrong == 0}
    if wrong:
        row["error"] = f"{wrong} of {got.numel()} values received from rank {peer} were wrong"
    return row
