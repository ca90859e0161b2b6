"""The room page (room.views.room), its log pages and the live checks' resync."""

import re

import pytest
from django.urls import reverse

from rolls import services
from rolls.dice import seed_open
from rolls.models import PRIVATE, SECRET, Check, LogEntry, Presence
from rolls.systems.pool import services as pool_services
from sheets.services import character_create, character_hand_over
from tests.conftest import make_campaign, make_user
from tests.helpers import SESSION_READ
from tests.rolls.room_setup import ask, entry_html, roll_mana, url
from tests.rules.scripted_rng import ScriptedRng


def roll(mana_table, character, owner, *, faces=(7, 10, 4, 2), note="", intent="", **ask_kwargs):
    """A Mana roll of 1 blue + 1 white (4 dice) on a fresh check; returns its log entry."""
    check = ask(mana_table, character, note=note, **ask_kwargs)
    return roll_mana(check, owner, mana_table.gather, faces, intent=intent)


def copy_entries(entry, count):
    """``count`` more log entries like ``entry`` (bulk, for the log's length)."""
    campaign = entry.campaign
    start = campaign.last_seq
    LogEntry.objects.bulk_create(
        LogEntry(
            campaign=campaign,
            seq=start + i,
            kind=entry.kind,
            actor=entry.actor,
            character=entry.character,
            visibility=entry.visibility,
            data=entry.data,
            prev_hash="0" * 64,
            hash="0" * 64,
        )
        for i in range(1, count + 1)
    )
    campaign.last_seq = start + count
    campaign.save(update_fields=["last_seq"])


# Access -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["room", "room_log", "room_checks", "room_requests"])
def test_anonymous_is_sent_to_login(mana_table, as_user, name):
    response = as_user(None).get(url(name, mana_table) + "?before=5")
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name", ["room", "room_log", "room_checks", "room_requests"])
def test_outsider_gets_404(mana_table, as_user, outsider, name):
    assert as_user(outsider).get(url(name, mana_table) + "?before=5").status_code == 404


def test_unknown_campaign_is_404(mana_table, as_user, player):
    assert (
        as_user(player).get(reverse("room", args=[mana_table.campaign.id + 99])).status_code == 404
    )


def test_room_is_get_only(mana_table, as_user, player):
    assert as_user(player).post(url("room", mana_table)).status_code == 405


# The page ---------------------------------------------------------------------------------------


def test_player_page_has_log_presence_checks_and_characters(mana_table, as_user, player):
    entry = roll(mana_table, mana_table.mira, player, intent="Ask around the docks")
    ask(mana_table, mana_table.mira, note="Look for the smuggler")
    Presence.objects.create(campaign=mana_table.campaign, user=player, channel_name="c1")
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert f'ws-connect="/ws/campaigns/{mana_table.campaign.id}/?after={entry.seq}"' in html
    assert f'data-last-seq="{entry.seq}"' in html
    assert f'id="entry-{entry.seq}"' in html
    assert "Ask around the docks" in html
    assert '<ul id="presence" class="presence"><li>ana</li></ul>' in html
    assert "Look for the smuggler" in html
    assert 'name="spend_a"' in html  # the roll form of her open check
    assert reverse("check_request", args=[mana_table.campaign.id, mana_table.mira.id]) in html
    assert "js/room.js" in html
    assert 'id="ask"' not in html and 'id="session"' not in html


def test_the_room_announces_results_and_lets_the_keyboard_find_them(mana_table, as_user, player):
    """room.js focuses a card's [data-result] after a roll and reads it into #announce."""
    check = ask(mana_table, mana_table.mira, target=3)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert '<p id="announce" class="sr-only" role="status" aria-live="polite">' in html
    assert f'<button id="roll-{check.id}-submit"' in html  # its focus survives a swap
    roll_mana(check, mana_table.player, mana_table.gather, (1, 1, 1), spend_b=0)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert f'id="check-{check.id}-result" data-result tabindex="-1">' in html


# A player's "Your characters" panel, again after a facts push ----------------------------------


