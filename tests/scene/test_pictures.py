"""The pictures' address: only the campaign's members get the bytes, with caching headers."""

import pytest
from django.urls import reverse

from core.writes import Refused
from scene.models import Picture, picture_url
from scene.services import picture_add
from tests.scene.conftest import picture_bytes


@pytest.fixture
def map_picture(pool_campaign):
    return picture_add(campaign=pool_campaign, upload=picture_bytes("JPEG"))


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
