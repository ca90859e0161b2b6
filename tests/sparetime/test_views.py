"""Sparetime views: a character's fragment and raises, the GM's card, a player's hand-outs."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns.models import GameSession
from rolls.systems.pool.models import PoolSettings, Rating
from sheets.models import Character
from sparetime.models import SparetimeEntry
from sparetime.services import (
    delegation_left,
    earmarked_sparetime,
    free_sparetime,
    sparetime_delegate,
    sparetime_grant,
    sparetime_handout,
)
from tests.conftest import make_campaign
from tests.helpers import HTMX, db_snapshot, race
from tests.rolls.room_setup import refused
from tests.sparetime.helpers import assert_ledger_matches_balances, character_with_ratings, rating

BAD_AMOUNTS = ["-1", "0", "abc", "", "2.5", "10001", "99999999999999999999999"]


def url(name, campaign, *args):
    return reverse(name, args=[campaign.id, *args])


def assert_login_redirect(response):
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.fixture
def stranger(gm, outsider):
    """A character of another Pool campaign (same GM, the outsider plays there)."""
    return character_with_ratings(
        make_campaign(gm, name="Elsewhere", players=[outsider]), outsider, "Zora"
    )


@pytest.fixture
def mage(mana_campaign, player):
    return Character.objects.create(campaign=mana_campaign, owner=player, name="Mira")


# A character's sparetime fragment ----------------------------------------------------------------
def test_owner_sees_balance_raises_and_ledger(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm, note="Years at sea")
    response = as_user(player).get(url("character_sparetime", hero.campaign, hero.id), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert f'id="sparetime-body-{hero.id}"' in html
    assert '<strong class="sparetime-free">3</strong>' in html
    assert "Raise Climb 2 → 3 (costs 1)" in html
    assert "Raise Strength 2 → 3 (costs 1)" in html
    assert "Starting grant" in html and "Years at sea" in html


def test_without_htmx_the_fragment_comes_in_a_page(as_user, player, hero):
    response = as_user(player).get(url("character_sparetime", hero.campaign, hero.id))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and '<section id="sparetime"' in html and "sparetime-body" in html


def test_raise_buttons_show_the_campaigns_costs(as_user, gm, hero, pool_campaign):
    PoolSettings.objects.update_or_create(
        campaign_id=pool_campaign.pk, defaults=dict(attribute_cost=3, skill_cost=2)
    )
    html = as_user(gm).get(url("character_sparetime", pool_campaign, hero.id), **HTMX)
    html = html.content.decode()
    assert "Raise Strength 2 → 3 (costs 3)" in html
    assert "Raise Climb 2 → 3 (costs 2)" in html


def test_unapproved_ratings_have_no_raise_button(as_user, player, hero):
    Rating.objects.create(
        character=hero, attribute="Strength", skill="Wrestling", custom=True, status="pending"
    )
    html = as_user(player).get(url("character_sparetime", hero.campaign, hero.id), **HTMX)
    assert "Raise Wrestling" not in html.content.decode()


def test_other_player_never_sees_a_characters_sparetime(as_user, other_player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    sparetime_url = url("character_sparetime", hero.campaign, hero.id)
    assert as_user(other_player).get(sparetime_url).status_code == 403
    assert as_user(other_player).get(sparetime_url, **HTMX).status_code == 403
    sheet = as_user(other_player).get(url("character_detail", hero.campaign, hero.id))
    assert sheet.status_code == 200
    assert sparetime_url not in sheet.content.decode()
    for viewer in (hero.owner, gm):
        html = as_user(viewer).get(sparetime_url).content.decode()
        assert '<strong class="sparetime-free">3</strong>' in html


def test_earmarked_portions_are_listed_with_their_raises(
    as_user, pool_campaign, gm, player, other_player, hero, bens
):
    sparetime_delegate(campaign=pool_campaign, player=player, amount=4, by=gm)
    sparetime_handout(
        campaign=pool_campaign,
        giver=player,
        character=bens,
        amount=2,
        targets=[rating(bens, "Climb")],
        note="For the cliffs",
    )
    html = as_user(other_player).get(url("character_sparetime", pool_campaign, bens.id), **HTMX)
    html = html.content.decode()
    assert "From ana: <strong>2</strong> left of 2" in html
    assert "For the cliffs" in html
    assert html.count("Raise Climb 2 → 3 (costs 1)") == 2  # from the portion, and free


def test_fragment_queries_do_not_grow_with_the_ledger(as_user, player, gm, hero):
    client = as_user(player)

    def statements():
        with CaptureQueriesContext(connection) as context:
            assert client.get(url("character_sparetime", hero.campaign, hero.id)).status_code == 200
        return len(context)

    sparetime_grant(character=hero, amount=20, by=gm)
    few = statements()
    for _ in range(30):
        sparetime_grant(character=hero, amount=1, by=gm)
    assert statements() == few <= 13  # 13: the session read from the database with REDIS_URL


def test_character_fragment_access(as_user, outsider, player, hero, stranger, mage):
    fragment = url("character_sparetime", hero.campaign, hero.id)
    assert as_user(outsider).get(fragment).status_code == 404
    client = as_user(player)
    # Another campaign's character through this campaign's URL, and a Mana campaign: 404.
    assert client.get(url("character_sparetime", hero.campaign, stranger.id)).status_code == 404
    assert client.get(url("character_sparetime", mage.campaign, mage.id)).status_code == 404
    assert client.post(url("character_sparetime", hero.campaign, hero.id)).status_code == 405
    assert_login_redirect(as_user(None).get(url("character_sparetime", hero.campaign, hero.id)))


# Spending ----------------------------------------------------------------------------------------
def spend_url(character):
    return url("sparetime_spend", character.campaign, character.id)


def test_owner_raises_a_rating(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    climb = rating(hero, "Climb")
    response = as_user(player).post(spend_url(hero), {"rating": climb.id}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Climb raised to 3." in html
    assert '<strong class="sparetime-free">2</strong>' in html
    climb.refresh_from_db()
    assert climb.value == 3
    entry = SparetimeEntry.objects.get(kind="spend")
    assert (entry.amount, entry.from_value, entry.to_value, entry.created_by) == (-1, 2, 3, player)


def pool_section_tag(client, character):
    """The opening tag of the sheet page's Pool section."""
    page = client.get(reverse("character_detail", args=[character.campaign_id, character.id]))
    return re.search(r'<section id="sheet-pool"[^>]*>', page.content.decode()).group(0)