def panel_query(html):
    """The query with which the page's "Your characters" panel fetches itself again."""
    match = re.search(r'id="requests" hx-get="[^"?]+(\?have=\w+)"', html)
    assert match, html
    return match[1]


def test_the_players_panel_fetches_itself_again_on_a_facts_push(mana_table, as_user, player):
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert 'hx-trigger="facts from:body, facts-resync from:body"' in html
    assert panel_query(html).startswith("?have=")


def test_an_unchanged_panel_answers_204_so_typing_is_kept(mana_table, as_user, player):
    html = as_user(player).get(url("room", mana_table)).content.decode()
    response = as_user(player).get(url("room_requests", mana_table) + panel_query(html))
    assert response.status_code == 204 and response.content == b""


@pytest.mark.parametrize(
    "change",
    [
        lambda t: character_hand_over(campaign=t.campaign, character=t.npc, to=t.player),
        lambda t: character_create(campaign=t.campaign, owner=t.player, name="Nell"),
    ],
    ids=["npc handed over", "character created"],
)
def test_the_panel_shows_a_character_the_player_gained(mana_table, as_user, player, change):
    html = as_user(player).get(url("room", mana_table)).content.decode()
    gained = change(mana_table)
    response = as_user(player).get(url("room_requests", mana_table) + panel_query(html))
    assert response.status_code == 200
    panel = response.content.decode()
    assert panel.strip().startswith('<section class="card" id="requests"')
    assert reverse("check_request", args=[mana_table.campaign.id, gained.id]) in panel
    assert reverse("check_request", args=[mana_table.campaign.id, mana_table.mira.id]) in panel
    assert panel_query(panel) != panel_query(html)  # the next push asks with the new list
    again = as_user(player).get(url("room_requests", mana_table) + panel_query(panel))
    assert again.status_code == 204


def test_the_panel_of_a_player_without_characters_offers_to_create_one(mana_table, as_user, player):
    mana_table.mira.delete()
    response = as_user(player).get(url("room_requests", mana_table) + "?have=stale")
    assert response.status_code == 200
    assert "You have no character in this campaign yet." in response.content.decode()


def test_the_panel_shows_nothing_of_other_players_characters(mana_table, as_user, other_player):
    response = as_user(other_player).get(url("room_requests", mana_table))
    panel = response.content.decode()
    assert reverse("check_request", args=[mana_table.campaign.id, mana_table.bo.id]) in panel
    assert "Mira" not in panel


def test_the_gm_has_no_panel_of_their_own(mana_table, as_user, gm):
    assert as_user(gm).get(url("room_requests", mana_table)).status_code == 403


def test_gm_page_has_session_and_ask_controls(mana_table, as_user, gm):
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert 'id="session"' in html and "Start session 1" in html
    assert 'id="ask"' in html
    assert "Mira (ana)" in html and "The Warden (gm)" in html


def test_empty_log(mana_table, as_user, player):
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert "?after=0" in html
    assert "Nothing rolled yet." in html
    assert "Load older" not in html


def test_player_sees_only_live_checks_of_own_characters(mana_table, as_user, gm, player):
    mine = ask(mana_table, mana_table.mira, note="mine")
    ask(mana_table, mana_table.bo, note="bens note")
    ask(mana_table, mana_table.npc, note="wardens note")
    done = ask(mana_table, mana_table.mira, note="already closed")
    services.check_cancel(check=done)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert f'id="check-{mine.id}"' in html
    assert "bens note" not in html and "wardens note" not in html
    assert "already closed" not in html
    gm_html = as_user(gm).get(url("room", mana_table)).content.decode()
    for note in ("mine", "bens note", "wardens note"):
        assert note in gm_html
    assert "already closed" not in gm_html


def test_gm_sees_own_npc_check_with_roll_form_and_players_checks_without(mana_table, as_user, gm):
    npc_check = ask(mana_table, mana_table.npc)
    player_check = ask(mana_table, mana_table.mira)
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert reverse("check_roll", args=[mana_table.campaign.id, npc_check.id]) in html
    assert reverse("check_roll", args=[mana_table.campaign.id, player_check.id]) not in html
    assert "Waiting for ana to roll." in html


