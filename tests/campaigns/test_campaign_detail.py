from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Membership
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


def test_player_sees_members_and_only_own_characters(
    as_user, mana_campaign, player, other_player, character_with_pools
):
    mine = character_with_pools(mana_campaign, player, "Ilse")
    character_with_pools(mana_campaign, other_player, "Bram")
    response = as_user(player).get(detail(mana_campaign))
    content = response.content.decode()
    assert response.status_code == 200
    assert "Blue Harbor" in content and "Mana" in content
    assert all(name in content for name in ("gm", "ana", "ben"))
    assert "Ilse" in content
    assert "Bram" not in content
    assert reverse("gm_panel", args=[mana_campaign.id]) not in content
    assert f'href="/campaigns/{mana_campaign.id}/room/"' in content
    assert f'href="{reverse("character_detail", args=[mana_campaign.id, mine.id])}"' in content
    assert f'href="{reverse("character_create", args=[mana_campaign.id])}"' in content


def test_gm_sees_all_characters_with_owners_and_the_panel_link(
    as_user, pool_campaign, gm, player, other_player, character_with_pools
):
    character_with_pools(pool_campaign, player, "Ilse")
    character_with_pools(pool_campaign, other_player, "Bram")
    content = as_user(gm).get(detail(pool_campaign)).content.decode()
    assert "Ilse" in content and "(ana)" in content
    assert "Bram" in content and "(ben)" in content
    assert f'href="{reverse("gm_panel", args=[pool_campaign.id])}"' in content


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
