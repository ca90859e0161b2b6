"""Free dice notation: parsing, scripted rolls, refusals and exact odds (rules.notation).

The odds are checked against computations that share nothing with the module: hand-written
formulas over itertools.product, every path of the roll procedure itself (a replaying dice
source that branches on each face), and icepool for sizes too big to enumerate.
"""

import json
import random
from collections import defaultdict
from fractions import Fraction
from itertools import product

import icepool
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rules import MAX_DICE, MAX_TARGET, RulesError
from rules import notation as N
from tests.rules.scripted_rng import ScriptedRng

CAP = N.MAX_EXPLOSIONS


def rolled(text, *faces, chance=None):
    rng = ScriptedRng(*faces)
    outcome = N.roll(N.parse(text), rng, chance)
    assert rng.faces == [], "every scripted face is used"
    return outcome, rng.calls


# --- parsing to the canonical text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical", "target"),
    [
        ("2d6+3", "2d6+3", None),
        ("d20", "1d20", None),
        ("D20", "1d20", None),
        ("4d6kh3", "4d6kh3", None),
        ("4d6KL1", "4d6kl1", None),
        ("4d6dl1", "4d6dl1", None),
        ("4d6dh1", "4d6dh1", None),
        ("2d20kh1", "2d20kh1", None),
        ("d20 adv", "2d20kh1", None),
        ("d20 advantage", "2d20kh1", None),
        ("d20 dis", "2d20kl1", None),
        ("1d20+5 disadvantage vs 12", "2d20kl1+5", 12),
        ("d20+1d4+5 adv vs 15", "2d20kh1+1d4+5", 15),
        ("d20+5 vs 15 adv", "2d20kh1+5", 15),
        ("3d6!", "3d6!", None),
        ("6d10>=8", "6d10>=8", None),
        ("6d10<=3", "6d10<=3", None),
        ("6d10>=8!", "6d10!>=8", None),
        ("6d10 ! >= 8 vs 3", "6d10!>=8", 3),
        ("d%", "1d100", None),
        ("2d%+1", "2d100+1", None),
        (" 2 d 6 + 3 ", "2d6+3", None),
        ("2d6 + 3 VS 10", "2d6+3", 10),
        ("(1d4+1)*2", "(1d4+1)*2", None),
        ("2*(1d4+1)", "2*(1d4+1)", None),
        ("((2d6))", "2d6", None),
        ("(2d6)+(3)", "2d6+3", None),
        ("1+(2+3)", "1+(2+3)", None),
        ("(1+2)+3", "1+2+3", None),
        ("1-(2-3)", "1-(2-3)", None),
        ("-1d4", "-1d4", None),
        ("-(1d4+2)", "-(1d4+2)", None),
        ("2*-3", "2*(-3)", None),
        ("2--3", "2-(-3)", None),
        ("+3+1d6", "3+1d6", None),
        ("-2*1d6", "-2*1d6", None),
        ("3d4 - 1d6", "3d4-1d6", None),
        ("0", "0", None),
        ("7 vs 7", "7", 7),
        ("1d1", "1d1", None),
    ],
)
def test_canonical_text(text, canonical, target):
    notation = N.parse(text)
    assert (notation.text, notation.target) == (canonical, target)
    again = canonical if target is None else f"{canonical} vs {target}"
    assert N.parse(again) == notation


def test_groups_in_order_of_appearance():
    notation = N.parse("(2d6+1d4)*2 - 3d8kh1")
    assert [group.text for group in notation.groups] == ["2d6", "1d4", "3d8kh1"]
    assert notation.groups[2] == N.Dice(3, 8, keep="kh", keep_count=1)


# --- scripted rolls -------------------------------------------------------------------------------


def test_the_example_as_data():
    outcome, calls = rolled("4d6kh3+3 vs 15", 6, 5, 3, 1, chance=Fraction(133, 216))
    assert calls == [(1, 6)] * 4
    assert (outcome.total, outcome.success) == (17, True)
    data = outcome.as_data()
    assert data == {
        "expression": "4d6kh3+3",
        "target": 15,
        "total": 17,
        "success": True,
        "chance": "133/216",
        "groups": [
            {
                "notation": "4d6kh3",
                "faces": 6,
                "dice": [{"value": 6}, {"value": 5}, {"value": 3}, {"value": 1, "dropped": True}],
                "value": 14,
            }
        ],
        "detail": "4d6kh3 (6, 5, 3, ~~1~~) + 3 = 17 vs 15: success",
    }
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["expression", "target", "total", "success", "chance", "groups", "detail"]


