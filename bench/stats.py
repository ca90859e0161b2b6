"""Latency statistics of one benchmark phase."""

import math


def percentile(values, q):
    """The ``q``-th percentile (0..100) of ``values``, interpolated linearly between the closest
    ranks (numpy's default); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values):
    return percentile(values, 50)


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 3)


def summarize(*, latencies, sent, duplicated, misrouted, errors, span, send_lags):
    """The figures of one phase. ``latencies``: seconds from each delivered roll's scheduled
    time to its arrival on the last socket of its room; ``span``: seconds from the first
    scheduled send to the last delivery (at least the scheduled duration)."""
    delivered = len(latencies)
    return {
        "p50_ms": ms(percentile(latencies, 50)),
        "p99_ms": ms(percentile(latencies, 99)),
        "max_ms": ms(max(latencies) if latencies else None),
        "mean_ms": ms(sum(latencies) / delivered if delivered else None),
        "rolls_per_s": round(delivered / span, 2) if span > 0 else 0.0,
        "sent": sent,
        "delivered": delivered,
        "lost": sent - delivered,
        "duplicated": duplicated,
        "misrouted": misrouted,
        "errors": errors,
        "send_lag_max_ms": ms(max(send_lags) if send_lags else 0.0),
    }


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 2)
