"""The mana advisor in the Mana roll form and the cost of a held-back die in the Pool odds
(rolls.systems.mana / pool through room.views.check_odds and check_form)."""

import re
from fractions import Fraction

from django.urls import reverse

from rolls import services
from rolls.models import LogEntry
from rolls.systems.mana.services import traits_set
from rolls.templatetags.dice import percent
from rules import mana, pool
from tests.helpers import HTMX
from tests.rolls.room_setup import ask, mana_params, odds, roll_mana, script_dice


def rows(html):
    """The advisor's rows, each cell's text (a spend is a button that puts it in the form)."""
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    return [
        [re.sub(r"<[^>]+>", "", cell.split("<td>", 1)[-1]) for cell in row.split("</td>")[:-1]]
        for row in body.split("</tr>")[:-1]
    ]


def test_every_spend_mira_can_pay_with_its_exact_chance(mana_table, as_user, player):
    # Mira holds blue 3, white 2, colorless 4; Gather Information is blue + white.
    check = ask(mana_table, mana_table.mira, target=3)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table))
    expected = [
        ("nothing (the free die alone)", 1),
        ("1 blue", 2),
        ("1 blue + 1 white", 4),
        ("2 blue + 1 white", 5),
        ("3 blue + 1 white", 6),
        ("3 blue + 2 white", 7),
        ("3 blue + 2 white + 2 colorless", 8),
        ("3 blue + 2 white + 4 colorless", 9),
    ]
    assert rows(html) == [
        [spend, f"{dice}d10", percent(mana.success_probability(dice, 3))]
        for spend, dice in expected
    ]
    # 9d10 reach 3 successes with 68.5 %: no spend reaches the default 75 %
    assert mana.success_probability(9, 3) == Fraction(342703287, 500000000)
    assert "no spend you can pay reaches 75%" in html


def test_the_cheapest_spend_for_the_wanted_chance(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table, want=50))
    # 6d10: 43.6 % < 50 %; 7d10: 132351/250000 = 52.9 %
    assert "50% or better with 3 blue + 2 white (52.9%)" in html
    assert re.search(r'<tr class="best"><td><button [^>]*>3 blue \+ 2 white</button></td>', html)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table, want=5))
    assert "5% or better with 1 blue (5.0%)" in html  # 2d10: exactly 1/20


def test_the_advisor_follows_the_pool_the_trait_and_earlier_attempts(mana_table, as_user, player):
    traits_set(character=mana_table.mira, traits=["Athletic"])
    check = ask(mana_table, mana_table.mira, target=2)
    jump = mana_table.jump  # red + green, trait Athletic; Mira holds red 1, green 0
    params = {"skill": jump.id, "color_a": "red", "color_b": "green", "want": 90}
    html = odds(as_user(player), mana_table, check, **params)
    # units 0..3: 1 free + units + ceil(units / 2) trait; red first, then colorless pairs
    assert [r[:2] for r in rows(html)] == [
        ["nothing (the free die alone)", "1d10"],
        ["1 red", "3d10"],
        ["1 red + 2 colorless", "4d10"],
        ["1 red + 4 colorless", "6d10"],
    ]
    assert mana.success_probability(6, 2) < Fraction(9, 10)

    other = ask(mana_table, mana_table.mira, target=3)
    roll_mana(other, player, mana_table.gather, (1, 2, 3, 4))  # spends 1 blue + 1 white
    services.check_allow_reattempt(check=other)
    html = odds(as_user(player), mana_table, other, **mana_params(mana_table))
    # blue 2, white 1 left; a re-attempt spends at least one unit, 2 earlier units: +1 reroll
    assert rows(html)[0] == ["1 blue", "3d10", percent(mana.success_probability(3, 3))]
    assert "nothing" not in html


def test_a_bad_wanted_chance_is_a_clear_message(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    for bad in ("0", "101", "lots"):
        html = odds(as_user(player), mana_table, check, **mana_params(mana_table, want=bad))
        assert '<span class="error">Wanted chance: ' in html
        assert "3 blue + 2 white + 4 colorless" in html  # the table stays


def test_the_advisor_stays_while_the_spend_is_refused(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table, spend_a=9))
    assert "Not enough blue mana" in html and "1 blue + 1 white" in html


def test_the_roll_form_has_the_wanted_chance(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    url = reverse("check_form", args=[mana_table.campaign.id, check.id])
    html = as_user(player).get(url, mana_params(mana_table), **HTMX).content.decode()
    assert 'name="want"' in html and 'value="75"' in html
    assert "Mana advisor" in html


def test_pool_odds_say_what_one_more_held_back_die_costs(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=8)
    params = {"attribute": pool_table.strength.id, "skill": pool_table.jump.id}
    html = odds(as_user(player), pool_table, check, **params, shift_d6=0, shift_d10=0)
    now = pool.success_probability(3, 2, 8)
    d6 = pool.success_probability(2, 2, 8)
    d10 = pool.success_probability(3, 1, 8)
    assert (
        f"a d6 costs {percent(now - d6)} (leaves {percent(d6)}) · "
        f"a d10 costs {percent(now - d10)} (leaves {percent(d10)})"
    ) in html
    # with one d10 shifted already, the next is counted from 3d6 + 1d10
    html = odds(as_user(player), pool_table, check, **params, shift_d6=0, shift_d10=1)
    assert f"a d10 costs {percent(d10 - pool.success_probability(3, 0, 8))}" in html


def test_pool_odds_without_a_die_to_hold_back(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=3)
    html = odds(as_user(player), pool_table, check, attribute=pool_table.agility.id)
    assert "One more die held back" not in html  # Agility 1: its only die must stay


def test_whatever_the_wanted_chance_says_the_roll_goes_on(
    mana_table, as_user, player, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira, target=1)
    script_dice(monkeypatch, 8, 1, 1, 1)
    data = {**mana_params(mana_table, spend_a=1, spend_b=1), "want": "500", "intent": ""}
    url = reverse("check_roll", args=[mana_table.campaign.id, check.id])
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(url, data, **HTMX)
    assert response.status_code == 204
    assert LogEntry.objects.get(check_ref=check).data["faces"] == [8, 1, 1, 1]


def test_the_wanted_chance_typed_is_kept_in_the_form(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    url = reverse("check_form", args=[mana_table.campaign.id, check.id])
    params = {**mana_params(mana_table), "want": "60"}
    html = as_user(player).get(url, params, **HTMX).content.decode()
    assert f'id="roll-{check.id}-want" min="1" max="100" value="60"' in html
    assert "60% or better with 3 blue + 2 white + 2 colorless" in html  # 8d10: 61.3 %
