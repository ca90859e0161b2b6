"""Fair dice: the derivation, its vectors, its uniformity, and the rolls it serves (rules.fair)."""

import hashlib
import hmac
import math
import random
import re
from collections import Counter
from pathlib import Path
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError, fair, mana, notation, pool

DOC = Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md"

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
CONTRIBUTION = "00112233445566778899aabbccddeeff"
POSITION = 7
HUGE = 2**63  # the range 0..2**63 has 2**63 + 1 faces: almost half the words are rejected

#: Draws 0-7 of a roll using one range for every draw (docs/fair-dice.md, "Test vectors").
VECTORS = {
    (1, 6): [3, 4, 4, 2, 6, 5, 5, 6],
    (1, 10): [9, 6, 2, 10, 10, 9, 5, 6],
    (1, 20): [19, 16, 2, 20, 20, 9, 15, 16],
    (1, 100): [99, 16, 2, 20, 40, 29, 55, 36],
    (1, 1000): [299, 616, 202, 620, 40, 129, 255, 836],
}
#: Single draws of the range 0..2**63, by draw number: 1 and 22 go through rejections.
HUGE_VECTORS = {0: 2904973638684448298, 1: 9073483169580383324, 22: 4811201793576607123}


def words(n, k, seed=SEED, contribution=CONTRIBUTION, position=POSITION):
    """The four big-endian 64-bit words of block ``k`` of draw ``n``, computed here from scratch."""
    message = f"rollroom-dice-v1:{position}:{contribution}:{n}:{k}".encode()
    block = hmac.new(bytes.fromhex(seed), message, hashlib.sha256).digest()
    return [int.from_bytes(block[i : i + 8], "big") for i in range(0, 32, 8)]


