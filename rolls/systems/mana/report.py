"""What the insight pages (``insights``) read of a Mana roll: the distribution of its
successes, and a roll as the log export writes it."""

from rules import distribution, mana


def exact_distribution(dice, counts, *, max_bins, tail):
    """(title, what, chances, last, beyond) of ``dice`` d10: the exact chance of each number of
    successes below ``last`` (the last bin, "``last`` or more", starts where the exact tail
    falls below ``tail`` or higher when a roll showed more; at most ``max_bins``) and of
    ``last`` or more."""
    exactly = distribution.mana_successes(dice)
    tails = [sum(exactly[k:]) for k in range(len(exactly))]
    small = next((k for k, t in enumerate(tails) if t < tail), len(exactly) - 1)
    last = min(len(exactly) - 1, max_bins, max(max(counts), small, 1))
    return f"{dice}d10", "successes", list(enumerate(exactly)), last, tails[last]


def export_about(data):
    """What a roll was about, as the log export writes it."""
    return data.get("skill", "")


def export_rolled(data):
    """(dice, faces, result) of a roll's stored data, as text."""
    faces = " ".join(map(str, data.get("faces", [])))
    return f"{data.get('dice')}d10", faces, f"{data.get('successes')} successes"


def drawn(data):
    """The draws a roll's shown dice must be, in the order they were drawn (``rules.mana.roll``:
    one d10 after the other): ``[1, 10, face]`` each, as its fair record keeps them
    (``rolls.dice``)."""
    return [[1, mana.FACES, face] for face in data.get("faces", [])]


def replay(data, rng):
    """What the dice decide of a roll with ``data``, rolled again with ``rng`` (the fair dice of
    its seed, contribution and number): each field as its data keeps it."""
    rolled = mana.roll(data["dice"], data["target"], rng)
    return {"faces": list(rolled.faces), "successes": rolled.successes, "success": rolled.success}