def test_without_target_the_keys_are_absent():
    outcome, _ = rolled("2d6+3", 2, 5)
    assert outcome.success is None
    assert outcome.as_data() == {
        "expression": "2d6+3",
        "total": 10,
        "groups": [
            {"notation": "2d6", "faces": 6, "dice": [{"value": 2}, {"value": 5}], "value": 7}
        ],
        "detail": "2d6 (2, 5) + 3 = 10",
    }


def test_target_without_a_chance_given_leaves_chance_out():
    outcome, _ = rolled("1d20 vs 11", 10)
    data = outcome.as_data()
    assert (data["success"], "chance" in data) == (False, False)
    assert outcome.detail == "1d20 (10) = 10 vs 11: failure"


def test_chance_only_with_a_target():
    with pytest.raises(RulesError, match="target"):
        N.roll(N.parse("1d6"), ScriptedRng(3), Fraction(1, 2))
    with pytest.raises(RulesError, match="Fraction"):
        N.roll(N.parse("1d6 vs 3"), ScriptedRng(3), 0.5)
    with pytest.raises(RulesError, match="parsed"):
        N.roll("1d6", ScriptedRng(3))


@pytest.mark.parametrize(
    ("text", "faces", "dice", "value", "detail"),
    [
        ("4d6kh3", (2, 5, 5, 1), [2, 5, 5, "~1"], 12, "4d6kh3 (2, 5, 5, ~~1~~) = 12"),
        ("4d6kl1", (3, 1, 1, 6), ["~3", 1, "~1", "~6"], 1, "4d6kl1 (~~3~~, 1, ~~1~~, ~~6~~) = 1"),
        ("4d6dl1", (4, 4, 4, 4), [4, 4, 4, "~4"], 12, "4d6dl1 (4, 4, 4, ~~4~~) = 12"),
        ("4d6dh2", (6, 2, 6, 3), ["~6", 2, "~6", 3], 5, "4d6dh2 (~~6~~, 2, ~~6~~, 3) = 5"),
        ("4d6kh4", (1, 2, 3, 4), [1, 2, 3, 4], 10, "4d6kh4 (1, 2, 3, 4) = 10"),
        ("d20 adv", (7, 15), ["~7", 15], 15, "2d20kh1 (~~7~~, 15) = 15"),
        ("d20 dis", (7, 15), [7, "~15"], 7, "2d20kl1 (7, ~~15~~) = 7"),
        ("d20 adv", (9, 9), [9, "~9"], 9, "2d20kh1 (9, ~~9~~) = 9"),
        ("6d10>=8", (8, 3, 10, 7, 1, 9), ["8*", 3, "10*", 7, 1, "9*"], 3, None),
        ("5d6<=2", (1, 2, 3, 6, 2), ["1*", "2*", 3, 6, "2*"], 3, "5d6<=2 (1*, 2*, 3, 6, 2*) = 3"),
        ("3d6!", (6, 6, 2, 4, 6, 1), ["6!", "6!", 2, 4, "6!", 1], 25, None),
        ("2d6!>=5", (6, 5, 3), ["6!*", "5*", 3], 2, "2d6!>=5 (6!*, 5*, 3) = 2"),
        ("2d6!<=2", (6, 1, 2), ["6!", "1*", "2*"], 2, "2d6!<=2 (6!, 1*, 2*) = 2"),
    ],
)
def test_scripted_groups(text, faces, dice, value, detail):
    outcome, calls = rolled(text, *faces)
    (group,) = outcome.groups
    assert len(calls) == len(faces)
    shown = []
    for die in group.dice:
        mark = ("~" if die.dropped else "") + str(die.value)
        mark += ("!" if die.exploded else "") + ("*" if die.hit else "")
        shown.append(mark if mark != str(die.value) else die.value)
    assert shown == dice
    assert group.value == outcome.total == value
    if detail:
        assert outcome.detail == detail


def test_explosion_chain_dice_entries():
    outcome, calls = rolled("3d6!", 6, 6, 2, 4, 6, 1)
    assert calls == [(1, 6)] * 6
    assert outcome.as_data()["groups"][0]["dice"] == [
        {"value": 6, "exploded": True},
        {"value": 6, "exploded": True},
        {"value": 2},
        {"value": 4},
        {"value": 6, "exploded": True},
        {"value": 1},
    ]
    assert outcome.detail == "3d6! (6!, 6!, 2, 4, 6!, 1) = 25"