def test_room_checks_gives_the_viewer_live_checks(mana_table, as_user, player):
    mine = ask(mana_table, mana_table.mira)
    theirs = ask(mana_table, mana_table.bo)
    html = as_user(player).get(url("room_checks", mana_table)).content.decode()
    assert f'id="check-{mine.id}"' in html
    assert f'id="check-{theirs.id}"' not in html
    assert "<html" not in html


# Hidden content ---------------------------------------------------------------------------------


@pytest.fixture
def hidden_rolls(mana_table, gm, player):
    """Ana's private roll (faces 7 0 4 2) and the GM's secret NPC roll (faces 9 9 8 0)."""
    private = roll(
        mana_table,
        mana_table.mira,
        player,
        visibility=PRIVATE,
        note="NOTE-PRIVATE",
        intent="INTENT-PRIVATE",
    )
    secret = roll(
        mana_table,
        mana_table.npc,
        gm,
        faces=(9, 9, 8, 10),
        visibility=SECRET,
        note="NOTE-SECRET",
        intent="INTENT-SECRET",
    )
    return private, secret


def test_other_player_never_sees_hidden_rolls(mana_table, as_user, other_player, hidden_rolls):
    private, secret = hidden_rolls
    html = as_user(other_player).get(url("room", mana_table)).content.decode()
    for text in ("NOTE-PRIVATE", "INTENT-PRIVATE", "NOTE-SECRET", "INTENT-SECRET"):
        assert text not in html
    for entry in hidden_rolls:
        shown = entry_html(html, entry.seq)
        assert f'<article id="entry-{entry.seq}" class="entry roll hidden"' in html
        assert 'class="die' not in shown
        assert "success" not in shown and "failure" not in shown
    assert "ana</b> rolled privately" in html
    assert "gm</b> rolled in secret" in html


def test_roller_sees_own_private_roll_but_not_the_secret(mana_table, as_user, player, hidden_rolls):
    private, secret = hidden_rolls
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert "NOTE-PRIVATE" in html and "INTENT-PRIVATE" in html
    assert 'class="die' in entry_html(html, private.seq)
    assert "NOTE-SECRET" not in html and "INTENT-SECRET" not in html
    assert 'class="die' not in entry_html(html, secret.seq)


def test_gm_sees_every_roll(mana_table, as_user, gm, hidden_rolls):
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    for text in ("NOTE-PRIVATE", "INTENT-PRIVATE", "NOTE-SECRET", "INTENT-SECRET"):
        assert text in html
    private, secret = hidden_rolls
    assert "failure" in entry_html(html, private.seq)
    assert "success" in entry_html(html, secret.seq)


def test_older_pages_hide_too(mana_table, as_user, other_player, hidden_rolls):
    response = as_user(other_player).get(url("room_log", mana_table) + "?before=3")
    html = response.content.decode()
    assert response.status_code == 200
    assert "NOTE-PRIVATE" not in html and "NOTE-SECRET" not in html
    assert 'class="die' not in html


# The log's pages --------------------------------------------------------------------------------


def test_room_shows_the_latest_50_and_a_button_for_older(mana_table, as_user, player):
    entry = roll(mana_table, mana_table.mira, player)
    copy_entries(entry, 59)  # seq 1..60
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert html.count('<article id="entry-') == 50
    assert 'id="entry-11"' in html and 'id="entry-10"' not in html
    assert 'id="entry-60"' in html and "?after=60" in html
    assert f"{url('room_log', mana_table)}?before=11" in html