def test_a_raise_tells_the_sheets_pool_section_to_reload(
    as_user, player, gm, hero, pushes, django_capture_on_commit_callbacks
):
    """The raise's facts push names the character, whose facts-<id> event the sheet page's Pool
    section listens for, on every page, the raising player's own included (no second event:
    it would fetch the section twice); reloaded, it shows the new rating
    (tests/sparetime/test_views_browser.py drives it)."""
    sparetime_grant(character=hero, amount=3, by=gm)
    client = as_user(player)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(spend_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    assert "HX-Trigger" not in response
    assert pushes.facts() == [{"facts": True, "all": f"<!--facts {hero.id}-->"}]
    tag = pool_section_tag(client, hero)
    assert f'hx-trigger="facts-{hero.id} from:body, ' in tag
    reload = re.search(r'hx-get="([^"]+)"', tag).group(1)
    section = client.get(reload, **HTMX).content.decode()
    assert section.lstrip().startswith('<section id="sheet-pool"')
    assert re.search(r"Climb\s*</td>\s*<td>3d10</td>", section)


def test_a_refused_raise_sends_no_event(as_user, player, hero):
    response = as_user(player).post(spend_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    assert response.status_code == 422 and "HX-Trigger" not in response


def test_plain_post_redirects_back_to_the_fragment(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=1, by=gm)
    client = as_user(player)
    response = client.post(spend_url(hero), {"rating": rating(hero, "Strength").id})
    assert response.status_code == 302
    assert response["Location"] == url("character_sparetime", hero.campaign, hero.id)
    assert "Strength raised to 3." in client.get(response["Location"]).content.decode()


def test_gm_may_spend_for_a_character(as_user, gm, hero, pool_campaign):
    PoolSettings.objects.update_or_create(campaign_id=pool_campaign.pk, defaults=dict(skill_cost=2))
    sparetime_grant(character=hero, amount=5, by=gm)
    response = as_user(gm).post(spend_url(hero), {"rating": rating(hero, "Dodge").id}, **HTMX)
    assert response.status_code == 200
    assert rating(hero, "Dodge").value == 1
    assert free_sparetime(hero) == 3


def test_earmarked_spend_through_the_view(as_user, pool_campaign, gm, player, other_player, bens):
    sparetime_delegate(campaign=pool_campaign, player=player, amount=2, by=gm)
    portion = sparetime_handout(
        campaign=pool_campaign,
        giver=player,
        character=bens,
        amount=2,
        targets=[rating(bens, "Climb")],
    )
    client = as_user(other_player)
    data = {"rating": rating(bens, "Climb").id, "source": portion.id}
    assert client.post(spend_url(bens), data, **HTMX).status_code == 200
    assert earmarked_sparetime(bens) == [(portion, 1)]
    before = db_snapshot()
    data = {"rating": rating(bens, "Dodge").id, "source": portion.id}
    response = client.post(spend_url(bens), data, **HTMX)
    assert response.status_code == 422
    assert "not earmarked for Dodge" in response.content.decode()
    assert db_snapshot() == before
    assert_ledger_matches_balances(pool_campaign)


def test_short_spend_is_refused_with_the_reason(as_user, player, hero):
    before = db_snapshot()
    client = as_user(player)
    response = client.post(spend_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    assert response.status_code == 422
    message = "Not enough sparetime: raising Climb 2 → 3 costs 1, you have 0."
    assert message in response.content.decode()
    response = client.post(spend_url(hero), {"rating": rating(hero, "Climb").id})
    assert response.status_code == 200
    assert message in response.content.decode() and "<html" in response.content.decode()
    assert db_snapshot() == before


def test_pending_skill_spend_is_refused(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    pending = Rating.objects.create(
        character=hero, attribute="Strength", skill="Wrestling", custom=True, status="pending"
    )
    before = db_snapshot()
    response = as_user(player).post(spend_url(hero), {"rating": pending.id}, **HTMX)
    assert response.status_code == 422
    assert "Wrestling is still waiting for the GM" in response.content.decode()
    assert db_snapshot() == before


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"rating": "abc"},
        {"rating": "-1"},
        {"rating": "999999"},
        {"rating": "99999999999999999999999"},
        {"rating": "bens-climb"},
        {"rating": "stranger-climb"},
        {"rating": "climb", "source": "x"},
        {"rating": "climb", "source": "999999"},
        {"rating": "climb", "source": "grant"},
    ],
)
def test_bad_spend_input_changes_nothing(as_user, player, gm, hero, bens, stranger, data):
    grant = sparetime_grant(character=hero, amount=3, by=gm)
    names = {
        "climb": rating(hero, "Climb").id,
        "bens-climb": rating(bens, "Climb").id,
        "stranger-climb": rating(stranger, "Climb").id,
        "grant": grant.id,
    }
    data = {key: names.get(value, value) for key, value in data.items()}
    before = db_snapshot()
    response = as_user(player).post(spend_url(hero), data, **HTMX)
    assert response.status_code == 422
    assert 'class="errorlist"' in response.content.decode()
    assert db_snapshot() == before


def test_spend_access(as_user, player, other_player, outsider, gm, hero, mage):
    sparetime_grant(character=hero, amount=3, by=gm)
    data = {"rating": rating(hero, "Climb").id}
    before = db_snapshot()
    assert as_user(other_player).post(spend_url(hero), data).status_code == 403
    assert as_user(outsider).post(spend_url(hero), data).status_code == 404
    assert_login_redirect(as_user(None).post(spend_url(hero), data))
    assert as_user(player).get(spend_url(hero)).status_code == 405
    assert as_user(player).post(spend_url(mage), {"rating": "1"}).status_code == 404
    assert db_snapshot() == before


# The GM's card -----------------------------------------------------------------------------------
def test_gm_card_has_the_forms_balances_and_ledger(as_user, gm, player, hero, npc, pool_campaign):
    sparetime_grant(character=hero, amount=3, by=gm, note="Long history")
    sparetime_delegate(campaign=pool_campaign, player=player, amount=2, by=gm)
    response = as_user(gm).get(url("gm_sparetime", pool_campaign), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    for name in ("grant-character", "characters", "session", "delegate-player"):
        assert f'name="{name}"' in html
    assert 'name="from"' not in html  # the card's award is answered with the card
    assert "<td>Aria</td><td>ana</td><td>3</td><td>0</td>" in html
    assert "Innkeeper" not in html  # the GM's NPC, left out unless the GM asks
    assert "ana 2 · ben 0" in html
    assert "Long history" in html and "Delegation" in html


def test_gm_card_offers_and_lists_the_npcs_when_asked(as_user, gm, hero, npc, pool_campaign):
    response = as_user(gm).get(url("gm_sparetime", pool_campaign) + "?npcs=1", **HTMX)
    html = response.content.decode()
    assert "<td>Innkeeper</td><td>gm</td><td>0</td><td>0</td>" in html
    assert f'<option value="{npc.id}">Innkeeper</option>' in html
    assert html.count('<input type="hidden" name="npcs" value="1">') == 2  # grant and award


def test_an_npc_is_granted_only_when_the_gm_asked(
    as_user, gm, npc, pool_campaign, pushes, django_capture_on_commit_callbacks
):
    data = {"grant-character": npc.id, "grant-amount": 2, "grant-note": ""}
    client = as_user(gm)
    before = db_snapshot()
    response = client.post(url("sparetime_grant", pool_campaign), data, **HTMX)
    assert response.status_code == 422 and db_snapshot() == before
    assert "That character is not in this campaign." in response.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("sparetime_grant", pool_campaign), {**data, "npcs": "1"}, **HTMX)
    assert response.status_code == 200
    assert free_sparetime(npc) == 2


def test_gm_ledger_is_capped(as_user, gm, hero, pool_campaign, django_assert_max_num_queries):
    SparetimeEntry.objects.bulk_create(
        SparetimeEntry(
            campaign=pool_campaign, kind="grant", amount=1, character=hero, created_by=gm
        )
        for _ in range(205)
    )
    client = as_user(gm)
    with django_assert_max_num_queries(20):
        response = client.get(url("gm_sparetime", pool_campaign), **HTMX)
    html = response.content.decode()
    assert "Showing the latest 200 of 205 rows." in html
    assert html.count("<td>Starting grant</td>") == 200


def test_gm_card_access(as_user, player, outsider, mana_campaign, gm, pool_campaign):
    assert as_user(player).get(url("gm_sparetime", pool_campaign)).status_code == 403
    assert as_user(outsider).get(url("gm_sparetime", pool_campaign)).status_code == 404
    assert as_user(gm).get(url("gm_sparetime", mana_campaign)).status_code == 404
    assert_login_redirect(as_user(None).get(url("gm_sparetime", pool_campaign)))
    assert as_user(gm).get(url("gm_sparetime", pool_campaign)).status_code == 200


def test_gm_grants_starting_sparetime(as_user, gm, hero, pool_campaign):
    data = {"grant-character": hero.id, "grant-amount": "4", "grant-note": "A sailor's life"}
    response = as_user(gm).post(url("sparetime_grant", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    assert "Granted 4 sparetime to Aria." in response.content.decode()
    assert "HX-Trigger" not in response  # no other part of the page shows it
    entry = SparetimeEntry.objects.get()
    assert (entry.kind, entry.amount, entry.note, entry.created_by) == (
        "grant",
        4,
        "A sailor's life",
        gm,
    )


def test_gm_grant_without_htmx_redirects(as_user, gm, hero, pool_campaign):
    data = {"grant-character": hero.id, "grant-amount": "4"}
    response = as_user(gm).post(url("sparetime_grant", pool_campaign), data)
    assert response.status_code == 302
    assert response["Location"] == url("gm_sparetime", pool_campaign)
    assert free_sparetime(hero) == 4


def test_gm_awards_one_character_for_a_session(as_user, gm, hero, bens, pool_campaign):
    session = GameSession.objects.create(campaign=pool_campaign, number=3, ended_at=timezone.now())
    data = {"characters": [bens.id], "amount": "2", "session": session.id}
    response = as_user(gm).post(url("sparetime_award", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="gm-sparetime-body"')
    assert "Awarded 2 sparetime to Bram." in html
    assert [(e.character, e.session) for e in SparetimeEntry.objects.all()] == [(bens, session)]


def test_gm_awards_the_characters_ticked(as_user, gm, hero, bens, npc, pool_campaign):
    data = {"characters": [hero.id, bens.id], "amount": "1", "note": "A good night"}
    response = as_user(gm).post(url("sparetime_award", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    assert "Awarded 1 sparetime to Aria, Bram." in response.content.decode()
    rows = SparetimeEntry.objects.all()
    assert {(e.character, e.session, e.note) for e in rows} == {
        (hero, None, "A good night"),
        (bens, None, "A good night"),
    }
    assert free_sparetime(npc) == 0


def test_gm_delegates_to_a_player(as_user, gm, player, pool_campaign):
    data = {"delegate-player": player.id, "delegate-amount": "5"}
    response = as_user(gm).post(url("sparetime_delegate", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    assert "ana may now hand out 5 more sparetime." in response.content.decode()
    assert delegation_left(pool_campaign, player) == 5


def test_a_delegation_registers_a_delegation_push_to_its_player_and_the_gm(
    as_user, gm, player, pool_campaign, pushes, django_capture_on_commit_callbacks
):
    data = {"delegate-player": player.id, "delegate-amount": "5"}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("sparetime_delegate", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    signal = "<!--facts delegation-->"
    assert pushes.facts() == [{"facts": True, "gm": signal, "users": {str(player.id): signal}}]


def test_a_refused_delegation_pushes_nothing(
    as_user, gm, player, pool_campaign, pushes, django_capture_on_commit_callbacks
):
    data = {"delegate-player": player.id, "delegate-amount": "0"}
    path = url("sparetime_delegate", pool_campaign)
    refused(as_user(gm), path, data, pool_campaign, pushes, django_capture_on_commit_callbacks)


GM_ACTIONS = [
    ("sparetime_grant", {"grant-character": "hero", "grant-amount": "1"}),
    ("sparetime_award", {"characters": "hero", "amount": "1"}),
    ("sparetime_delegate", {"delegate-player": "player", "delegate-amount": "1"}),
]


@pytest.mark.parametrize(("name", "data"), GM_ACTIONS)
def test_gm_actions_access(as_user, gm, player, outsider, hero, mana_campaign, name, data):
    data = {k: {"hero": hero.id, "player": player.id}.get(v, v) for k, v in data.items()}
    target = url(name, hero.campaign)
    assert as_user(player).post(target, data, **HTMX).status_code == 403
    assert as_user(outsider).post(target, data, **HTMX).status_code == 404
    assert_login_redirect(as_user(None).post(target, data))
    assert as_user(gm).get(target).status_code == 405
    assert as_user(gm).post(url(name, mana_campaign), data, **HTMX).status_code == 404
    assert not SparetimeEntry.objects.exists()


@pytest.mark.parametrize("amount", BAD_AMOUNTS)
@pytest.mark.parametrize(("name", "data"), GM_ACTIONS)
def test_gm_actions_refuse_bad_amounts(as_user, gm, player, hero, name, data, amount):
    data = {k: {"hero": hero.id, "player": player.id}.get(v, v) for k, v in data.items()}
    amount_field = next(key for key in data if key.endswith("amount"))
    data[amount_field] = amount
    response = as_user(gm).post(url(name, hero.campaign), data, **HTMX)
    assert response.status_code == 422
    assert 'class="errorlist' in response.content.decode()
    assert not SparetimeEntry.objects.exists()


@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("sparetime_grant", {"grant-character": "stranger"}, "character is not in this campaign"),
        ("sparetime_grant", {"grant-character": "999999"}, "character is not in this campaign"),
        ("sparetime_grant", {"grant-character": "x"}, "character is not in this campaign"),
        ("sparetime_grant", {}, "This field is required"),
        ("sparetime_award", {}, "Tick at least one character."),
        ("sparetime_award", {"characters": "stranger"}, "Choose characters of this campaign."),
        ("sparetime_award", {"characters": "x"}, "Choose characters of this campaign."),
        (
            "sparetime_award",
            {"characters": "hero", "session": "other-session"},
            "Choose an ended session.",
        ),
        (
            "sparetime_award",
            {"characters": "hero", "session": "running-session"},
            "Choose an ended session.",
        ),
        ("sparetime_delegate", {"delegate-player": "outsider"}, "player is not in this campaign"),
        ("sparetime_delegate", {"delegate-player": "gm"}, "player is not in this campaign"),
        ("sparetime_delegate", {"delegate-player": "abc"}, "player is not in this campaign"),
    ],
)
def test_gm_actions_refuse_foreign_or_missing_objects(
    as_user, gm, outsider, hero, stranger, name, data, error
):
    ended = timezone.now()
    other_session = GameSession.objects.create(campaign=stranger.campaign, number=1, ended_at=ended)
    running = GameSession.objects.create(campaign=hero.campaign, number=1)
    names = {
        "hero": hero.id,
        "stranger": stranger.id,
        "outsider": outsider.id,
        "gm": gm.id,
        "other-session": other_session.id,
        "running-session": running.id,
    }
    data = {k: names.get(v, v) for k, v in data.items()}
    amount_field = {"sparetime_award": "amount"}.get(
        name, f"{name.removeprefix('sparetime_')}-amount"
    )
    data.setdefault(amount_field, "2")
    response = as_user(gm).post(url(name, hero.campaign), data, **HTMX)
    assert response.status_code == 422
    assert error in response.content.decode()
    assert not SparetimeEntry.objects.exists()


def test_refused_award_without_htmx_shows_the_page(as_user, gm, npc, pool_campaign):
    response = as_user(gm).post(url("sparetime_award", pool_campaign), {"amount": "1"})
    assert response.status_code == 200  # a plain form post: the page again, with the error
    html = response.content.decode()
    assert "<html" in html and "Tick at least one character." in html
    assert not SparetimeEntry.objects.exists()


def test_award_without_htmx_redirects_to_the_card_with_the_notice(as_user, gm, hero, pool_campaign):
    client = as_user(gm)
    response = client.post(
        url("sparetime_award", pool_campaign), {"characters": hero.id, "amount": "3"}
    )
    assert response.status_code == 302
    assert response["Location"] == url("gm_sparetime", pool_campaign)
    assert "Awarded 3 sparetime to Aria." in client.get(response["Location"]).content.decode()


# A player's delegation ---------------------------------------------------------------------------
def test_delegation_fragment_offers_other_players_approved_ratings(
    as_user, player, hero, bens, npc, delegated, pool_campaign
):
    Rating.objects.create(
        character=bens, attribute="Strength", skill="Wrestling", custom=True, status="pending"
    )
    response = as_user(player).get(url("sparetime_delegation", pool_campaign), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert '<strong class="sparetime-left">5</strong>' in html
    assert f'<option value="{rating(bens, "Climb").id}">Bram — Climb</option>' in html
    assert '<optgroup label="Bram (ben)">' in html
    assert "Aria" not in html  # not her own character
    assert "Innkeeper" not in html  # not the GM's NPC
    assert "Wrestling" not in html  # not a pending skill


def test_delegation_fragment_without_delegation(as_user, other_player, gm, pool_campaign):
    for user in (other_player, gm):
        response = as_user(user).get(url("sparetime_delegation", pool_campaign))
        assert response.status_code == 200
        assert "has not given you sparetime to hand out" in response.content.decode()


def test_delegation_fragment_access(as_user, outsider, player, pool_campaign, mana_campaign):
    assert as_user(outsider).get(url("sparetime_delegation", pool_campaign)).status_code == 404
    assert as_user(player).get(url("sparetime_delegation", mana_campaign)).status_code == 404
    assert_login_redirect(as_user(None).get(url("sparetime_delegation", pool_campaign)))


def handout_data(*targets, amount="2", note=""):
    return {"targets": [t.id for t in targets], "amount": amount, "note": note}


def test_player_hands_out_sparetime(as_user, player, bens, delegated, pool_campaign):
    data = handout_data(rating(bens, "Climb"), rating(bens, "Strength"), note="Well played")
    response = as_user(player).post(url("sparetime_handout", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Handed 2 sparetime to Bram." in html
    assert '<strong class="sparetime-left">3</strong>' in html
    ((portion, left),) = earmarked_sparetime(bens)
    assert left == 2 and portion.note == "Well played"
    assert {t.label for t in portion.targets.all()} == {"Climb", "Strength"}
    assert_ledger_matches_balances(pool_campaign)


def test_handout_without_htmx_redirects(as_user, player, bens, delegated, pool_campaign):
    data = handout_data(rating(bens, "Climb"))
    response = as_user(player).post(url("sparetime_handout", pool_campaign), data)
    assert response.status_code == 302
    assert response["Location"] == url("sparetime_delegation", pool_campaign)


def test_handout_beyond_delegation_is_refused(as_user, player, bens, delegated, pool_campaign):
    client = as_user(player)
    client.post(url("sparetime_handout", pool_campaign), handout_data(rating(bens, "Climb")))
    before = db_snapshot()
    data = handout_data(rating(bens, "Climb"), amount="4")
    response = client.post(url("sparetime_handout", pool_campaign), data, **HTMX)
    assert response.status_code == 422
    assert "You have 3 sparetime left to hand out; 4 is too much." in response.content.decode()
    assert db_snapshot() == before


@pytest.mark.parametrize(
    ("targets", "error"),
    [
        ([], "This field is required"),
        (["hero-climb"], "another player&#x27;s character"),
        (["npc-climb"], "another player&#x27;s character"),
        (["stranger-climb"], "another player&#x27;s character"),
        (["bens-pending"], "another player&#x27;s character"),
        (["abc"], "another player&#x27;s character"),
        (["999999"], "another player&#x27;s character"),
        # Beyond any id (an IN query with it would fail on SQLite, not find nothing).
        ([str(2**63)], "another player&#x27;s character"),
        (["bens-climb", str(10**30)], "another player&#x27;s character"),
        (["bens-climb", "cara-climb"], "Pick ratings of one character only."),
    ],
)
def test_handout_refuses_bad_targets(
    as_user, pool_campaign, player, hero, bens, npc, stranger, delegated, targets, error
):
    cara = character_with_ratings(
        pool_campaign, player.__class__.objects.create(username="cara"), "Cyn"
    )
    pool_campaign.memberships.create(user=cara.owner, role="player")
    pending = Rating.objects.create(
        character=bens, attribute="Strength", skill="Wrestling", custom=True, status="pending"
    )
    names = {
        "hero-climb": rating(hero, "Climb").id,
        "npc-climb": rating(npc, "Climb").id,
        "stranger-climb": rating(stranger, "Climb").id,
        "bens-pending": pending.id,
        "bens-climb": rating(bens, "Climb").id,
        "cara-climb": rating(cara, "Climb").id,
    }
    data = {"targets": [names.get(t, t) for t in targets], "amount": "1"}
    before = db_snapshot()
    response = as_user(player).post(url("sparetime_handout", pool_campaign), data, **HTMX)
    assert response.status_code == 422
    assert error in response.content.decode()
    assert db_snapshot() == before


@pytest.mark.parametrize("amount", BAD_AMOUNTS)
def test_handout_refuses_bad_amounts(as_user, player, bens, delegated, pool_campaign, amount):
    before = db_snapshot()
    data = handout_data(rating(bens, "Climb"), amount=amount)
    response = as_user(player).post(url("sparetime_handout", pool_campaign), data, **HTMX)
    assert response.status_code == 422
    assert db_snapshot() == before


def test_handout_without_delegation_is_refused(as_user, other_player, gm, hero, pool_campaign):
    data = handout_data(rating(hero, "Climb"), amount="1")
    for user in (other_player, gm):
        response = as_user(user).post(url("sparetime_handout", pool_campaign), data, **HTMX)
        assert response.status_code == 422
        assert "You have 0 sparetime left to hand out" in response.content.decode()
    assert not SparetimeEntry.objects.exists()


def test_handout_access(as_user, outsider, player, bens, delegated, pool_campaign, mana_campaign):
    data = handout_data(rating(bens, "Climb"))
    before = db_snapshot()
    assert as_user(outsider).post(url("sparetime_handout", pool_campaign), data).status_code == 404
    assert as_user(player).post(url("sparetime_handout", mana_campaign), data).status_code == 404
    assert as_user(player).get(url("sparetime_handout", pool_campaign)).status_code == 405
    assert_login_redirect(as_user(None).post(url("sparetime_handout", pool_campaign), data))
    assert db_snapshot() == before


def test_the_gms_npc_sparetime_is_hidden_from_players(as_user, gm, player, pool_campaign):
    from sheets.services import character_create

    npc = character_create(campaign=pool_campaign, owner=gm, name="Innkeeper")
    args = [pool_campaign.id, npc.id]
    assert as_user(player).get(reverse("character_sparetime", args=args)).status_code == 404
    assert as_user(gm).get(reverse("character_sparetime", args=args)).status_code == 200


# Nothing doubled ---------------------------------------------------------------------------------
def form_token(html, name="grant-once"):
    return re.search(rf'name="{name}" value="([^"]+)"', html).group(1)


def test_a_second_award_for_a_session_is_refused(as_user, gm, hero, bens, pool_campaign):
    session = GameSession.objects.create(campaign=pool_campaign, number=3, ended_at=timezone.now())
    client = as_user(gm)
    data = {"characters": [hero.id], "amount": "2", "session": session.id}
    assert client.post(url("sparetime_award", pool_campaign), data, **HTMX).status_code == 200
    before = db_snapshot()
    data["characters"] = [hero.id, bens.id]
    response = client.post(url("sparetime_award", pool_campaign), data, **HTMX)
    assert response.status_code == 422
    assert "Aria already had an award for Session 3" in response.content.decode()
    room = client.post(url("sparetime_award", pool_campaign), {**data, "from": "room"}, **HTMX)
    assert room.status_code == 422
    assert "Aria already had an award for Session 3" in room.content.decode()
    assert db_snapshot() == before


@pytest.mark.django_db(transaction=True)
def test_concurrent_award_requests_award_once(client_factory, gm, hero, pool_campaign):
    session = GameSession.objects.create(campaign=pool_campaign, number=1, ended_at=timezone.now())
    data = {"characters": [hero.id], "amount": "2", "session": session.id}
    clients = client_factory(gm, 4)
    responses = race(
        *[lambda c=c: c.post(url("sparetime_award", pool_campaign), data, **HTMX) for c in clients]
    )
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422], responses
    assert free_sparetime(hero) == 2
    assert SparetimeEntry.objects.count() == 1


def test_a_double_submitted_grant_grants_once(as_user, gm, hero, pool_campaign):
    client = as_user(gm)
    token = form_token(client.get(url("gm_sparetime", pool_campaign), **HTMX).content.decode())
    data = {"grant-character": hero.id, "grant-amount": "4", "grant-once": token}
    first = client.post(url("sparetime_grant", pool_campaign), data, **HTMX)
    second = client.post(url("sparetime_grant", pool_campaign), data, **HTMX)
    for response in (first, second):
        assert response.status_code == 200
        assert "Granted 4 sparetime to Aria." in response.content.decode()
    assert form_token(first.content.decode()) != token
    assert free_sparetime(hero) == 4
    plain = client.post(url("sparetime_grant", pool_campaign), data)
    assert plain.status_code == 302
    assert free_sparetime(hero) == 4


@pytest.mark.django_db(transaction=True)
def test_concurrent_grants_with_one_token_grant_once(client_factory, gm, hero, pool_campaign):
    data = {"grant-character": hero.id, "grant-amount": "4", "grant-once": "one-click"}
    clients = client_factory(gm, 3)
    responses = race(
        *[lambda c=c: c.post(url("sparetime_grant", pool_campaign), data, **HTMX) for c in clients]
    )
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert free_sparetime(hero) == 4


def test_a_refused_grant_keeps_its_token_usable(as_user, gm, hero, pool_campaign):
    client = as_user(gm)
    data = {"grant-character": hero.id, "grant-amount": "0", "grant-once": "t1"}
    assert client.post(url("sparetime_grant", pool_campaign), data, **HTMX).status_code == 422
    data["grant-amount"] = "3"
    assert client.post(url("sparetime_grant", pool_campaign), data, **HTMX).status_code == 200
    assert free_sparetime(hero) == 3


# A raise's confirmation --------------------------------------------------------------------------
def raise_url(character):
    return url("sparetime_raise", character.campaign, character.id)


def test_a_raise_button_spends_nothing_and_opens_its_confirmation(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=10, by=gm)
    PoolSettings.objects.update_or_create(campaign_id=hero.campaign_id, defaults=dict(skill_cost=6))
    client = as_user(player)
    html = client.get(url("character_sparetime", hero.campaign, hero.id), **HTMX).content.decode()
    climb = rating(hero, "Climb")
    button = re.search(r'<form method="get" action="([^"]+)" hx-get="([^"]+)"', html)
    assert button.group(1) == button.group(2) == raise_url(hero)
    before = db_snapshot()
    response = client.get(raise_url(hero), {"rating": climb.id}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert "Raise Climb 2 → 3 for 6 sparetime" in html and "(balance 10 → 4)?" in html
    assert re.search(r'<button type="submit" autofocus>Confirm raise</button>', html)
    assert f'hx-post="{spend_url(hero)}"' in html and 'name="once"' in html
    assert "Keep" in html
    kept = client.get(raise_url(hero), {"rating": climb.id, "keep": "1"}, **HTMX).content.decode()
    assert "Raise Climb 2 → 3 (costs 6)" in kept and "autofocus" in kept
    assert "Confirm raise" not in kept
    assert db_snapshot() == before


def test_a_confirmation_says_when_the_balance_is_short(as_user, player, gm, hero):
    response = as_user(player).get(raise_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    html = response.content.decode()
    assert "Not enough sparetime: raising Climb 2 → 3 costs 1, you have 0." in html
    assert "Confirm raise" not in html and "Keep" in html


def test_an_earmarked_raise_confirms_against_its_portion(
    as_user, pool_campaign, delegated, player, other_player, bens
):
    portion = sparetime_handout(
        campaign=pool_campaign,
        giver=player,
        character=bens,
        amount=3,
        targets=[rating(bens, "Climb")],
    )
    data = {"rating": rating(bens, "Climb").id, "source": portion.id}
    html = as_user(other_player).get(raise_url(bens), data, **HTMX).content.decode()
    assert "(ana's portion 3 → 2)?" in html
    assert f'name="source" value="{portion.id}"' in html


def test_without_htmx_a_raise_is_a_confirmation_page_and_a_plain_post(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    client = as_user(player)
    climb = rating(hero, "Climb")
    page = client.get(raise_url(hero), {"rating": climb.id}).content.decode()
    assert "<html" in page and "Raise Climb 2 → 3 for 1 sparetime (balance 3 → 2)?" in page
    assert "hx-post" not in page.split('id="sparetime"')[1]
    keep = re.search(r'<form method="get" action="([^"]+)"', page.split("Confirm raise")[1])
    assert keep.group(1) == url("character_sparetime", hero.campaign, hero.id)
    token = form_token(page, "once")
    data = {"rating": climb.id, "once": token}
    response = client.post(spend_url(hero), data)
    assert response.status_code == 302
    assert "Climb raised to 3." in client.get(response["Location"]).content.decode()
    assert client.post(spend_url(hero), data).status_code == 302  # the double submit
    assert rating(hero, "Climb").value == 3 and free_sparetime(hero) == 2


def test_a_double_submitted_confirmation_raises_once(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    client = as_user(player)
    data = {"rating": rating(hero, "Climb").id, "once": "one-click"}
    responses = [client.post(spend_url(hero), data, **HTMX) for _ in range(2)]
    for response in responses:
        assert response.status_code == 200
        assert "Climb raised to 3." in response.content.decode()
    assert rating(hero, "Climb").value == 3 and free_sparetime(hero) == 2


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"rating": "abc"},
        {"rating": "999999"},
        {"rating": "bens-climb"},
        {"rating": "climb", "source": "grant"},
    ],
)
def test_bad_raise_queries_are_refused(as_user, player, gm, hero, bens, query):
    grant = sparetime_grant(character=hero, amount=3, by=gm)
    names = {
        "climb": rating(hero, "Climb").id,
        "bens-climb": rating(bens, "Climb").id,
        "grant": grant.id,
    }
    query = {key: names.get(value, value) for key, value in query.items()}
    assert as_user(player).get(raise_url(hero), query, **HTMX).status_code == 400


def test_raise_confirmation_access(as_user, player, other_player, outsider, gm, hero, mage):
    query = {"rating": rating(hero, "Climb").id}
    assert as_user(gm).get(raise_url(hero), query, **HTMX).status_code == 200
    assert as_user(other_player).get(raise_url(hero), query).status_code == 403
    assert as_user(outsider).get(raise_url(hero), query).status_code == 404
    assert_login_redirect(as_user(None).get(raise_url(hero), query))
    assert as_user(player).post(raise_url(hero), query).status_code == 405
    assert as_user(player).get(raise_url(mage), {"rating": "1"}).status_code == 404


# Undo --------------------------------------------------------------------------------------------
def undo_url(character):
    return url("sparetime_undo", character.campaign, character.id)


def test_owner_undoes_the_last_raise(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    client = as_user(player)
    client.post(spend_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    html = client.post(spend_url(hero), {"rating": rating(hero, "Dodge").id}, **HTMX)
    html = html.content.decode()
    assert "Last raise: Dodge 0 → 1 for 1 sparetime." in html
    last = SparetimeEntry.objects.get(kind="spend", rating__skill="Dodge")
    assert f'name="entry" value="{last.id}"' in html
    response = client.post(undo_url(hero), {"entry": last.id, "once": "u1"}, **HTMX)
    assert response.status_code == 200
    assert "HX-Trigger" not in response  # its facts push reloads the sheet's Pool section
    html = response.content.decode()
    assert "Undid the raise of Dodge 0 → 1; 1 sparetime back." in html
    assert "Last raise: Climb 2 → 3" in html and "undone" in html
    assert rating(hero, "Dodge").value == 0 and free_sparetime(hero) == 2
    # The same click again undoes nothing more (not the Climb raise before it).
    again = client.post(undo_url(hero), {"entry": last.id, "once": "u1"}, **HTMX)
    assert again.status_code == 200
    assert rating(hero, "Climb").value == 3 and free_sparetime(hero) == 2
    assert_ledger_matches_balances(hero.campaign)


def test_an_undo_that_depends_is_refused(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    client = as_user(player)
    client.post(spend_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    client.post(spend_url(hero), {"rating": rating(hero, "Climb").id}, **HTMX)
    first = SparetimeEntry.objects.filter(kind="spend").order_by("id").first()
    before = db_snapshot()
    response = client.post(undo_url(hero), {"entry": first.id}, **HTMX)
    assert response.status_code == 422
    assert "HX-Trigger" not in response
    assert "Only Aria&#x27;s last raise can be undone; Climb 3 → 4 came after" in (
        response.content.decode()
    )
    plain = client.post(undo_url(hero), {"entry": first.id})
    assert plain.status_code == 200 and "<html" in plain.content.decode()
    assert db_snapshot() == before


def test_undo_without_htmx_redirects(as_user, player, gm, hero):
    sparetime_grant(character=hero, amount=3, by=gm)
    client = as_user(player)
    client.post(spend_url(hero), {"rating": rating(hero, "Climb").id})
    spend = SparetimeEntry.objects.get(kind="spend")
    response = client.post(undo_url(hero), {"entry": spend.id})
    assert response.status_code == 302
    assert response["Location"] == url("character_sparetime", hero.campaign, hero.id)
    assert "Undid the raise of Climb 2 → 3" in client.get(response["Location"]).content.decode()


@pytest.mark.parametrize(
    "entry", ["", "abc", "-1", "999999", "99999999999999999999", "grant", "bens-spend"]
)
def test_bad_undo_input_changes_nothing(as_user, player, gm, hero, bens, entry):
    grant = sparetime_grant(character=hero, amount=3, by=gm)
    sparetime_grant(character=bens, amount=3, by=gm)
    as_user(gm).post(spend_url(bens), {"rating": rating(bens, "Climb").id})
    names = {"grant": grant.id, "bens-spend": SparetimeEntry.objects.get(kind="spend").id}
    before = db_snapshot()
    response = as_user(player).post(undo_url(hero), {"entry": names.get(entry, entry)}, **HTMX)
    assert response.status_code == 422
    assert 'class="errorlist"' in response.content.decode()
    assert db_snapshot() == before


def test_undo_access(as_user, player, other_player, outsider, gm, hero, mage):
    sparetime_grant(character=hero, amount=3, by=gm)
    as_user(player).post(spend_url(hero), {"rating": rating(hero, "Climb").id})
    data = {"entry": SparetimeEntry.objects.get(kind="spend").id}
    before = db_snapshot()
    assert as_user(other_player).post(undo_url(hero), data).status_code == 403
    assert as_user(outsider).post(undo_url(hero), data).status_code == 404
    assert_login_redirect(as_user(None).post(undo_url(hero), data))
    assert as_user(player).get(undo_url(hero)).status_code == 405
    assert as_user(player).post(undo_url(mage), {"entry": "1"}).status_code == 404
    assert db_snapshot() == before
    assert as_user(gm).post(undo_url(hero), data, **HTMX).status_code == 200
    assert rating(hero, "Climb").value == 2


# The GM's reversal -------------------------------------------------------------------------------
def test_gm_reverses_a_grant_after_confirming(as_user, gm, hero, pool_campaign):
    grant = sparetime_grant(character=hero, amount=4, by=gm)
    client = as_user(gm)
    card = client.get(url("gm_sparetime", pool_campaign), **HTMX).content.decode()
    assert 'aria-label="Reverse the starting grant of +4 for Aria"' in card
    before = db_snapshot()
    confirm = client.get(url("sparetime_reversal", pool_campaign), {"entry": grant.id}, **HTMX)
    html = confirm.content.decode()
    assert "Reverse the starting grant of +4 (Aria)? Aria&#x27;s free sparetime 4 → 0." in html
    assert "Confirm reversal" in html and 'name="note"' in html
    kept = client.get(
        url("sparetime_reversal", pool_campaign), {"entry": grant.id, "keep": "1"}, **HTMX
    )
    assert ">Reverse</button>" in kept.content.decode()
    assert db_snapshot() == before
    data = {"entry": grant.id, "note": "Granted twice", "once": "r1"}
    response = client.post(url("sparetime_reverse", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Reversed the starting grant of +4." in html
    assert "<td>Reversal</td>" in html and "Granted twice" in html and "reversed" in html
    assert free_sparetime(hero) == 0
    again = client.post(url("sparetime_reverse", pool_campaign), data, **HTMX)
    assert again.status_code == 200  # the double submit, answered as the first
    assert SparetimeEntry.objects.filter(kind="reversal").count() == 1


def test_gm_reverses_a_raise_and_the_sheet_follows(as_user, gm, player, hero, pool_campaign):
    sparetime_grant(character=hero, amount=3, by=gm)
    as_user(player).post(spend_url(hero), {"rating": rating(hero, "Climb").id})
    spend = SparetimeEntry.objects.get(kind="spend")
    client = as_user(gm)
    confirm = client.get(url("sparetime_reversal", pool_campaign), {"entry": spend.id}, **HTMX)
    assert "Climb 3 → 2; Aria&#x27;s free sparetime 2 → 3." in confirm.content.decode()
    response = client.post(url("sparetime_reverse", pool_campaign), {"entry": spend.id}, **HTMX)
    assert response.status_code == 200
    assert "HX-Trigger" not in response  # its facts push reloads the sheet's Pool section
    assert rating(hero, "Climb").value == 2 and free_sparetime(hero) == 3


def test_a_refused_reversal_shows_why_and_changes_nothing(as_user, gm, player, hero, pool_campaign):
    grant = sparetime_grant(character=hero, amount=2, by=gm)
    as_user(player).post(spend_url(hero), {"rating": rating(hero, "Climb").id})
    client = as_user(gm)
    before = db_snapshot()
    response = client.post(url("sparetime_reverse", pool_campaign), {"entry": grant.id}, **HTMX)
    assert response.status_code == 422 and "HX-Trigger" not in response
    assert "Aria has 1 free sparetime; reversing this starting grant takes 2." in (
        response.content.decode()
    )
    plain = client.post(url("sparetime_reverse", pool_campaign), {"entry": grant.id})
    assert plain.status_code == 200 and "<html" in plain.content.decode()
    assert db_snapshot() == before


def test_without_htmx_a_reversal_is_a_confirmation_page(as_user, gm, hero, pool_campaign):
    grant = sparetime_grant(character=hero, amount=4, by=gm)
    client = as_user(gm)
    page = client.get(url("sparetime_reversal", pool_campaign), {"entry": grant.id})
    html = page.content.decode()
    assert "<html" in html and "Confirm reversal" in html
    assert "hx-post" not in html.split('id="gm-sparetime"')[1]
    data = {"entry": grant.id, "once": form_token(html, "once")}
    response = client.post(url("sparetime_reverse", pool_campaign), data)
    assert response.status_code == 302
    assert response["Location"] == url("gm_sparetime", pool_campaign)
    assert free_sparetime(hero) == 0


@pytest.mark.parametrize("entry", ["", "abc", "999999", "99999999999999999999", "elsewhere"])
def test_bad_reversal_input_changes_nothing(as_user, gm, hero, stranger, pool_campaign, entry):
    sparetime_grant(character=hero, amount=3, by=gm)
    elsewhere = sparetime_grant(character=stranger, amount=3, by=gm)
    entry = elsewhere.id if entry == "elsewhere" else entry
    client = as_user(gm)
    before = db_snapshot()
    response = client.post(url("sparetime_reverse", pool_campaign), {"entry": entry}, **HTMX)
    assert response.status_code == 422
    assert 'class="errorlist"' in response.content.decode()
    too_long = {"entry": SparetimeEntry.objects.get(character=hero).id, "note": "x" * 201}
    response = client.post(url("sparetime_reverse", pool_campaign), too_long, **HTMX)
    assert response.status_code == 422
    query = {"entry": entry} if entry else {}
    assert client.get(url("sparetime_reversal", pool_campaign), query).status_code == 400
    assert db_snapshot() == before


@pytest.mark.parametrize("name", ["sparetime_reversal", "sparetime_reverse"])
def test_reversal_access(as_user, gm, player, other_player, outsider, hero, mana_campaign, name):
    grant = sparetime_grant(character=hero, amount=3, by=gm)
    method = "get" if name == "sparetime_reversal" else "post"
    before = db_snapshot()
    for user, status in ((player, 403), (other_player, 403), (outsider, 404)):
        response = getattr(as_user(user), method)(url(name, hero.campaign), {"entry": grant.id})
        assert response.status_code == status
    assert_login_redirect(getattr(as_user(None), method)(url(name, hero.campaign)))
    response = getattr(as_user(gm), method)(url(name, mana_campaign), {"entry": grant.id})
    assert response.status_code == 404
    wrong = "post" if method == "get" else "get"
    assert getattr(as_user(gm), wrong)(url(name, hero.campaign)).status_code == 405
    assert db_snapshot() == before


@pytest.mark.django_db(transaction=True)
def test_concurrent_reversal_requests_reverse_once(client_factory, gm, player, pool_campaign):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    sparetime_grant(character=hero, amount=3, by=gm)
    spend = sparetime_spend_for(hero, player)
    gm_clients = client_factory(gm, 2)
    player_client = client_factory(player, 1)[0]
    responses = race(
        *[
            lambda c=c: c.post(url("sparetime_reverse", pool_campaign), {"entry": spend.id}, **HTMX)
            for c in gm_clients
        ],
        lambda: player_client.post(undo_url(hero), {"entry": spend.id}, **HTMX),
    )
    assert sorted(r.status_code for r in responses) == [200, 422, 422]
    assert SparetimeEntry.objects.filter(reverses=spend).count() == 1
    assert rating(hero, "Climb").value == 2 and free_sparetime(hero) == 3
    assert_ledger_matches_balances(pool_campaign)


def sparetime_spend_for(character, by):
    from sparetime.services import sparetime_spend

    return sparetime_spend(character=character, rating=rating(character, "Climb"), by=by)


def test_a_reversal_confirmation_says_when_it_would_be_refused(as_user, gm, player, hero):
    grant = sparetime_grant(character=hero, amount=2, by=gm)
    as_user(player).post(spend_url(hero), {"rating": rating(hero, "Climb").id})
    response = as_user(gm).get(
        url("sparetime_reversal", hero.campaign), {"entry": grant.id}, **HTMX
    )
    html = response.content.decode()
    assert "Aria has 1 free sparetime; reversing this starting grant takes 2." in html
    assert "Confirm reversal" not in html and "Keep" in html


# A build ------------------------------------------------------------------------------------------


def build_url(character):
    return url("sparetime_build", character.campaign, character.id)


@pytest.mark.parametrize("who", ["player", "gm"])
def test_the_player_or_the_gm_builds(
    as_user, who, request, hero, gm, django_capture_on_commit_callbacks
):
    sparetime_grant(character=hero, amount=5, by=gm)
    data = {f"points-{rating(hero, 'Strength').id}": 2, f"points-{rating(hero, 'Climb').id}": 1}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(request.getfixturevalue(who)).post(build_url(hero), data, **HTMX)
    assert response.status_code == 200
    assert "Built: 3 points for 3 sparetime." in response.content.decode()
    assert (rating(hero, "Strength").value, rating(hero, "Climb").value) == (4, 3)
    assert free_sparetime(hero) == 2


def test_a_build_is_one_ledger_row_and_one_undo_takes_it_back(as_user, player, hero, gm):
    sparetime_grant(character=hero, amount=5, by=gm)
    client = as_user(player)
    data = {f"points-{rating(hero, 'Strength').id}": 2, f"points-{rating(hero, 'Climb').id}": 1}
    html = client.post(build_url(hero), {**data, "once": "b1"}, **HTMX).content.decode()
    build = SparetimeEntry.objects.get(kind="spend")
    assert "Last raise: Strength 2 → 4, Climb 2 → 3 (3 points) for 3 sparetime." in html
    assert f'name="entry" value="{build.id}"' in html
    ledger = html[html.index('class="sparetime-ledger"') :]
    assert ledger.count("<tr>") == 3  # the head, the grant and the build
    assert re.search(r"Strength 2 → 4, Climb 2 → 3 <span class=\"muted\">\(3 points\)", ledger)
    response = client.post(undo_url(hero), {"entry": build.id, "once": "u1"}, **HTMX)
    html = response.content.decode()
    assert "Undid the raise of Strength 2 → 4, Climb 2 → 3; 3 sparetime back." in html
    assert (rating(hero, "Strength").value, rating(hero, "Climb").value) == (2, 2)
    assert free_sparetime(hero) == 5 and "Undo this raise" not in html


def test_the_build_form_is_on_the_characters_sparetime(as_user, player, hero, gm):
    sparetime_grant(character=hero, amount=5, by=gm)
    html = as_user(player).get(url("character_sparetime", hero.campaign, hero.id), **HTMX)
    html = html.content.decode()
    assert f'name="points-{rating(hero, "Dodge").id}"' in html
    assert 'data-build data-free="5"' in html and "Costs 0 of 5 free sparetime." in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Add at least one point."),
        ({"Strength": "-1"}, "Ensure this value is greater than or equal to 0."),
        ({"Strength": "lots"}, "Enter a whole number."),
        ({"Strength": "6"}, "This build costs 6 sparetime; Aria has 5 free."),
    ],
)
def test_a_bad_build_is_refused_and_changes_nothing(
    as_user, player, hero, gm, pushes, django_capture_on_commit_callbacks, data, message
):
    sparetime_grant(character=hero, amount=5, by=gm)
    data = {f"points-{rating(hero, label).id}": n for label, n in data.items()}
    before = db_snapshot()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = as_user(player).post(build_url(hero), data, **HTMX)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert db_snapshot() == before and callbacks == [] and pushes.sent == []


def test_another_player_or_an_outsider_cannot_build(as_user, other_player, outsider, hero, gm):
    sparetime_grant(character=hero, amount=5, by=gm)
    data = {f"points-{rating(hero, 'Strength').id}": 1}
    before = db_snapshot()
    assert as_user(other_player).post(build_url(hero), data, **HTMX).status_code == 403
    assert as_user(outsider).post(build_url(hero), data, **HTMX).status_code == 404
    assert db_snapshot() == before
