import re

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Membership
from rolls.systems.pool.models import PoolSheet, Rating, settings_of
from rules.sheet import ENDURANCE
from sheets.services import character_create
from sparetime.services import free_sparetime, sparetime_grant, sparetime_spend
from tests.conftest import make_campaign, make_user


def detail(campaign):
    return reverse("campaign_detail", args=[campaign.id])


def test_anonymous_is_sent_to_login(client, pool_campaign):
    response = client.get(detail(pool_campaign))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_outsider_and_unknown_campaign_get_404(as_user, pool_campaign, outsider, gm):
    assert as_user(outsider).get(detail(pool_campaign)).status_code == 404
    assert as_user(gm).get(f"/campaigns/{pool_campaign.id + 999}/").status_code == 404


def test_post_is_not_allowed(as_user, pool_campaign, gm):
    assert as_user(gm).post(detail(pool_campaign)).status_code == 405


def party_row(content, character):
    """The party's row of ``character`` on a page."""
    match = re.search(rf'<tr id="party-{character.id}">(.*?)</tr>', content, re.S)
    return match.group(1) if match else None


def test_a_player_sees_the_whole_party_and_only_their_own_mana(
    as_user, mana_campaign, gm, player, other_player, character_with_pools
):
    mine = character_with_pools(mana_campaign, player, "Ilse", {"blue": (3, 5)})
    theirs = character_with_pools(mana_campaign, other_player, "Bram", {"blue": (4, 7)})
    npc = character_with_pools(mana_campaign, gm, "Harbor master", {"blue": (1, 9)})
    response = as_user(player).get(detail(mana_campaign))
    content = response.content.decode()
    assert response.status_code == 200
    assert "Blue Harbor" in content and "Mana" in content
    assert all(name in content for name in ("gm", "ana", "ben"))
    assert reverse("gm_panel", args=[mana_campaign.id]) not in content
    assert f'href="/campaigns/{mana_campaign.id}/room/"' in content
    assert f'href="{reverse("character_create", args=[mana_campaign.id])}"' in content
    own, other = party_row(content, mine), party_row(content, theirs)
    assert f'href="{reverse("character_detail", args=[mana_campaign.id, mine.id])}"' in own
    assert "Ilse" in own and "ana" in own and "blue 3/5" in own
    assert f'href="{reverse("character_detail", args=[mana_campaign.id, theirs.id])}"' in other
    assert "Bram" in other and "ben" in other
    assert "4/7" not in content  # Bram's pool is ben's and the GM's alone
    assert party_row(content, npc) is None and "Harbor master" not in content  # the GM's NPC
    assert f'ws-connect="/ws/campaigns/{mana_campaign.id}/facts/"' in content


def test_the_gm_sees_every_character_with_its_player_hp_and_sparetime(
    as_user, pool_campaign, gm, player, other_player, character_with_pools
):
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    bram = character_create(campaign=pool_campaign, owner=other_player, name="Bram")
    npc = character_create(campaign=pool_campaign, owner=gm, name="Ogre")
    Rating.objects.filter(character=ilse, skill=ENDURANCE).update(value=2)
    PoolSheet.objects.update_or_create(character_id=ilse.pk, defaults=dict(hp_current=7))
    sparetime_grant(character=ilse, amount=5, by=gm)
    sparetime_grant(character=bram, amount=3, by=gm)
    content = as_user(gm).get(detail(pool_campaign)).content.decode()
    hp_max = settings_of(pool_campaign).hp_max_for(2)
    assert "Ilse" in party_row(content, ilse) and "ana" in party_row(content, ilse)
    assert f"7 / {hp_max}" in party_row(content, ilse)
    assert ">5<" in party_row(content, ilse) and ">3<" in party_row(content, bram)
    assert "Ogre" in party_row(content, npc) and "GM" in party_row(content, npc)
    assert f'href="{reverse("gm_panel", args=[pool_campaign.id])}"' in content


def test_a_player_sees_every_hp_but_only_their_own_sparetime(
    as_user, pool_campaign, gm, player, other_player
):
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    bram = character_create(campaign=pool_campaign, owner=other_player, name="Bram")
    sparetime_grant(character=ilse, amount=5, by=gm)
    sparetime_grant(character=bram, amount=3, by=gm)
    content = as_user(player).get(detail(pool_campaign)).content.decode()
    full = settings_of(pool_campaign).hp_max_for(0)
    assert f"{full} / {full}" in party_row(content, ilse)
    assert f"{full} / {full}" in party_row(content, bram)
    assert ">5<" in party_row(content, ilse)
    assert ">3<" not in party_row(content, bram) and "–" in party_row(content, bram)


def test_free_sparetime_in_the_party_is_the_ledger_s(as_user, pool_campaign, gm, player):
    """The party sums what ``free_sparetime`` sums (earmarked hand-outs and their spends left
    out), in the query that reads the characters."""
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    sparetime_grant(character=ilse, amount=9, by=gm)
    strength = Rating.objects.get(character=ilse, attribute="Strength", skill="")
    sparetime_spend(character=ilse, rating=strength, by=player)
    content = as_user(player).get(detail(pool_campaign)).content.decode()
    assert f">{free_sparetime(ilse)}<" in party_row(content, ilse)
    assert free_sparetime(ilse) < 9


def test_other_campaigns_characters_are_not_shown(as_user, pool_campaign, gm, character_with_pools):
    other = make_campaign(gm, name="Elsewhere")
    character_with_pools(other, gm, "Stranger")
    assert "Stranger" not in as_user(gm).get(detail(pool_campaign)).content.decode()


def test_query_count_does_not_grow_with_members_and_characters(
    as_user, pool_campaign, gm, player, character_with_pools, django_assert_max_num_queries
):
    client = as_user(gm)
    character_with_pools(pool_campaign, player, "Ilse")
    with CaptureQueriesContext(connection) as small:
        client.get(detail(pool_campaign))
    for index in range(12):
        user = make_user(f"extra{index}")
        Membership.objects.create(campaign=pool_campaign, user=user)
        character_with_pools(pool_campaign, user, f"Hero {index}")
    with django_assert_max_num_queries(len(small.captured_queries)):
        response = client.get(detail(pool_campaign))
    assert "Hero 11" in response.content.decode()
    with django_assert_max_num_queries(6):
        client.get(detail(pool_campaign))


def test_pool_player_gets_the_delegation_section_and_the_gm_does_not(
    as_user, pool_campaign, mana_campaign, gm, player
):
    section = f'hx-get="{reverse("sparetime_delegation", args=[pool_campaign.id])}"'
    assert section in as_user(player).get(detail(pool_campaign)).content.decode()
    assert section not in as_user(gm).get(detail(pool_campaign)).content.decode()
    assert 'id="delegation"' not in as_user(player).get(detail(mana_campaign)).content.decode()


def test_the_delegation_section_fetches_itself_again_on_a_delegation_push(
    as_user, pool_campaign, player
):
    html = as_user(player).get(detail(pool_campaign)).content.decode()
    assert 'hx-trigger="load, facts-delegation from:body, facts-resync from:body"' in html
