"""Being asked: the checks asked of a player (open, their character's) are marked on their
cards (``data-asks-me``, room.push.asks), counted in the room's tab title and shown first;
the marks travel with the pushed cards, so static/js/room.js keeps the count live."""

import re

from django.urls import reverse

from rolls import services
from rolls.models import Check
from tests.helpers import HTMX
from tests.rolls.room_setup import ask, url

MARK = "data-asks-me"


def title(html):
    return re.search(r"<title>(.*?)</title>", html, re.S).group(1)


def asked_cards(html):
    return re.findall(r'<article id="check-(\d+)"[^>]*data-asks-me', html)


def test_a_player_sees_their_open_checks_counted_and_first(mana_table, as_user, player):
    requested = services.check_request(
        campaign=mana_table.campaign, character=mana_table.mira, by=player, note="may I?"
    )
    first = ask(mana_table, mana_table.mira)
    second = ask(mana_table, mana_table.mira)
    ask(mana_table, mana_table.bo)  # Ben's: not Ana's to roll
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert title(html) == "(2) Room · Blue Harbor · Rollroom"
    assert sorted(asked_cards(html)) == sorted([str(first.id), str(second.id)])
    # The open ones come before the requested one, the newest first.
    order = re.findall(r'<article id="check-(\d+)"', html)
    assert order == [str(second.id), str(first.id), str(requested.id)]
    # The player's checks come first in the side column, with the sound's opt-in.
    assert html.index('id="checks"') < html.index('id="presence"')
    assert 'id="ask-sound"' in html


def test_a_player_without_open_checks_has_no_badge(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira)
    services.check_cancel(check=check)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert title(html) == "Room · Blue Harbor · Rollroom"
    assert MARK not in html


def test_the_gm_is_asked_nothing(mana_table, as_user, gm):
    ask(mana_table, mana_table.mira)
    ask(mana_table, mana_table.npc)  # the GM's own NPC: the GM asked it, nobody asked the GM
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert title(html) == "Room · Blue Harbor · Rollroom"
    assert MARK not in html
    assert 'id="ask-sound"' not in html
    # The GM's screen: the ask form, then the live checks, before who is at the table.
    assert html.index('id="ask"') < html.index('id="checks"') < html.index('id="presence"')


def test_pool_table_counts_too(pool_table, as_user, player, other_player):
    ask(pool_table, pool_table.ilse)
    assert title(as_user(player).get(url("room", pool_table)).content.decode()).startswith(
        "(1) Room · "
    )
    assert title(as_user(other_player).get(url("room", pool_table)).content.decode()).startswith(
        "Room · "
    )


def test_room_checks_keep_the_marks(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira)
    html = as_user(player).get(url("room_checks", mana_table)).content.decode()
    assert asked_cards(html) == [str(check.id)]


def test_a_campaign_name_in_the_title_is_escaped(mana_table, as_user, player):
    mana_table.campaign.name = "<b>Harbor</b>"
    mana_table.campaign.save()
    ask(mana_table, mana_table.mira)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert title(html) == "(1) Room · &lt;b&gt;Harbor&lt;/b&gt; · Rollroom"


def test_pushed_cards_carry_the_mark_to_the_asked_player_only(
    mana_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    data = {"character": mana_table.mira.id, "mana_skill": mana_table.gather.id, "target": 3}
    data["visibility"] = "public"
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("check_ask", mana_table), data, **HTMX)
    assert response.status_code == 200
    check = Check.objects.get()
    [asked] = pushes.checks()
    assert MARK in asked["users"][str(player.id)]
    assert MARK not in asked["gm"]

    # Closed: the card pushed in its place no longer counts.
    with django_capture_on_commit_callbacks(execute=True):
        path = reverse("check_cancel", args=[mana_table.campaign.id, check.id])
        assert as_user(gm).post(path, **HTMX).status_code == 204
    closed = pushes.checks()[-1]
    assert f'id="check-{check.id}"' in closed["users"][str(player.id)]
    assert MARK not in closed["users"][str(player.id)]