def test_explosions_stop_at_the_cap_and_the_last_maximum_counts():
    outcome, calls = rolled("1d2!", *[2] * (CAP + 1))
    assert len(calls) == CAP + 1
    (group,) = outcome.groups
    assert [die.exploded for die in group.dice] == [True] * CAP + [False]
    assert outcome.total == 2 * (CAP + 1)
    # the next die starts its own chain
    outcome, calls = rolled("2d2!", *[2] * (CAP + 1), 1)
    assert outcome.total == 2 * (CAP + 1) + 1


def test_counted_hits_in_detail_and_data():
    outcome, _ = rolled("6d10>=8 vs 2", 8, 3, 10, 7, 1, 9, chance=Fraction(1, 3))
    assert outcome.detail == "6d10>=8 (8*, 3, 10*, 7, 1, 9*) = 3 vs 2: success"
    dice = outcome.as_data()["groups"][0]["dice"]
    assert dice[0] == {"value": 8, "hit": True}
    assert dice[1] == {"value": 3}


def test_arithmetic_parentheses_and_order_of_rolls():
    outcome, calls = rolled("(1d4+1)*2 - 2d6kh1 + -1d8", 3, 2, 5, 7)
    assert calls == [(1, 4), (1, 6), (1, 6), (1, 8)]
    assert outcome.total == (3 + 1) * 2 - 5 - 7 == -4
    assert outcome.detail == "(1d4 (3) + 1) * 2 - 2d6kh1 (~~2~~, 5) + (-1d8 (7)) = -4"
    assert [group.value for group in outcome.groups] == [3, 5, 7]


def test_negative_total_and_failure():
    outcome, _ = rolled("1d4-10 vs 1", 4)
    assert (outcome.total, outcome.success) == (-6, False)
    assert outcome.detail == "1d4 (4) - 10 = -6 vs 1: failure"


def test_constant_times_group_and_unary_minus():
    outcome, _ = rolled("-2*(1d6-1)", 5)
    assert outcome.total == -8
    assert outcome.detail == "-2 * (1d6 (5) - 1) = -8"


def test_same_group_twice_shows_each_roll():
    outcome, _ = rolled("1d6+1d6", 2, 5)
    assert outcome.detail == "1d6 (2) + 1d6 (5) = 7"


def test_rng_is_asked_per_die_with_its_faces():
    _, calls = rolled("1d4+2d%+1d1", 1, 50, 100, 1)
    assert calls == [(1, 4), (1, 100), (1, 100), (1, 1)]


# --- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("", "Nothing"),
        ("   ", "Nothing"),
        ("x" * (N.MAX_TEXT + 1), "at most"),
        ("hello", "Cannot read"),
        ("2d", "faces"),
        ("2d6+", "too soon"),
        ("2d6 3", "Cannot read"),
        ("(2d6", "not closed"),
        ("2d6)", "Cannot read"),
        ("()", "never opened"),
        ("1000d1000000", "at most"),
        ("101d6", f"at most {MAX_DICE} dice"),
        ("60d6+41d6", f"at most {MAX_DICE} dice"),
        ("99d6+d20 adv", f"at most {MAX_DICE} dice"),
        ("1d0", "faces"),
        (f"1d{N.MAX_FACES + 1}", "faces"),
        ("0d6", "at least 1 die"),
        ("1d1!", "2 or more faces"),
        ("4d6kh5", "keep 1 to 4"),
        ("4d6kl0", "keep 1 to 4"),
        ("4d6dl4", "drop 1 to 3"),
        ("1d20dl1", "only die"),
        ("4d6k3", "kh3"),
        ("4d6d1", "dl1"),
        ("4d6p1", "dl1"),
        ("3d6e6", "!"),
        ("2d6x3", "*"),
        ("4d6kh", "how many dice to keep"),
        ("4d6dl", "how many dice to drop"),
        ("4d6kh3kl1", "once"),
        ("3d6!!", "once"),
        ("6d10>=8>=9", "once"),
        ("4d6kh3!", "not both"),
        ("4d6kh3>=5", "not both"),
        ("6d10>8", ">=8"),
        ("6d10<3", "<=3"),
        ("6d10=8", ">=8"),
        ("6d10=>8", ">=8"),
        ("6d10>=11", "1 to 10"),
        ("6d10<=0", "1 to 10"),
        ("6d10>=", ">=8"),
        ("1d6*1d6", "whole number"),
        ("(1d6+1)*(1d4)", "whole number"),
        ("((((((1d6))))))", "nested"),
        ("((((1))))+(((((2)))))", "nested"),
        ("1d6 vs 0", "1..1000"),
        (f"1d6 vs {MAX_TARGET + 1}", "1..1000"),
        ("1d6 vs", "vs 15"),
        ("1d6 vs 3 vs 4", "Cannot read"),
        ("1d6 vs -3", "vs 15"),
        ("d20 adv adv", "Cannot read"),
        ("2d6 adv", "plain d20"),
        ("d20+d20 adv", "plain d20"),
        ("2d20 dis", "plain d20"),
        ("9" * 99, "at most"),
        ("1000000*1000000", "total"),
        ("100d1000*1000", "total"),
        ("2d6 ½", "not part"),
        ("2d6＋3", "not part"),
        ("２d6", "not part"),
        ("2d6#", "not part"),
        ("2d6 [fire]", "not part"),
        ("1/2", "not part"),
    ],
)
def test_refused_with_a_useful_message(text, word):
    with pytest.raises(RulesError) as refusal:
        N.parse(text)
    assert word in str(refusal.value)


