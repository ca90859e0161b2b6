"""A handout's picture through the pictures' address (scene.views.picture): to those the handout
is shared with and the GM only; 404 to every other member, as to an outsider."""

import pytest

from scene import services
from tests.scene.conftest import picture_bytes

pytestmark = pytest.mark.django_db


def share(campaign, **kwargs):
    return services.handout_share(campaign=campaign, **{"title": "A letter", **kwargs})


def test_a_handout_s_picture_is_404_to_those_it_is_not_shared_with(
    as_user, pool_campaign, gm, player, other_player, outsider
):
    handout = share(pool_campaign, everyone=False, recipients=[player], upload=picture_bytes())
    path = handout.picture.get_absolute_url()
    assert as_user(player).get(path).status_code == 200
    assert as_user(gm).get(path).status_code == 200
    assert as_user(other_player).get(path).status_code == 404
    assert as_user(outsider).get(path).status_code == 404
    # Shared with ben too, he sees it.
    handout.recipients.add(other_player)
    assert as_user(other_player).get(path).status_code == 200


def test_a_browser_that_has_it_still_gets_404_when_it_is_not_for_them(
    as_user, pool_campaign, player, other_player
):
    handout = share(pool_campaign, everyone=False, recipients=[player], upload=picture_bytes())
    tag = f'"{handout.picture.digest}"'
    response = as_user(other_player).get(handout.picture.get_absolute_url(), HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 404


def test_a_picture_for_everyone_is_every_member_s(as_user, pool_campaign, player, other_player):
    handout = share(pool_campaign, upload=picture_bytes("JPEG"))
    for user in (player, other_player):
        response = as_user(user).get(handout.picture.get_absolute_url())
        assert response.status_code == 200
        assert response["Content-Type"] == "image/jpeg"
