"""How the room shows dice (rolls/templatetags/dice.py): d6 and d10 told apart by a label and a
class, not by color; the die that decides a Pool roll, an exploded chain and the successes of a
Mana roll marked with text for screen readers; mana colors shown as swatches with their names."""

import re

from rolls.systems.pool import services as pool_services
from tests.rolls.room_setup import ask, entry_html, roll_mana, url
from tests.rules.scripted_rng import ScriptedRng


def dice(html):
    """(classes, screen reader text, face shown) of each die, in order."""
    found = re.findall(
        r'<span class="die ([^"]+)">(?:<span class="sr-only">([^<]*)</span>)?([^<]*)</span>', html
    )
    return [(classes.split(), said, shown) for classes, said, shown in found]


def pool_roll_html(pool_table, as_user, player, *faces):
    """The room's entry, as ``player`` sees it, of their Strength + Jump roll for Ilse at TN 8
    whose dice come out as ``faces``."""
    entry = pool_services.check_roll_pool(
        check=ask(pool_table, pool_table.ilse, target=8),
        by=player,
        attribute=pool_table.strength,
        skill=pool_table.jump,
        rng=ScriptedRng(*faces),
    )
    room = as_user(player).get(url("room", pool_table)).content.decode()
    return entry_html(room, entry.seq)


def test_a_pool_roll_names_each_kind_of_die_and_marks_the_deciding_one(pool_table, as_user, player):
    # d6 4, 6 → 3 = 9, 1; d10 2, 5: the exploded d6 decides.
    html = pool_roll_html(pool_table, as_user, player, 4, 6, 3, 1, 2, 5)

    d6 = html[html.index('<span class="dice-set d6">') : html.index('<span class="dice-set d10">')]
    d10 = html[html.index('<span class="dice-set d10">') :]
    assert '<span class="kind">d6</span>' in d6 and '<span class="kind">d10</span>' in d10
    assert [(c[0], shown) for c, _said, shown in dice(d6)] == [
        ("d6", "4"),
        ("d6", "6 → 3 = 9"),
        ("d6", "1"),
    ]
    assert [(c[0], shown) for c, _said, shown in dice(d10)] == [("d10", "2"), ("d10", "5")]
    deciding = [(said, shown) for classes, said, shown in dice(html) if "deciding" in classes]
    assert deciding == [("exploded, deciding die: ", "6 → 3 = 9")]
    assert "✓ success" in html


def test_the_deciding_die_of_a_pool_roll_can_be_a_d10_and_is_marked_once(
    pool_table, as_user, player
):
    # d6 2, 3, 1; d10 7, 7: the first 7 decides, the second is a plain die.
    html = pool_roll_html(pool_table, as_user, player, 2, 3, 1, 7, 7)
    assert dice(html) == [
        (["d6"], "", "2"),
        (["d6"], "", "3"),
        (["d6"], "", "1"),
        (["d10", "deciding"], "deciding die: ", "7"),
        (["d10"], "", "7"),
    ]
    assert "✗ failure" in html


def test_an_exploded_d10_of_a_pool_roll_shows_its_10_as_10(pool_table, as_user, player):
    # d6 2, 3, 1; d10 10 → 3 = 13, 4: a "0 → 3 = 13" would read as a face adding nothing.
    html = pool_roll_html(pool_table, as_user, player, 2, 3, 1, 10, 3, 4)
    assert [shown for classes, _said, shown in dice(html) if "d10" in classes] == [
        "10 → 3 = 13",
        "4",
    ]
    assert "0 →" not in html.replace("10 →", "")


def test_a_mana_roll_marks_its_successes_and_shows_the_colors_spent(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    entry = roll_mana(check, player, mana_table.gather, (7, 10, 4, 8))
    html = entry_html(as_user(player).get(url("room", mana_table)).content.decode(), entry.seq)
    assert '<span class="dice-set d10"><span class="kind">d10</span>' in html
    assert dice(html) == [
        (["d10"], "", "7"),
        (["d10", "hit", "two"], "2 successes: ", "0"),
        (["d10"], "", "4"),
        (["d10", "hit"], "success: ", "8"),
    ]
    for color in ("blue", "white"):
        assert (
            f'<span class="swatch swatch-{color}" aria-hidden="true"></span>{color}</span>' in html
        )
    assert "3 successes vs difficulty 3" in html and "✓ success" in html


def test_a_color_the_swatches_do_not_know_is_named_beside_a_neutral_swatch():
    from rolls.templatetags.dice import swatch

    html = swatch("<teal>")
    assert html == (
        '<span class="mana-color"><span class="swatch swatch-other" aria-hidden="true"></span>'
        "&lt;teal&gt;</span>"
    )