@pytest.mark.parametrize("text", [None, 3, b"2d6"])
def test_refuses_what_is_not_text(text):
    with pytest.raises(RulesError, match="text"):
        N.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "(" * 99,
        "(" * 50 + "1" + ")" * 49,
        "1d1000000" * 20,
        "1d1000000" * 11,
        "9" * 99,
        "9" * 100000,
        "1000d1000000",
        "((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))",
        "-" * 99 + "(",
        "d" * 99,
        "1d6!" * 25,
        "1+" * 50,
        "\u202e2d6",
        "2d6\x00",
        "🎲" * 10,
        "100d1000-50000 vs 1000",
        "100d6kh50 vs 300",
        "100d2! vs 1000",
    ],
)
def test_hostile_inputs_are_refused(text):
    with pytest.raises(RulesError):
        N.parse(text)


@pytest.mark.parametrize(
    "text",
    ["100d6 vs 350", "20d20 vs 210", "10d6! vs 40", "100d10>=8 vs 30", "2d20kh1+20d6+5 vs 80"],
)
def test_big_rolls_keep_their_exact_odds(text):
    odds = N.chance(N.parse(text))
    assert isinstance(odds, Fraction) and 0 < odds < 1


def test_costly_odds_are_refused_but_the_roll_is_not():
    with pytest.raises(RulesError, match="exact odds"):
        N.parse("100d1000-50000 vs 1000")
    notation = N.parse("100d1000-50000")
    assert N.chance(notation) is None
    assert N.chance_cost(notation) == 0
    outcome = N.roll(notation, random.Random(1))
    assert -49900 <= outcome.total <= 50000


def test_chance_refuses_a_hand_built_costly_notation():
    tree = N.Operation("-", N.Dice(100, 1000), N.Number(50000))
    with pytest.raises(RulesError, match="exact odds"):
        N.chance(N.Notation(text="100d1000-50000", target=1000, tree=tree))


# --- exact odds against hand-written brute force -------------------------------------------------


def brute(faces_per_die, total, target):
    """P(total(faces) >= target) over every combination of faces."""
    ranges = [range(1, faces + 1) for faces in faces_per_die]
    hits = whole = 0
    for faces in product(*ranges):
        whole += 1
        hits += total(faces) >= target
    return Fraction(hits, whole)


def exploding_die(faces):
    """{total: probability} of one exploding die with the cap, from its chains."""
    die = {}
    for maxima in range(CAP + 1):  # maxima, then a face below the maximum
        for last in range(1, faces):
            die[maxima * faces + last] = Fraction(1, faces ** (maxima + 1))
    die[(CAP + 1) * faces] = Fraction(1, faces ** (CAP + 1))
    assert sum(die.values()) == 1
    return die


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("2d6+3 vs 10", [6, 6], lambda f: f[0] + f[1] + 3),
        ("4d6kh3 vs 12", [6] * 4, lambda f: sum(sorted(f)[1:])),
        ("4d6dl1 vs 12", [6] * 4, lambda f: sum(sorted(f)[1:])),
        ("4d6dh1 vs 8", [6] * 4, lambda f: sum(sorted(f)[:3])),
        ("3d6kl2 vs 5", [6] * 3, lambda f: sum(sorted(f)[:2])),
        ("2d20kh1 vs 15", [20, 20], max),
        ("d20 adv vs 15", [20, 20], max),
        ("2d20kl1 vs 11", [20, 20], min),
        ("d20+5 dis vs 16", [20, 20], lambda f: min(f) + 5),
        ("6d6>=5 vs 3", [6] * 6, lambda f: sum(x >= 5 for x in f)),
        ("5d6<=2 vs 2", [6] * 5, lambda f: sum(x <= 2 for x in f)),
        ("3d4 - 1d6 vs 2", [4, 4, 4, 6], lambda f: f[0] + f[1] + f[2] - f[3]),
        ("(1d4+1)*2 vs 6", [4], lambda f: (f[0] + 1) * 2),
        ("-1d6+10 vs 7", [6], lambda f: 10 - f[0]),
        ("2*1d6-3*1d4 vs 1", [6, 4], lambda f: 2 * f[0] - 3 * f[1]),
        ("1d4-2d4kh1+1d6 vs 3", [4, 4, 4, 6], lambda f: f[0] - max(f[1], f[2]) + f[3]),
        ("-(1d4-1d4)+1d4>=3 vs 1", [4, 4, 4], lambda f: f[1] - f[0] + (f[2] >= 3)),
        ("3d6 vs 1", [6] * 3, sum),
        ("3d6 vs 18", [6] * 3, sum),
        ("3d6 vs 19", [6] * 3, sum),
        ("1d6-1d6 vs 5", [6, 6], lambda f: f[0] - f[1]),
        ("1d6-1d6 vs 6", [6, 6], lambda f: f[0] - f[1]),
        ("0*1d6+3 vs 3", [6], lambda f: 3),
        ("7 vs 8", [], lambda f: 7),
        ("d%+d% vs 150", [100, 100], sum),
    ],
)
def test_chance_against_brute_force(text, faces, total):
    notation = N.parse(text)
    assert N.chance(notation) == brute(faces, total, notation.target)


