"""Measure (never assert) how long the exact odds take for every pool the app allows.

Run with ``python -m rules.bench``. Caches are cleared first, so the figures include the
cold start of the mana distribution table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from . import mana, pool
from .errors import MAX_DICE

#: Pool target numbers measured for every pool (d6 + d10 in 1..MAX_DICE).
POOL_TNS = tuple(range(1, 31))

#: Mana difficulties measured for every dice count in 1..MAX_DICE.
MANA_DIFFICULTIES = tuple(range(1, 31))


def _time_calls(call: Callable[..., object], argument_sets: Iterable[tuple[int, ...]]) -> dict:
    total = 0.0
    worst = 0.0
    calls = 0
    for arguments in argument_sets:
        start = time.perf_counter()
        call(*arguments)
        elapsed = time.perf_counter() - start
        total += elapsed
        worst = max(worst, elapsed)
        calls += 1
    return {"seconds": total, "worst_ms": worst * 1000, "calls": calls}


def bench_odds(
    pool_tns: Iterable[int] = POOL_TNS, mana_difficulties: Iterable[int] = MANA_DIFFICULTIES
) -> dict:
    """Time ``success_probability`` for every pool up to MAX_DICE dice in both systems.

    Returns ``{"total_seconds", "worst_call_ms", "calls", "pool": {...}, "mana": {...}}`` where
    each system's entry has ``seconds``, ``worst_ms`` and ``calls``.
    """
    pool_tns = tuple(pool_tns)
    mana_difficulties = tuple(mana_difficulties)
    mana._counts.cache_clear()
    mana._tail_counts.cache_clear()
    pool_figures = _time_calls(
        pool.success_probability,
        (
            (d6, d10, tn)
            for d6 in range(MAX_DICE + 1)
            for d10 in range(MAX_DICE + 1 - d6)
            if d6 + d10
            for tn in pool_tns
        ),
    )
    mana_figures = _time_calls(
        mana.success_probability,
        (
            (dice, difficulty)
            for dice in range(MAX_DICE, 0, -1)  # largest first: the cold cache is the worst case
            for difficulty in mana_difficulties
        ),
    )
    return {
        "total_seconds": pool_figures["seconds"] + mana_figures["seconds"],
        "worst_call_ms": max(pool_figures["worst_ms"], mana_figures["worst_ms"]),
        "calls": pool_figures["calls"] + mana_figures["calls"],
        "pool": pool_figures,
        "mana": mana_figures,
    }


if __name__ == "__main__":  # pragma: no cover
    for key, value in bench_odds().items():
        print(f"{key}: {value}")