def test_load_older_gives_the_previous_page(mana_table, as_user, player):
    entry = roll(mana_table, mana_table.mira, player)
    copy_entries(entry, 119)  # seq 1..120
    response = as_user(player).get(url("room_log", mana_table) + "?before=71")
    html = response.content.decode()
    assert html.count('<article id="entry-') == 50
    assert 'id="entry-21"' in html and 'id="entry-70"' in html
    assert 'id="entry-71"' not in html and 'id="entry-20"' not in html
    assert html.index('id="entry-21"') < html.index('id="entry-70"')  # oldest first
    assert f"{url('room_log', mana_table)}?before=21" in html
    last = as_user(player).get(url("room_log", mana_table) + "?before=21").content.decode()
    assert last.count('<article id="entry-') == 20
    assert "Load older" not in last
    assert "<html" not in last


@pytest.mark.parametrize("before", ["", "abc", "1.5", "0", "-5", "9" * 30, "9" * 30 + "x"])
def test_load_older_refuses_a_bad_before(mana_table, as_user, player, before):
    response = as_user(player).get(url("room_log", mana_table) + f"?before={before}")
    assert response.status_code == 400


def test_load_older_of_another_campaign_shows_nothing_of_it(mana_table, as_user, gm, player):
    other = make_campaign(gm, name="Elsewhere", players=[make_user("cy")])
    roll(mana_table, mana_table.mira, player, note="HERE")
    response = as_user(gm).get(reverse("room_log", args=[other.id]) + "?before=99")
    assert response.status_code == 200
    assert "HERE" not in response.content.decode()


# Query budget -----------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [10, 300])
@pytest.mark.parametrize("who", ["gm", "player"])
def test_room_page_queries_do_not_grow_with_the_log(
    mana_table, as_user, django_assert_max_num_queries, count, who, gm, player
):
    entry = roll(mana_table, mana_table.mira, player, visibility=PRIVATE)
    copy_entries(entry, count - 1)
    ask(mana_table, mana_table.mira)
    requested = services.check_request(
        campaign=mana_table.campaign, character=mana_table.mira, by=player
    )
    assert requested.status == Check.REQUESTED
    seed_open(mana_table.campaign)  # made by the room's first view: its commitment, read once
    client = as_user(gm if who == "gm" else player)
    # 17, the saved rolls' Roll buttons (#47 item 6: the player's characters' or the NPCs', one
    # read for all of them), and the scene's cards: the shown scene (none here), the Handouts
    # card (the viewer's handouts; the GM's share form, its players) and the initiative card
    # (its order; the GM's characters).
    with django_assert_max_num_queries(17 + 1 + 1 + 2 + 2 + SESSION_READ):
        response = client.get(url("room", mana_table))
    assert response.status_code == 200
    assert response.content.decode().count('<article id="entry-') == min(count, 50)


@pytest.mark.parametrize("count", [10, 300])
def test_pool_room_page_queries_do_not_grow_with_the_log(
    pool_table, player, as_user, django_assert_max_num_queries, count
):
    check = ask(pool_table, pool_table.ilse, suggestion="Jump")
    entry = pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=pool_table.strength,
        skill=pool_table.jump,
        rng=ScriptedRng(1, 2, 3, 4, 5),
    )
    copy_entries(entry, count - 1)
    ask(pool_table, pool_table.ilse)
    seed_open(pool_table.campaign)  # made by the room's first view: its commitment, read once
    client = as_user(player)
    with django_assert_max_num_queries(14):  # 13, and the scene card's shown scene
        response = client.get(url("room", pool_table))
    assert response.status_code == 200


# The log's fingerprint --------------------------------------------------------------------------


def test_every_member_sees_the_fingerprint_of_the_last_entry(mana_table, as_user, gm, player):
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert '<span id="log-fingerprint">none yet</span>' in html
    first = roll(mana_table, mana_table.mira, player)
    last = roll(mana_table, mana_table.npc, gm, visibility=SECRET)
    for user in (player, gm):
        html = as_user(user).get(url("room", mana_table)).content.decode()
        assert f'<span id="log-fingerprint">#2 <code>{last.hash[:12]}</code></span>' in html
        assert f'title="fingerprint #1 {first.hash[:12]}"' in html  # each entry's, on its time
