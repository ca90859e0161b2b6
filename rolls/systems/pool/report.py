"""What the insight pages (``insights``) read of a Pool roll: the distribution of its highest
total, and a roll as the log export writes it."""

from rules import distribution, pool


def _dice(d6, d10):
    return " + ".join(f"{n}{die}" for n, die in ((d6, "d6"), (d10, "d10")) if n)


def exact_distribution(dice, counts, *, max_bins, tail):
    """(title, what, chances, last, beyond) of the pool ``dice`` (d6, d10): the exact chance of
    each highest total below ``last`` (the last bin, "``last`` or more", starts where the exact
    chance of reaching it falls below ``tail`` or higher when a roll showed more; at most
    ``max_bins``) and of ``last`` or more."""
    d6, d10 = dice
    small = next(
        (t for t in range(2, max_bins) if pool.success_probability(d6, d10, t) < tail), max_bins
    )
    last = min(max_bins, max(max(counts), small))
    exactly, above = distribution.pool_highest(d6, d10, last - 1)
    return _dice(d6, d10), "highest total", list(enumerate(exactly, start=1)), last, above


def export_about(data):
    """What a roll was about, as the log export writes it."""
    skill = f" + {data['skill']} {data['skill_value']}" if data.get("skill") else ""
    return f"{data.get('attribute', '')} {data.get('attribute_value', '')}{skill}"


def export_rolled(data):
    """(dice, faces, result) of a roll's stored data, as text."""
    d6, d10 = data.get("d6", []), data.get("d10", [])
    chains = ["+".join(map(str, chain)) for chain in d6 + d10]
    return _dice(len(d6), len(d10)), " ".join(chains), f"highest {data.get('highest')}"


def drawn(data):
    """The draws a roll's shown dice must be, in the order they were drawn (``rules.pool.roll``:
    each d6's chain, then each d10's, every explosion in its chain): ``[1, faces, face]`` each,
    as its fair record keeps them (``rolls.dice``)."""
    d6 = [[1, pool.D6, face] for chain in data.get("d6", []) for face in chain]
    return d6 + [[1, pool.D10, face] for chain in data.get("d10", []) for face in chain]


def replay(data, rng):
    """What the dice decide of a roll with ``data``, rolled again with ``rng`` (the fair dice of
    its seed, contribution and number): each field as its data keeps it."""
    rolled = pool.roll(len(data["d6"]), len(data["d10"]), data["target"], rng)
    d6, d10 = [list(c) for c in rolled.d6_chains], [list(c) for c in rolled.d10_chains]
    return {"d6": d6, "d10": d10, "highest": rolled.highest, "success": rolled.success}
