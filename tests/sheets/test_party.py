"""The party (sheets/party.py, sheets/_party.html): its own view, which the room and the campaign
page fetch again when a facts push arrives, and its panel in the room; who sees what of it
(outsider, player, GM). The campaign page's party: tests/campaigns/test_campaign_detail.py."""

import re

import pytest
from django.urls import reverse

from rolls.systems.mana.models import ManaPool
from rolls.systems.pool.models import PoolSheet, Rating, settings_of
from rules.sheet import ENDURANCE
from sheets.services import character_create
from sparetime.services import sparetime_grant
from tests.helpers import HTMX


def party_url(campaign):
    return reverse("party", args=[campaign.id])


def room_url(campaign):
    return reverse("room", args=[campaign.id])


def row(content, character):
    match = re.search(rf'<tr id="party-{character.id}">(.*?)</tr>', content, re.S)
    return match.group(1) if match else None


@pytest.fixture
def pool_party(pool_campaign, gm, player, other_player):
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    tor = character_create(campaign=pool_campaign, owner=other_player, name="Tor <b>")
    ogre = character_create(campaign=pool_campaign, owner=gm, name="The Ogre")
    Rating.objects.filter(character=ilse, skill=ENDURANCE).update(value=3)
    PoolSheet.objects.update_or_create(character_id=ilse.pk, defaults=dict(hp_current=4))
    sparetime_grant(character=ilse, amount=6, by=gm)
    sparetime_grant(character=tor, amount=11, by=gm)
    return pool_campaign, ilse, tor, ogre


@pytest.fixture
def mana_party(mana_campaign, gm, player, other_player):
    mira = character_create(campaign=mana_campaign, owner=player, name="Mira")
    bo = character_create(campaign=mana_campaign, owner=other_player, name="Bo")
    ManaPool.objects.filter(character=mira, color="blue").update(current=2, maximum=3)
    ManaPool.objects.filter(character=bo, color="blue").update(current=7, maximum=8)
    return mana_campaign, mira, bo


def test_anonymous_and_outsider_get_no_party(client, as_user, outsider, pool_party):
    campaign = pool_party[0]
    assert client.get(party_url(campaign)).status_code == 302
    assert as_user(outsider).get(party_url(campaign)).status_code == 404
    assert as_user(outsider).get(party_url(campaign), **HTMX).status_code == 404


def test_the_party_view_takes_no_post(as_user, player, pool_party):
    assert as_user(player).post(party_url(pool_party[0]), **HTMX).status_code == 405


@pytest.mark.parametrize("page", [party_url, room_url])
def test_a_player_sees_every_hp_their_own_sparetime_and_no_npc(as_user, player, pool_party, page):
    campaign, ilse, tor, ogre = pool_party
    content = as_user(player).get(page(campaign)).content.decode()
    assert 'id="party"' in content
    mine, theirs = row(content, ilse), row(content, tor)
    assert f"4 / {settings_of(campaign).hp_max_for(3)}" in mine and ">6<" in mine and "ana" in mine
    assert reverse("character_detail", args=[campaign.id, ilse.id]) in mine
    full = settings_of(campaign).hp_max_for(0)
    assert f"{full} / {full}" in theirs and "ben" in theirs
    assert reverse("character_detail", args=[campaign.id, tor.id]) in theirs
    assert ">11<" not in theirs  # Tor's sparetime is ben's and the GM's (11 may be in an id)
    assert "Tor &lt;b&gt;" in theirs and "Tor <b>" not in content  # escaped
    assert row(content, ogre) is None  # the GM's NPC


@pytest.mark.parametrize("page", [party_url, room_url])
def test_the_gm_sees_every_character_s_sparetime(as_user, gm, pool_party, page):
    campaign, ilse, tor, ogre = pool_party
    content = as_user(gm).get(page(campaign)).content.decode()
    assert ">6<" in row(content, ilse) and ">11<" in row(content, tor)
    assert "GM" in row(content, ogre)


@pytest.mark.parametrize("page", [party_url, room_url])
def test_mana_pools_in_the_party_are_their_player_s_and_the_gm_s(
    as_user, gm, player, other_player, mana_party, page
):
    campaign, mira, bo = mana_party
    ana = as_user(player).get(page(campaign)).content.decode()
    assert "blue 2/3" in row(ana, mira)
    assert "7/8" not in ana and "Bo" in row(ana, bo)
    assert "HP" not in re.search(r'<div id="party".*?</div>', ana, re.S).group(0)
    gm_page = as_user(gm).get(page(campaign)).content.decode()
    assert "blue 2/3" in row(gm_page, mira) and "blue 7/8" in row(gm_page, bo)


def test_the_party_fetches_itself_again_on_a_facts_push(as_user, player, pool_party):
    content = as_user(player).get(party_url(pool_party[0])).content.decode()
    assert f'hx-get="{party_url(pool_party[0])}"' in content
    assert 'hx-trigger="facts from:body, facts-resync from:body"' in content


def test_the_party_view_runs_a_fixed_number_of_queries(
    as_user, gm, pool_party, other_player, django_assert_max_num_queries
):
    campaign = pool_party[0]
    client = as_user(gm)
    for index in range(8):
        character = character_create(campaign=campaign, owner=other_player, name=f"Hero {index}")
        sparetime_grant(character=character, amount=1, by=gm)
    with django_assert_max_num_queries(4):  # session user, access, the party, its sum
        response = client.get(party_url(campaign))
    assert "Hero 7" in response.content.decode()


# The sheet's pieces follow the facts -----------------------------------------------------------


def test_the_sheet_page_listens_for_its_character_s_facts(as_user, player, pool_party):
    campaign, ilse, _tor, _ogre = pool_party
    path = reverse("character_detail", args=[campaign.id, ilse.id])
    content = as_user(player).get(path).content.decode()
    assert f'ws-connect="/ws/campaigns/{campaign.id}/facts/"' in content
    trigger = f"facts-{ilse.id} from:body, facts-resync from:body"
    assert 'id="sheet-pool" class="card" hx-target="this" hx-swap="outerHTML"' in content
    assert f'hx-trigger="{trigger}">' in content  # the header and the Pool section
    assert f'hx-trigger="load, {trigger}"' in content  # the sparetime section


def test_the_mana_section_fetched_again_shows_the_pool_to_its_player_alone(
    as_user, player, other_player, mana_party
):
    campaign, mira, _bo = mana_party
    path = reverse("character_detail", args=[campaign.id, mira.id]) + "?section=mana"
    own = as_user(player).get(path, **HTMX).content.decode()
    assert f'hx-trigger="facts-{mira.id} from:body, facts-resync from:body"' in own
    assert 'swatch-blue" aria-hidden="true"></span>blue</span></td><td>2</td><td>3</td>' in own
    other = as_user(other_player).get(path, **HTMX).content.decode()
    assert 'id="sheet-mana"' in other and "swatch-blue" not in other