@pytest.mark.parametrize(("faces", "target"), [(4, 9), (4, 2), (2, 30), (6, 13), (3, 125)])
def test_exploding_chance_from_chains(faces, target):
    die = exploding_die(faces)
    expected = sum(
        (p * q for (a, p), (b, q) in product(die.items(), die.items()) if a + b >= target),
        Fraction(0),
    )
    assert N.chance(N.parse(f"2d{faces}! vs {target}")) == expected


def test_exploding_2d4_closed_form():
    # 2d4! >= 9: both dice below 4 can reach at most 6, so some die explodes. Hand count over
    # one die's totals t (P = 4**-(k+1) for t = 4k + r, r = 1..3): P(a + b >= 9).
    die = exploding_die(4)
    miss = sum(die[a] * die[b] for a in die for b in die if a + b < 9)
    assert N.chance(N.parse("2d4! vs 9")) == 1 - miss == Fraction(1, 4)


def test_exploding_counted_hits():
    # 2d6!>=5: a chain of k sixes then r < 6 has k + (r == 5) hits.
    one = defaultdict(Fraction)
    for maxima in range(CAP + 1):
        for last in range(1, 6):
            one[maxima + (last >= 5)] += Fraction(1, 6 ** (maxima + 1))
    one[CAP + 1] += Fraction(1, 6 ** (CAP + 1))
    for target in (1, 2, 3, 5):
        expected = sum(p * q for a, p in one.items() for b, q in one.items() if a + b >= target)
        assert N.chance(N.parse(f"2d6!>=5 vs {target}")) == expected


def test_chance_without_target_is_none():
    assert N.chance(N.parse("2d6")) is None


# --- exact odds against icepool (too big to enumerate) --------------------------------------------


def ice_chance(die, target):
    return Fraction(die.probability(">=", target))


@pytest.mark.parametrize(
    ("text", "build"),
    [
        ("10d6 vs 35", lambda: 10 @ icepool.d6),
        ("20d6+7 vs 80", lambda: 20 @ icepool.d6 + 7),
        ("5d10kh3 vs 22", lambda: icepool.d10.pool(5).highest(3).sum()),
        ("6d8kl2 vs 5", lambda: icepool.d8.pool(6).lowest(2).sum()),
        ("8d6dl2 vs 25", lambda: icepool.d6.pool(8).highest(6).sum()),
        ("12d10>=8 vs 5", lambda: 12 @ icepool.d10.map(lambda f: int(f >= 8))),
        ("4d6! vs 20", lambda: 4 @ icepool.d6.explode(depth=CAP)),
        ("3d10!-2d4 vs 15", lambda: 3 @ icepool.d10.explode(depth=CAP) - 2 @ icepool.d4),
        ("d20+1d4+5 adv vs 18", lambda: icepool.d20.pool(2).highest(1).sum() + icepool.d4 + 5),
        ("3*2d6-2*(1d8+1) vs 10", lambda: 3 * (2 @ icepool.d6) - 2 * (icepool.d8 + 1)),
    ],
)
def test_chance_against_icepool(text, build):
    notation = N.parse(text)
    assert N.chance(notation) == ice_chance(build(), notation.target)


