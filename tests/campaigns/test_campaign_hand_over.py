"""The GM hands the campaign to one of its players (campaigns.views.campaign_hand_over,
services.campaign_hand_over), from the GM panel."""

from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Membership
from sheets.models import Character
from tests.campaigns.helpers import panel
from tests.conftest import PASSWORD
from tests.helpers import HTMX, raises_refused, unchanged


def hand_over(campaign):
    return reverse("campaign_hand_over", args=[campaign.id])


def role(campaign, user):
    return Membership.objects.get(campaign=campaign, user=user).role


def test_the_panel_offers_the_players(as_user, pool_campaign, gm):
    html = as_user(gm).get(panel(pool_campaign)).content.decode()
    assert f'action="{hand_over(pool_campaign)}"' in html
    assert ">ana</option>" in html and ">ben</option>" in html
    assert ">gm</option>" not in html
    assert reverse("campaign_delete", args=[pool_campaign.id]) in html


def test_the_gm_hands_over_and_stays_a_player(as_user, pool_table, gm, player):
    campaign = pool_table.campaign
    client = as_user(gm)
    response = client.post(hand_over(campaign), {"to": player.pk})
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign_detail", args=[campaign.id])
    assert (role(campaign, gm), role(campaign, player)) == (Membership.PLAYER, Membership.GM)
    assert "ana is now the GM of The Marches." in client.get(response["Location"]).content.decode()
    # The NPCs go with the role; the new GM's own character becomes one.
    assert Character.objects.get(pk=pool_table.npc.pk).owner == player
    assert client.get(panel(campaign)).status_code == 403
    assert as_user(player).get(panel(campaign)).status_code == 200
    # And now the old GM may leave.
    services.account_delete(user=gm, password=PASSWORD)
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_with_htmx_the_section_says_so(as_user, pool_campaign, gm, player):
    response = as_user(gm).post(hand_over(pool_campaign), {"to": player.pk}, **HTMX)
    assert response.status_code == 200
    assert "ana is now the GM of The Marches." in response.content.decode()


def test_their_sockets_close(
    pool_campaign, gm, player, monkeypatch, django_capture_on_commit_callbacks
):
    left = []
    monkeypatch.setattr(
        "core.push.leave", lambda user_id, campaign_id=None: left.append((user_id, campaign_id))
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.campaign_hand_over(campaign=pool_campaign, to=player)
    assert sorted(left) == sorted([(gm.pk, pool_campaign.pk), (player.pk, pool_campaign.pk)])


def test_bad_choices_change_nothing(as_user, pool_campaign, gm, outsider):
    client = as_user(gm)
    for to in ("", outsider.pk, gm.pk, "x", 2**40):
        with unchanged():
            response = client.post(hand_over(pool_campaign), {"to": to}, **HTMX)
        assert response.status_code == 422, to
        assert (
            "Select a valid choice" in response.content.decode()
            or "required" in response.content.decode()
        )
    with unchanged():
        response = client.post(hand_over(pool_campaign), {"to": ""})
    assert response.status_code == 200  # the panel, the refusal in place
    assert 'id="gm-leave"' in response.content.decode()


def test_the_service_refuses_anyone_but_a_player(pool_campaign, gm, outsider):
    for to in (gm, outsider, None):
        with unchanged(), raises_refused("Choose a player"):
            services.campaign_hand_over(campaign=pool_campaign, to=to)


def test_players_and_outsiders_may_not(as_user, pool_campaign, player, outsider):
    assert as_user(player).post(hand_over(pool_campaign), {"to": player.pk}).status_code == 403
    assert as_user(outsider).post(hand_over(pool_campaign), {"to": outsider.pk}).status_code == 404
    assert role(pool_campaign, player) == Membership.PLAYER
