"""The pictures' address: only the campaign's members get the bytes, with caching headers."""

import pytest
from django.urls import reverse

from core.writes import Refused
from scene.models import Picture, picture_url
from scene.services import picture_add, scene_add, scene_hide, scene_show, token_add
from tests.scene.conftest import picture_bytes


@pytest.fixture
def map_picture(pool_campaign, gm):
    """The map of the scene the table sees."""
    scene = scene_add(campaign=pool_campaign, name="The ford", upload=picture_bytes("JPEG"))
    scene_show(scene=scene, by=gm)
    return scene.picture


def test_a_member_gets_the_bytes_with_their_type_and_headers(as_user, player, map_picture):
    response = as_user(player).get(picture_url(map_picture))
    assert response.status_code == 200
    assert response.content == picture_bytes("JPEG")
    assert response["Content-Type"] == "image/jpeg"
    assert response["ETag"] == f'"{map_picture.digest}"'
    assert response["Cache-Control"] == "private, max-age=31536000, immutable"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"] == "inline"


def test_the_address_names_the_digest(map_picture):
    assert picture_url(map_picture) == reverse(
        "scene_picture", args=[map_picture.campaign_id, map_picture.pk, map_picture.digest]
    )
    assert picture_url(None) == ""


def test_a_browser_that_has_it_gets_304(as_user, gm, map_picture):
    client = as_user(gm)
    response = client.get(picture_url(map_picture), HTTP_IF_NONE_MATCH=f'"{map_picture.digest}"')
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == f'"{map_picture.digest}"'
    other = client.get(picture_url(map_picture), HTTP_IF_NONE_MATCH='"something-else"')
    assert other.status_code == 200


def test_an_outsider_gets_404(as_user, outsider, map_picture):
    assert as_user(outsider).get(picture_url(map_picture)).status_code == 404


def test_anonymous_is_sent_to_log_in(as_user, map_picture):
    response = as_user(None).get(picture_url(map_picture))
    assert response.status_code == 302


def test_a_wrong_digest_is_404(as_user, player, map_picture):
    url = reverse("scene_picture", args=[map_picture.campaign_id, map_picture.pk, "0" * 64])
    assert as_user(player).get(url).status_code == 404


def test_another_campaigns_picture_is_404_through_this_one(as_user, gm, player, pool_campaign):
    from tests.conftest import make_campaign

    other = make_campaign(gm, name="Elsewhere", players=[player])
    elsewhere = picture_add(campaign=other, upload=picture_bytes())
    url = reverse("scene_picture", args=[pool_campaign.pk, elsewhere.pk, elsewhere.digest])
    assert as_user(player).get(url).status_code == 404


def test_picture_add_refuses_what_is_not_an_accepted_image(pool_campaign):
    with pytest.raises(Refused):
        picture_add(campaign=pool_campaign, upload=picture_bytes("GIF"))
    assert not Picture.objects.exists()


def test_a_player_sees_only_the_pictures_the_table_sees(as_user, gm, player, pool_campaign):
    """A map kept for later, a GM-only token's picture, a picture of nothing: the GM's alone,
    however the address was learned; the shown scene's map and its tokens' pictures: everyone's."""
    later = scene_add(campaign=pool_campaign, name="The lair", upload=picture_bytes(size=(9, 9)))
    shown = scene_add(campaign=pool_campaign, name="The ford", upload=picture_bytes())
    scene_show(scene=shown, by=gm)
    token = token_add(scene=shown, name="Ilse", colour="#000000", upload=picture_bytes(size=(5, 5)))
    hidden = token_add(
        scene=shown,
        name="Lurker",
        colour="#000000",
        gm_only=True,
        upload=picture_bytes(size=(6, 6)),
    )
    loose = picture_add(campaign=pool_campaign, upload=picture_bytes(size=(7, 7)))
    seen = {shown.picture: 200, token.picture: 200, later.picture: 404, hidden.picture: 404}
    seen[loose] = 404
    for picture, status in seen.items():
        assert as_user(player).get(picture_url(picture)).status_code == status
        assert as_user(gm).get(picture_url(picture)).status_code == 200
    # Hidden again, the map is the GM's again.
    scene_hide(campaign=pool_campaign)
    assert as_user(player).get(picture_url(shown.picture)).status_code == 404