def test_exploding_counted_against_icepool():
    # a d10 chain with r re-rolls left: a 10 counts and rolls again while r > 0
    def roll_on(rest):
        return lambda face: rest + 1 if face == 10 else int(face >= 8)

    chain = icepool.d10.map(lambda face: int(face >= 8))  # no re-roll left: counts as it is
    for _ in range(CAP):
        chain = icepool.d10.map(roll_on(chain))
    notation = N.parse("5d10!>=8 vs 4")
    assert N.chance(notation) == ice_chance(5 @ chain, 4)


# --- every path of the roll procedure -----------------------------------------------------------


class Unplayed(Exception):
    """The replaying dice source ran out: the roll asks for a die of ``faces`` faces."""

    def __init__(self, faces):
        self.faces = faces


class Replay:
    def __init__(self, faces):
        self.faces = faces
        self.used = 0

    def randint(self, low, high):
        assert low == 1
        if self.used == len(self.faces):
            raise Unplayed(high)
        self.used += 1
        return self.faces[self.used - 1]


def every_total(notation):
    """{total: probability} over every path the roll procedure can take (each face equally
    likely), by replaying it and branching where it asks for another die."""
    totals = defaultdict(Fraction)
    paths = [((), Fraction(1))]
    while paths:
        faces, weight = paths.pop()
        try:
            outcome = N.roll(notation, Replay(faces))
        except Unplayed as need:
            paths += [(faces + (face,), weight / need.faces) for face in range(1, need.faces + 1)]
            continue
        totals[outcome.total] += weight
    assert sum(totals.values()) == 1
    return totals


def paths_bound(notation):
    bound = 1
    for group in notation.groups:
        per_die = (CAP + 1) * (group.faces - 1) + 1 if group.explode else group.faces
        bound *= per_die**group.count
    return bound


@st.composite
def group_texts(draw, most_faces=6):
    """A dice group as a player may type it (small enough to enumerate, mostly)."""
    count = draw(st.integers(1, 3))
    faces = draw(st.sampled_from([f for f in (1, 2, 3, 4, 6, 8, 10, 20) if f <= most_faces]))
    kind = draw(st.sampled_from(["plain", "keep", "explode", "count", "explode count"]))
    if kind == "keep" and count > 1:
        keep = draw(st.sampled_from(["kh", "kl", "dh", "dl"]))
        most = count if keep[0] == "k" else count - 1
        return f"{count}d{faces}{keep}{draw(st.integers(1, most))}"
    text = f"{count}d{faces}" if count > 1 or draw(st.booleans()) else f"d{faces}"
    if "explode" in kind and faces > 1:
        text += "!"
    if "count" in kind:
        text += f"{draw(st.sampled_from(['>=', '<=']))}{draw(st.integers(1, faces))}"
    return text


@st.composite
def operands(draw, depth=0, most_faces=6):
    kinds = ["group", "group", "number"] + (["sum", "minus", "times"] if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    inner = operands(depth + 1, most_faces)
    if kind == "group":
        return draw(group_texts(most_faces))
    if kind == "number":
        return str(draw(st.integers(0, 9)))
    if kind == "sum":
        return f"({draw(inner)} {draw(st.sampled_from('+-'))} {draw(inner)})"
    if kind == "minus":
        return f"-{draw(inner)}"
    return f"{draw(st.integers(-3, 3))}*({draw(inner)})"


@st.composite
def typed(draw, most_faces=6):
    """Text a player may type: an expression, maybe advantage, maybe a target."""
    text = draw(operands(most_faces=most_faces))
    if draw(st.integers(0, 5)) == 0:
        text += f" + d20 {draw(st.sampled_from(['adv', 'dis']))}"
    target = draw(st.one_of(st.none(), st.integers(1, 40)))
    if target is not None:
        text += f" vs {target}"
    return text.upper() if draw(st.booleans()) else text


@given(typed(), st.integers(0, 2**32))
def test_rolls_and_odds_agree_with_every_path(text, seed):
    notation = N.parse(text)
    assume(paths_bound(notation) <= 3000)
    totals = every_total(notation)
    outcome = N.roll(notation, random.Random(seed))
    assert outcome.total in totals
    odds = N.chance(notation)
    if notation.target is None:
        assert odds is None and outcome.success is None
    else:
        assert outcome.success == (outcome.total >= notation.target)
        assert odds == sum((p for t, p in totals.items() if t >= notation.target), Fraction(0))
        assert 0 <= odds <= 1


@given(typed(most_faces=20), st.integers(0, 2**32))
def test_canonical_text_parses_back_and_rolls_fit(text, seed):
    try:
        notation = N.parse(text)
    except RulesError as refusal:  # the cost of the odds, or a second plain d20 with adv
        assert "exact odds" in str(refusal) or "plain d20" in str(refusal)
        return
    again = notation.text if notation.target is None else f"{notation.text} vs {notation.target}"
    assert N.parse(again) == notation
    assert N.parse(again.upper().replace("+", " + ").replace("(", "( ")) == notation
    outcome = N.roll(notation, random.Random(seed))
    data = outcome.as_data()
    assert json.loads(json.dumps(data)) == data
    assert data["expression"] == notation.text
    assert [group["notation"] for group in data["groups"]] == [g.text for g in notation.groups]
    assert outcome.detail.endswith(
        f"= {outcome.total}"
        + (
            ""
            if notation.target is None
            else f" vs {notation.target}: {'success' if outcome.success else 'failure'}"
        )
    )
    if notation.target is not None:
        odds = N.chance(notation)
        assert 0 <= odds <= 1
        assert outcome.success == (outcome.total >= notation.target)


# --- the logged expression, read back -------------------------------------------------------------


@st.composite
def crowded(draw):
    """Text a player may type whose canonical text is longer (groups typed without their count,
    ``d6``, ``d%``) or nests deeper (a unary minus on the right, ``2--3``) than they may type."""
    pieces = ["d6", "d%", "d4!", "d10!>=8", "d8<=2", "3", "-d6", "-2", "--d4", "2*-3", "d3*-2"]
    terms = draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=40))
    text, depth = terms[-1], 0
    for term in reversed(terms[:-1]):
        op = draw(st.sampled_from(["+", "-", "- "]))
        if depth < N.MAX_DEPTH and draw(st.booleans()):
            text, depth = f"{term}{op}({text})", depth + 1
        else:
            text = f"{term}{op}{text}"
    if draw(st.booleans()):
        text += f" vs {draw(st.integers(1, 300))}"
    assume(len(text) <= N.MAX_TEXT)
    return text