def doc_vectors():
    """The vectors block of docs/fair-dice.md, parsed: (inputs, {(a, b): {n: value}})."""
    text = DOC.read_text()
    block = text.split("<!-- vectors:", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    inputs, draws = {}, {}
    for line in block.strip().splitlines():
        if not line.strip():
            continue
        if match := re.fullmatch(r"(\d+)\.\.(\d+)\s+draws 0-(\d+):((?:\s+\d+)+)", line):
            a, b, last, values = match.groups()
            values = [int(v) for v in values.split()]
            assert len(values) == int(last) + 1
            draws.setdefault((int(a), int(b)), {}).update(enumerate(values))
        elif match := re.fullmatch(r"(\d+)\.\.(\d+)\s+draw (\d+): (\d+)", line):
            a, b, n, value = map(int, match.groups())
            draws.setdefault((a, b), {})[n] = value
        else:
            name, value = line.split()
            inputs[name] = value
    return inputs, draws


# --- the documented vectors -----------------------------------------------------------------------


def test_the_doc_states_the_vectors_the_tests_pin():
    inputs, draws = doc_vectors()
    assert inputs == {
        "seed": SEED,
        "commitment": COMMITMENT,
        "contribution": CONTRIBUTION,
        "position": str(POSITION),
    }
    pinned = {key: dict(enumerate(values)) for key, values in VECTORS.items()}
    pinned[(0, HUGE)] = HUGE_VECTORS
    assert draws == pinned


def test_commitment_vector():
    assert fair.commitment(SEED) == COMMITMENT
    assert COMMITMENT == hashlib.sha256(bytes(range(32))).hexdigest()  # of the bytes, not the hex
    assert fair.commitment(SEED.upper()) == COMMITMENT


@pytest.mark.parametrize(("a", "b"), list(VECTORS))
def test_draw_vectors(a, b):
    dice = fair.FairDice(SEED, CONTRIBUTION, POSITION)
    values = [dice.randint(a, b) for _ in range(8)]
    assert values == VECTORS[(a, b)]
    assert dice.draws == [(a, b, value) for value in values]
    assert [fair.derive(SEED, CONTRIBUTION, POSITION, n, a, b) for n in range(8)] == values


def test_huge_range_vectors():
    for n, value in HUGE_VECTORS.items():
        assert fair.derive(SEED, CONTRIBUTION, POSITION, n, 0, HUGE) == value


def test_the_vectors_follow_from_the_words():
    """Without rejection, draw n of any small range is ``a + x mod m`` of block 0's first word."""
    for (a, b), values in VECTORS.items():
        assert values == [a + words(n, 0)[0] % (b - a + 1) for n in range(8)]


def test_the_doc_checker_agrees():
    """The reference checker printed in the doc, run as it is."""
    text = DOC.read_text()
    source = text.split("## A reference checker in Python", 1)[1].split("```python", 1)[1]
    namespace = {}
    exec(source.split("```", 1)[0], namespace)  # our own doc's snippet
    draw, check_roll = namespace["draw"], namespace["check_roll"]
    for (a, b), values in VECTORS.items():
        assert [draw(SEED, CONTRIBUTION, POSITION, n, a, b) for n in range(8)] == values
    for n, value in HUGE_VECTORS.items():
        assert draw(SEED, CONTRIBUTION, POSITION, n, 0, HUGE) == value
    draws = [(1, 20, v) for v in VECTORS[(1, 20)]]
    assert check_roll(SEED, COMMITMENT, CONTRIBUTION, POSITION, draws) is None
    draws[5] = (1, 20, draws[5][2] % 20 + 1)
    assert check_roll(SEED, COMMITMENT, CONTRIBUTION, POSITION, draws) == 5


# --- rejection --------------------------------------------------------------------------------


def test_rejection_takes_the_next_word_of_the_block():
    limit = 2**64 - 2**64 % (HUGE + 1)
    assert limit == HUGE + 1
    first, second, *_ = words(1, 0)
    assert first >= limit > second
    assert HUGE_VECTORS[1] == second % (HUGE + 1) == second


def test_rejection_moves_on_to_the_next_block():
    limit = HUGE + 1
    block0, block1 = words(22, 0), words(22, 1)
    assert all(x >= limit for x in block0)
    assert all(x >= limit for x in block1[:3]) and block1[3] < limit
    assert HUGE_VECTORS[22] == block1[3]


def test_draw_zero_is_accepted_at_once():
    assert words(0, 0)[0] < HUGE + 1
    assert HUGE_VECTORS[0] == words(0, 0)[0]


def test_a_forced_rejection_on_a_d6(monkeypatch):
    """A d6 rejects a word only with probability 4 / 2**64; forced here: every word of block 0
    at the top of the 64-bit range (rejected for a d6) but the third."""
    top = (2**64 - 1).to_bytes(8, "big")
    wanted = (2**64 - 2**64 % 6 - 1 - 3).to_bytes(8, "big")  # the highest accepted word but 3
    calls = []

    def fake_block(key, position, contribution, n, k):
        calls.append((n, k))
        return top + top + wanted + top if k == 0 else top * 4

    monkeypatch.setattr(fair, "_block", fake_block)
    dice = fair.FairDice(SEED, CONTRIBUTION, POSITION)
    assert dice.randint(1, 6) == 1 + int.from_bytes(wanted, "big") % 6
    assert calls == [(0, 0)]

    blocks = iter([top * 4, top * 3 + wanted])
    calls.clear()
    monkeypatch.setattr(fair, "_block", lambda *args: calls.append(args[3:]) or next(blocks))
    assert dice.randint(1, 6) == 1 + int.from_bytes(wanted, "big") % 6
    assert calls == [(1, 0), (1, 1)]


def test_limits_are_exact_multiples():
    for m in (1, 2, 3, 4, 6, 10, 20, 100, 1000, 2**32 + 1, 2**63 + 1, 2**64):
        limit = 2**64 - 2**64 % m
        assert limit % m == 0 and 2**64 - m < limit <= 2**64


# --- determinism and sensitivity ----------------------------------------------------------------


def test_same_inputs_same_draws():
    one, two = (fair.FairDice(SEED, CONTRIBUTION, POSITION) for _ in range(2))
    ranges = [(1, 6), (1, 10), (1, 20), (0, 0), (-5, 5), (1, 1000)] * 5
    assert [one.randint(a, b) for a, b in ranges] == [two.randint(a, b) for a, b in ranges]
    assert one.draws == two.draws


def test_case_of_the_inputs_does_not_matter():
    one = fair.FairDice(SEED, CONTRIBUTION, POSITION)
    two = fair.FairDice(SEED.upper(), CONTRIBUTION.upper(), POSITION)
    assert [one.randint(1, 1000) for _ in range(20)] == [two.randint(1, 1000) for _ in range(20)]
    assert two.contribution == CONTRIBUTION


def draws_of(seed=SEED, contribution=CONTRIBUTION, position=POSITION, count=20):
    dice = fair.FairDice(seed, contribution, position)
    for _ in range(count):
        dice.randint(1, 1000)
    return dice.draws


@pytest.mark.parametrize(
    "changed",
    [
        {"seed": "ff" + SEED[2:]},
        {"seed": SEED[:-1] + "e"},
        {"contribution": CONTRIBUTION[:-1] + "e"},
        {"contribution": CONTRIBUTION + "0"},
        {"position": POSITION + 1},
        {"position": 0},
    ],
)
def test_changed_inputs_change_the_draws_and_verify_says_where(changed):
    genuine = draws_of()
    other = draws_of(**changed)
    assert other != genuine
    first_difference = next(
        n for n, (x, y) in enumerate(zip(genuine, other, strict=True)) if x != y
    )
    inputs = {"seed": SEED, "contribution": CONTRIBUTION, "position": POSITION}
    assert fair.verify_draws(**inputs, draws=genuine) is None
    assert fair.verify_draws(**inputs, draws=other) == first_difference
    assert fair.verify_draws(**{**inputs, **changed}, draws=other) is None
    assert fair.verify_draws(**{**inputs, **changed}, draws=genuine) is not None


@pytest.mark.parametrize("index", [0, 7, 19])
def test_a_changed_draw_is_found(index):
    draws = draws_of()
    a, b, value = draws[index]
    # a wider range that happens to give the same value would not be a change
    wider = next(
        (a, top, value)
        for top in range(b + 1, 2 * b)
        if fair.derive(SEED, CONTRIBUTION, POSITION, index, a, top) != value
    )
    for bad in [(a, b, value % 1000 + 1), wider, (a, b, True), (a, b), "x", None]:
        changed = draws[:index] + [bad] + draws[index + 1 :]
        assert fair.verify_draws(SEED, CONTRIBUTION, POSITION, changed) == index


def test_swapped_draws_are_found():
    """Each draw's number is in its message: two draws swapped do not verify."""
    draws = draws_of()
    assert draws[3] != draws[4]
    draws[3], draws[4] = draws[4], draws[3]
    assert fair.verify_draws(SEED, CONTRIBUTION, POSITION, draws) == 3


def test_draws_are_stored_as_json_lists_too():
    draws = [list(draw) for draw in draws_of()]
    assert fair.verify_draws(SEED, CONTRIBUTION, POSITION, draws) is None
    assert fair.verify_draws(SEED, CONTRIBUTION, POSITION, []) is None


def test_draws_is_a_copy():
    dice = fair.FairDice(SEED, CONTRIBUTION, POSITION)
    dice.randint(1, 6)
    dice.draws.clear()
    assert len(dice.draws) == 1


# --- inputs -----------------------------------------------------------------------------------


def test_new_seed_and_contribution():
    seeds = {fair.new_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(re.fullmatch(r"[0-9a-f]{64}", seed) for seed in seeds)
    assert all(fair.check_seed(seed) == seed for seed in seeds)
    contributions = {fair.new_contribution() for _ in range(50)}
    assert len(contributions) == 50
    assert all(re.fullmatch(r"[0-9a-f]{32}", c) for c in contributions)
    assert all(fair.check_contribution(c) == c for c in contributions)


@pytest.mark.parametrize("text", ["0" * 16, "A" * 17, "aBcDeF0123456789" * 4, "f" * 33])
def test_contributions_accepted(text):
    assert fair.check_contribution(text) == text.lower()


@pytest.mark.parametrize(
    "text", ["0" * 15, "0" * 65, "g" * 16, "0" * 15 + " ", " " + "0" * 16, "", None, 12, b"0" * 16]
)
def test_contributions_refused(text):
    with pytest.raises(RulesError, match="16 to 64 hex characters"):
        fair.check_contribution(text)
    with pytest.raises(RulesError):
        fair.FairDice(SEED, text, 0)


@pytest.mark.parametrize("text", ["0" * 63, "0" * 65, "z" * 64, "", None, bytes(32)])
def test_seeds_refused(text):
    with pytest.raises(RulesError, match="64 hex characters"):
        fair.check_seed(text)
    with pytest.raises(RulesError):
        fair.FairDice(text, CONTRIBUTION, 0)
    with pytest.raises(RulesError):
        fair.commitment(text)


@pytest.mark.parametrize("position", [-1, True, 1.0, "3", None])
def test_positions_refused(position):
    with pytest.raises(RulesError, match="position"):
        fair.FairDice(SEED, CONTRIBUTION, position)


@pytest.mark.parametrize(("a", "b"), [(2, 1), (0, 2**64), (1.0, 6), (1, True), ("1", "6")])
def test_ranges_refused(a, b):
    dice = fair.FairDice(SEED, CONTRIBUTION, 0)
    with pytest.raises(RulesError, match="range"):
        dice.randint(a, b)
    assert dice.draws == []


def test_widest_and_narrowest_ranges():
    dice = fair.FairDice(SEED, CONTRIBUTION, 0)
    assert dice.randint(5, 5) == 5
    assert 0 <= dice.randint(0, 2**64 - 1) < 2**64
    assert -(2**64) <= dice.randint(-(2**64), -1) <= -1
    assert fair.verify_draws(SEED, CONTRIBUTION, 0, dice.draws) is None


# --- properties -------------------------------------------------------------------------------

hexes = st.text("0123456789abcdefABCDEF", min_size=16, max_size=64)
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
ranges = st.tuples(st.integers(-(10**6), 10**6), st.integers(0, 2**64 - 1)).map(
    lambda t: (t[0], t[0] + t[1])
)


@given(seeds, hexes, st.integers(0, 10**9), st.lists(ranges, max_size=30))
def test_values_stay_in_range_and_verify(seed, contribution, position, asked):
    dice = fair.FairDice(seed, contribution, position)
    values = [dice.randint(a, b) for a, b in asked]
    assert all(a <= v <= b for (a, b), v in zip(asked, values, strict=True))
    assert dice.draws == [(a, b, v) for (a, b), v in zip(asked, values, strict=True)]
    assert fair.verify_draws(seed, contribution, position, dice.draws) is None
    assert fair.verify_draws(seed, contribution.lower(), position, dice.draws) is None


@given(seeds, hexes, st.integers(0, 10**9), st.lists(ranges, min_size=1, max_size=10), st.data())
def test_a_wrong_value_is_found(seed, contribution, position, asked, data):
    dice = fair.FairDice(seed, contribution, position)
    for a, b in asked:
        dice.randint(a, b)
    draws = dice.draws
    index = data.draw(st.integers(0, len(draws) - 1))
    a, b, value = draws[index]
    if a == b:
        draws[index] = (a, b, value + 1)  # a one-face die: a value outside its range
    else:
        draws[index] = (a, b, data.draw(st.integers(a, b).filter(lambda v: v != value)))
    assert fair.verify_draws(seed, contribution, position, draws) == index


# --- uniformity -------------------------------------------------------------------------------


def chi_square_quantile(df, p):
    """The ``p`` quantile of chi-square with ``df`` degrees of freedom (Wilson-Hilferty)."""
    z = NormalDist().inv_cdf(p)
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_wilson_hilferty_is_close():
    # tabulated 0.999 quantiles of chi-square (Wilson-Hilferty errs high by under 2%, at df 3)
    for df, table in [(3, 16.266), (5, 20.515), (9, 27.877), (19, 43.820), (99, 148.230)]:
        assert chi_square_quantile(df, 0.999) == pytest.approx(table, rel=0.02)


@pytest.mark.parametrize("faces", [4, 6, 8, 10, 12, 20, 100])
def test_chi_square_goodness_of_fit(faces):
    """60,000 dice per die type over 600 rolls of 100 (each with its own contribution and
    position, from a fixed sequence): the faces' counts fit the uniform distribution."""
    sequence = random.Random(f"fair dice chi-square d{faces}")
    seed = sequence.randbytes(32).hex()
    counts = Counter()
    for position in range(600):
        dice = fair.FairDice(seed, sequence.randbytes(16).hex(), position)
        counts.update(dice.randint(1, faces) for _ in range(100))
    assert sum(counts.values()) == 60_000 and set(counts) == set(range(1, faces + 1))
    expected = 60_000 / faces
    statistic = sum((counts[face] - expected) ** 2 / expected for face in range(1, faces + 1))
    assert statistic < chi_square_quantile(faces - 1, 0.999)


# --- the rolls, with fair dice ------------------------------------------------------------------


def doc_rolls():
    """The whole rolls' block of docs/fair-dice.md, parsed: for each, ``kind`` (pool, mana or
    free), ``asked`` (as the block writes it), ``position``, ``draws`` [(a, b, value)] and
    ``shows`` (what the roll shows, as the block writes it)."""
    text = DOC.read_text()
    if "<!-- rolls:" not in text:
        return []  # the test that the block covers every kind fails
    block = text.split("<!-- rolls:", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    rolls = []
    for line in block.strip().splitlines():
        if match := re.fullmatch(r"(pool|mana|free) (.+) at (\d+)", line):
            kind, asked, position = match.groups()
            rolls.append({"kind": kind, "asked": asked, "position": int(position)})
        elif match := re.fullmatch(r"  draws((?: \d+\.\.\d+:\d+)+)", line):
            draws = [re.fullmatch(r"(\d+)\.\.(\d+):(\d+)", draw) for draw in match[1].split()]
            rolls[-1]["draws"] = [tuple(map(int, draw.groups())) for draw in draws]
        elif match := re.fullmatch(r"  shows (.+)", line):
            rolls[-1]["shows"] = match[1]
        else:
            raise AssertionError(f"not a line of the rolls' block: {line!r}")
    return rolls


def chains(chains):
    return " ".join(f"({' '.join(map(str, chain))})" for chain in chains)


def roll_as_doc(kind, asked, rng):
    """Roll what the doc's rolls' block ``asked`` with ``rng``, and write what it shows as the
    block does."""
    outcome = {True: "success", False: "failure"}
    if kind == "pool":
        pattern = r"(\d+)d6 \+ (\d+)d10(?: shift (\d+)d6 \+ (\d+)d10)? vs (\d+)"
        d6, d10, s6, s10, tn = (int(n or 0) for n in re.fullmatch(pattern, asked).groups())
        rolled = pool.roll(d6 - s6, d10 - s10, tn, rng)  # the shifted dice draw nothing
        return (
            f"d6 {chains(rolled.d6_chains)} d10 {chains(rolled.d10_chains)} "
            f"highest {rolled.highest} {outcome[rolled.success]}"
        )
    if kind == "mana":
        dice, difficulty = map(int, re.fullmatch(r"(\d+)d10 vs (\d+)", asked).groups())
        rolled = mana.roll(dice, difficulty, rng)
        faces = " ".join(map(str, rolled.faces))
        return f"faces {faces} successes {rolled.successes} {outcome[rolled.success]}"
    typed = notation.parse(asked)
    rolled = notation.roll(typed, rng)
    # What the log keeps reads back to what was typed (rolls.dice rolls it again from it).
    assert notation.logged(rolled.expression, rolled.target) == typed
    target = "" if rolled.target is None else f" vs {rolled.target}"
    return f"{rolled.expression}{target}: {rolled.detail}"


@pytest.mark.parametrize("index", range(len(doc_rolls())))
def test_the_docs_whole_rolls(index):
    """Each whole roll of docs/fair-dice.md: the draws it makes and what it shows."""
    roll = doc_rolls()[index]
    dice = fair.FairDice(SEED, CONTRIBUTION, roll["position"])
    assert roll_as_doc(roll["kind"], roll["asked"], dice) == roll["shows"]
    assert dice.draws == roll["draws"]
    assert fair.verify_draws(SEED, CONTRIBUTION, roll["position"], roll["draws"]) is None


def test_the_doc_states_the_caps_the_rolls_use():
    """How many times a die is rolled again, as each roll's module caps it (a checker that
    draws once more, or once less, reads every later draw of the roll as another die)."""
    text = " ".join(DOC.read_text().split())
    which = text.split("## Which draw is which die", 1)[1].split("## ", 1)[0]
    pool_part = which.split("* **Pool roll**", 1)[1].split("* **", 1)[0]
    free_part = which.split("* **Free roll**", 1)[1]
    for part, cap in ((pool_part, pool.MAX_EXPLOSIONS), (free_part, notation.MAX_EXPLOSIONS)):
        assert f"fewer than {cap} re-rolls" in part
        assert f"at most {cap + 1} draws" in part
    assert "every face of a chain is counted on its own" in text


def test_the_docs_whole_rolls_cover_what_a_checker_gets_wrong():
    """A Pool roll, a Pool shift, a Mana roll, a free roll with a target and one that counts
    exploding dice, with a chain whose faces each count."""
    rolls = doc_rolls()
    asked = {(roll["kind"], roll["asked"]) for roll in rolls}
    assert {kind for kind, _ in asked} == {"pool", "mana", "free"}
    assert any(kind == "pool" and " shift " in text for kind, text in asked)
    assert any(kind == "free" and " vs " in text for kind, text in asked)
    counting = [roll for roll in rolls if "!>=" in roll["asked"]]
    assert counting and "10!*, 10!*, 9*" in counting[0]["shows"]


@given(seeds, hexes, st.integers(0, 10**6), st.integers(0, 10), st.integers(0, 10))
def test_rolls_are_reproducible_from_their_inputs(seed, contribution, position, d6, d10):
    """Any Pool, Mana or free roll: a fresh FairDice of the same inputs gives the same result,
    and the recorded draws verify."""
    rolls = [
        lambda rng: pool.roll(max(d6, 1), d10, 7, rng),
        lambda rng: mana.roll(d6 + d10 + 1, 2, rng),
        lambda rng: notation.roll(notation.parse(f"{d6 + 1}d6! + {d10 + 1}d10kh1 - d4"), rng),
    ]
    for roll in rolls:
        dice = fair.FairDice(seed, contribution, position)
        again = fair.FairDice(seed, contribution, position)
        assert roll(dice) == roll(again)
        assert dice.draws == again.draws
        assert fair.verify_draws(seed, contribution, position, dice.draws) is None
