"""The GM hands the campaign to one of its players (campaigns.views.campaign_hand_over,
services.campaign_hand_over), from the GM panel."""

from contextlib import AsyncExitStack

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Membership
from room.consumers import RECAST
from sheets.models import Character
from tests.campaigns.helpers import panel
from tests.conftest import PASSWORD
from tests.helpers import HTMX, raises_refused, unchanged
from tests.rolls.sockets import before_mark, post, room, with_clients


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


@pytest.fixture
def table(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("empty_channel_layer")
async def test_both_pages_load_again_as_what_they_are_now(table, player):
    """Through real sockets: the old and the new GM's room sockets close with RECAST, which
    static/js/site.js answers by loading the page again; the other player's stays open."""
    async with AsyncExitStack() as stack:
        gm_socket, ana_socket, ben_socket = await room(stack, table)
        await before_mark(gm_socket, ana_socket, ben_socket)
        response = await post(table, "gm", "campaign_hand_over", {"to": player.pk}, htmx=False)
        assert response.status_code == 302
        for closed in (gm_socket, ana_socket):
            assert await closed.receive_output(timeout=5) == {
                "type": "websocket.close",
                "code": RECAST,
            }
        await post(table, "ana", "talk_say", {"text": "I am the GM now"})
        [heard] = await before_mark(ben_socket, presence=False)
        assert any("I am the GM now" in frame for frame in heard)
        # Ben's party learns that ana's characters are NPCs now.
        assert any(frame.startswith("<!--facts ") for frame in heard), heard


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