def accepted(text):
    """``parse(text)``, or None when it is refused for its dice, total or odds (not its text)."""
    try:
        return N.parse(text)
    except RulesError as refusal:
        assert any(
            why in str(refusal) for why in ("exact odds", "plain d20", "at most 100 dice", "total")
        ), refusal
        return None


def nesting(text):
    depth = deepest = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        deepest = max(deepest, depth)
    return deepest


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("+".join(["d6"] * 31), "+".join(["1d6"] * 31)),  # 98 characters typed, 123 logged
        ("1-(2-(3-(4-(5- -6))))", "1-(2-(3-(4-(5-(-6)))))"),  # 4 deep typed, 5 logged
    ],
)
def test_a_logged_text_longer_or_deeper_than_typed_reads_back(text, canonical):
    notation = N.parse(text + " vs 50")
    assert notation.text == canonical
    with pytest.raises(RulesError):  # what a player may not type...
        N.parse(canonical)
    assert N.logged(canonical, 50) == notation  # ...the log reads back


@pytest.mark.parametrize(
    ("expression", "target"),
    [
        ("", None),
        ("1d6 vs 3", None),
        ("2d20kh1 adv", None),
        ("1D6", None),
        ("1d6", 0),
        ("1d6", MAX_TARGET + 1),
        ("1d6", True),
        ("1d6", "3"),
        (None, None),
        ("1d6é", None),
        ("1" * (N.MAX_LOGGED_TEXT + 1), None),
        ("(" * 60 + "1" + ")" * 60, None),
    ],
)
def test_a_logged_text_that_no_roll_could_have_is_refused(expression, target):
    with pytest.raises(RulesError):
        N.logged(expression, target)


@given(st.one_of(typed(most_faces=20), crowded()))
def test_every_logged_text_reads_back_within_its_bounds(text):
    notation = accepted(text)
    assume(notation is not None)
    assert N.logged(notation.text, notation.target) == notation
    assert len(notation.text) <= N.MAX_LOGGED_TEXT
    assert nesting(notation.text) <= N.MAX_LOGGED_DEPTH


# --- Fate dice (dF) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("4dF", "4df"),
        ("dF", "1df"),
        ("4df+1", "4df+1"),
        ("4 dF - 2", "4df-2"),
        ("2*(4dF+1)", "2*(4df+1)"),
        ("4dF+1d6", "4df+1d6"),
        ("-dF", "-1df"),
    ],
)
def test_fate_dice_read_and_write_back(text, canonical):
    notation = N.parse(text)
    assert notation.text == canonical
    assert N.logged(notation.text) == notation
    assert N.parse(canonical) == notation


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("0dF", "at least 1 die"),
        (f"{MAX_DICE + 1}dF", f"at most {MAX_DICE} dice"),
        ("1000dF", f"at most {MAX_DICE} dice"),
        (f"{MAX_DICE}dF+1dF", f"at most {MAX_DICE} dice"),
        ("4dF!", "no options"),
        ("4dF>=1", "no options"),
        ("4dF<=0", "no options"),
        ("4dF%", "no options"),
        ("4dF kh3", "no options"),
        ("4dFkh3", "Cannot read"),
        ("4dF3", "Cannot read"),
        ("dF adv", "plain d20"),
    ],
)
def test_fate_dice_refused_with_a_useful_message(text, word):
    with pytest.raises(RulesError) as refusal:
        N.parse(text)
    assert word in str(refusal.value)


def test_fate_dice_at_the_limit_of_dice_roll_and_have_odds():
    notation = N.parse(f"{MAX_DICE}dF vs 10")
    outcome = N.roll(notation, random.Random(7), N.chance(notation))
    assert -MAX_DICE <= outcome.total <= MAX_DICE
    assert 0 < N.chance(notation) < Fraction(1, 2)


def test_a_fate_die_is_a_d3_draw_less_two():
    """Each Fate die asks the rng for one d3 (1..3) and shows it less 2; the group's data says
    it is Fate dice, and the detail writes each die's value."""
    rng = ScriptedRng(1, 2, 3, 3)
    outcome = N.roll(N.parse("4dF+1"), rng)
    assert rng.calls == [(1, 3)] * 4
    data = outcome.as_data()
    [group] = data["groups"]
    assert group == {
        "notation": "4df",
        "faces": 3,
        "fate": True,
        "dice": [{"value": -1}, {"value": 0}, {"value": 1}, {"value": 1}],
        "value": 1,
    }
    assert data["total"] == 2
    assert data["detail"] == "4df (-1, 0, 1, 1) + 1 = 2"


def test_other_groups_say_nothing_of_fate():
    data = N.roll(N.parse("2d6"), random.Random(1)).as_data()
    assert "fate" not in data["groups"][0]


def fate_brute(count, total, target):
    """P(total(faces) >= target) over every combination of ``count`` Fate faces."""
    hits = whole = 0
    for faces in product((-1, 0, 1), repeat=count):
        whole += 1
        hits += total(faces) >= target
    return Fraction(hits, whole)


@pytest.mark.parametrize(
    ("text", "count", "total"),
    [
        ("4dF vs 1", 4, sum),
        ("4dF vs 2", 4, sum),
        ("4dF vs 4", 4, sum),
        ("4dF+5 vs 1", 4, lambda f: sum(f) + 5),
        ("4dF+1 vs 5", 4, lambda f: sum(f) + 1),
        ("4dF+2 vs 7", 4, lambda f: sum(f) + 2),
        ("dF+1 vs 1", 1, lambda f: f[0] + 1),
        ("dF+1 vs 2", 1, lambda f: f[0] + 1),
        ("2*4dF+3 vs 5", 4, lambda f: 2 * sum(f) + 3),
        ("3-4dF vs 4", 4, lambda f: 3 - sum(f)),
        ("2dF-2dF+2 vs 3", 4, lambda f: f[0] + f[1] - f[2] - f[3] + 2),
        ("-(2dF)+1 vs 1", 2, lambda f: 1 - sum(f)),
    ],
)
def test_fate_chance_against_brute_force(text, count, total):
    notation = N.parse(text)
    assert N.chance(notation) == fate_brute(count, total, notation.target)


FATE = icepool.Die([-1, 0, 1])


@pytest.mark.parametrize(
    ("text", "build"),
    [
        ("4dF+3 vs 5", lambda: 4 @ FATE + 3),
        ("20dF+10 vs 15", lambda: 20 @ FATE + 10),
        ("100dF+50 vs 60", lambda: 100 @ FATE + 50),
        ("4dF+1d6 vs 5", lambda: 4 @ FATE + icepool.d6),
        ("2d6-4dF vs 9", lambda: 2 @ icepool.d6 - 4 @ FATE),
        ("3*(4dF+2)-dF vs 7", lambda: 3 * (4 @ FATE + 2) - FATE),
    ],
)
def test_fate_chance_against_icepool(text, build):
    notation = N.parse(text)
    assert N.chance(notation) == ice_chance(build(), notation.target)


@given(st.integers(0, 2**32), st.integers(1, 12), st.integers(-12, 12))
def test_fate_rolls_lie_within_their_bounds(seed, count, plus):
    outcome = N.roll(N.parse(f"{count}dF+{abs(plus)}"), random.Random(seed))
    assert -count + abs(plus) <= outcome.total <= count + abs(plus)
    assert all(die.value in (-1, 0, 1) for die in outcome.groups[0].dice)
