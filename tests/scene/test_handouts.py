"""The GM's handouts (scene/services.py's handout_*, scene/handouts.py): shared with every
player or with the players ticked, seen by those alone (their list, their page, the picture),
refused cleanly (nothing stored, nothing pushed), taken back by the GM."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns.models import Membership
from core import images
from scene import services
from scene.handout_push import handouts_for
from scene.models import Handout, Picture, Scene
from tests.conftest import make_campaign, make_user
from tests.core.test_images import png_declaring
from tests.helpers import HTMX, raises_refused, unchanged
from tests.rolls.room_setup import refused
from tests.scene.conftest import picture_bytes

pytestmark = pytest.mark.django_db

#: What a renamed executable starts with (a Windows program's MZ header).
EXECUTABLE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\0" * 200


def share(campaign, **kwargs):
    return services.handout_share(campaign=campaign, **{"title": "A letter", **kwargs})


def seen_by(campaign, user):
    is_gm = user.pk == campaign.gm_id()
    return [h.title for h in handouts_for(campaign, user_id=user.pk, is_gm=is_gm)]


def upload(data, name="clue.png", content_type="image/png"):
    return SimpleUploadedFile(name, data, content_type=content_type)


# The services --------------------------------------------------------------------------------


def test_a_handout_for_everyone_reaches_every_member(pool_campaign, gm, player, other_player):
    handout = share(pool_campaign, text="Meet me at the docks.")
    assert handout.everyone and list(handout.recipients.all()) == []
    for user in (gm, player, other_player):
        assert seen_by(pool_campaign, user) == ["A letter"]


def test_a_handout_for_chosen_players_reaches_them_and_the_gm_alone(
    pool_campaign, gm, player, other_player
):
    share(pool_campaign, title="For ana", everyone=False, recipients=[player])
    share(pool_campaign, title="For all")
    assert seen_by(pool_campaign, player) == ["For all", "For ana"]
    assert seen_by(pool_campaign, other_player) == ["For all"]
    assert seen_by(pool_campaign, gm) == ["For all", "For ana"]


def test_a_handout_listed_once_with_several_recipients(pool_campaign, player, other_player):
    share(pool_campaign, everyone=False, recipients=[player, other_player])
    assert seen_by(pool_campaign, player) == ["A letter"]


def test_a_handout_with_an_image_keeps_it_as_uploaded(pool_campaign):
    data = picture_bytes("WEBP")
    handout = share(pool_campaign, upload=upload(data, "clue.webp", "image/webp"))
    picture = Picture.objects.get(pk=handout.picture_id)
    assert bytes(picture.data) == data
    assert (picture.content_type, picture.width, picture.height) == ("image/webp", 40, 30)
    assert picture.campaign == pool_campaign


def test_the_title_and_text_are_kept_trimmed(pool_campaign):
    handout = share(pool_campaign, title="  A letter \n", text="\n Dear ana,\n\nyours. \n")
    assert (handout.title, handout.text) == ("A letter", "Dear ana,\n\nyours.")


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"title": "   "}, "title"),
        ({"title": "x" * (services.HANDOUT_TITLE_MAX + 1)}, "at most 100"),
        ({"text": "x" * (services.HANDOUT_TEXT_MAX + 1)}, "at most 5,000"),
        ({"everyone": False}, "Choose the players"),
        ({"upload": upload(EXECUTABLE, "map.png")}, "not a PNG, JPEG or WebP"),
        ({"upload": upload(picture_bytes("GIF"), "map.png")}, "not a PNG, JPEG or WebP"),
        ({"upload": upload(png_declaring(50_000, 50_000))}, "too big"),
        ({"upload": upload(picture_bytes() + b"\0" * images.MAX_BYTES)}, "too large"),
        ({"upload": upload(picture_bytes("PNG", (300, 300))[:500])}, "damaged"),
    ],
)
def test_bad_input_is_refused_and_nothing_stored(pool_campaign, kwargs, match):
    with unchanged(), raises_refused(match=match):
        share(pool_campaign, **kwargs)
    assert not Handout.objects.exists() and not Picture.objects.exists()


def test_a_recipient_who_is_not_a_player_is_refused(pool_campaign, gm, player, outsider):
    for stranger in (outsider, gm):
        with unchanged(), raises_refused(match="not a player of this campaign"):
            share(pool_campaign, everyone=False, recipients=[player, stranger])


def test_the_longest_title_and_text_are_kept(pool_campaign):
    title, text = "t" * services.HANDOUT_TITLE_MAX, "x" * services.HANDOUT_TEXT_MAX
    handout = share(pool_campaign, title=title, text=text)
    handout.refresh_from_db()
    assert (handout.title, handout.text) == (title, text)


def test_a_deleted_handout_takes_its_picture_along(pool_campaign, player):
    handout = share(pool_campaign, upload=upload(picture_bytes()))
    kept = share(pool_campaign, title="Kept")
    services.handout_delete(handout=handout)
    assert list(Handout.objects.all()) == [kept]
    assert not Picture.objects.exists()
    assert seen_by(pool_campaign, player) == ["Kept"]


def test_a_deleted_handout_leaves_a_picture_a_scene_shows(pool_campaign):
    handout = share(pool_campaign, upload=upload(picture_bytes()))
    Scene.objects.create(campaign=pool_campaign, name="Docks", picture=handout.picture)
    services.handout_delete(handout=handout)
    assert Picture.objects.count() == 1


def test_a_handout_s_picture_is_visible_to_those_it_is_shared_with(
    pool_campaign, gm, player, other_player
):
    secret = share(pool_campaign, everyone=False, recipients=[player], upload=picture_bytes())
    public = share(pool_campaign, upload=picture_bytes("JPEG"))
    other = services.picture_add(campaign=pool_campaign, upload=picture_bytes("WEBP"))
    visible = services.picture_visible
    assert visible(secret.picture, pool_campaign, player)
    assert visible(secret.picture, pool_campaign, gm)
    assert not visible(secret.picture, pool_campaign, other_player)
    assert visible(public.picture, pool_campaign, other_player)
    # Not a handout's: the scene's rules (a picture of nothing the table sees: the GM's).
    assert not visible(other, pool_campaign, other_player)
    assert visible(other, pool_campaign, gm)


# The views -----------------------------------------------------------------------------------


def url(name, campaign, *args):
    return reverse(name, args=[campaign.pk, *args])


def form_data(**overrides):
    return {
        "handout-title": "A letter",
        "handout-text": "",
        "handout-audience": "everyone",
        **overrides,
    }


def test_the_gm_shares_from_the_form(as_user, pool_campaign, gm, player, pushes):
    client = as_user(gm)
    page = client.get(url("scene_handouts_gm", pool_campaign))
    assert page.status_code == 200
    assert 'name="handout-recipients"' in page.content.decode()
    data = form_data(**{"handout-audience": "chosen", "handout-recipients": [player.pk]})
    data["handout-picture"] = upload(picture_bytes())
    response = client.post(url("scene_handout_share", pool_campaign), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Shared A letter with ana." in html
    assert 'class="handouts" hx-swap-oob="outerHTML"' in html  # the GM's list with it
    handout = Handout.objects.get()
    assert not handout.everyone and list(handout.recipients.all()) == [player]
    assert handout.picture is not None


def test_a_plain_post_goes_to_the_handouts_page(as_user, pool_campaign, gm):
    response = as_user(gm).post(url("scene_handout_share", pool_campaign), form_data())
    assert response.status_code == 302
    assert response["Location"] == url("scene_handouts", pool_campaign)
    assert Handout.objects.get().everyone


@pytest.mark.parametrize(
    "overrides,says",
    [
        ({"handout-title": ""}, "This field is required."),
        ({"handout-title": "x" * 101}, "at most 100 characters"),
        ({"handout-text": "x" * 5001}, "at most 5000 characters"),
        ({"handout-audience": "chosen"}, "Tick the players to share it with."),
        ({"handout-audience": "nobody"}, "Select a valid choice."),
        ({"handout-audience": "chosen", "handout-recipients": ["99999999999"]}, "Choose players"),
        ({"handout-picture": upload(EXECUTABLE, "map.png")}, "not a PNG, JPEG or WebP"),
        ({"handout-picture": upload(picture_bytes("GIF"), "map.gif")}, "not a PNG, JPEG"),
        ({"handout-picture": upload(png_declaring(20_000, 20_000))}, "too big"),
    ],
)
def test_bad_input_answers_422_and_changes_and_pushes_nothing(
    client, pool_campaign, gm, pushes, django_capture_on_commit_callbacks, overrides, says
):
    client.force_login(gm)
    html = refused(
        client,
        url("scene_handout_share", pool_campaign),
        form_data(**overrides),
        pool_campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert says in html
    assert 'id="handout-form"' in html


def test_a_recipient_outside_the_campaign_is_refused(
    client, pool_campaign, gm, outsider, pushes, django_capture_on_commit_callbacks
):
    elsewhere = make_campaign(gm, name="Elsewhere", players=[outsider])
    assert elsewhere.pk != pool_campaign.pk
    client.force_login(gm)
    data = form_data(**{"handout-audience": "chosen", "handout-recipients": [outsider.pk]})
    html = refused(
        client,
        url("scene_handout_share", pool_campaign),
        data,
        pool_campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Choose players of this campaign." in html


def test_only_the_gm_shares(as_user, pool_campaign, player, outsider):
    for user, status in ((player, 403), (outsider, 404)):
        with unchanged():
            client = as_user(user)
            assert (
                client.post(url("scene_handout_share", pool_campaign), form_data()).status_code
                == status
            )
            assert client.get(url("scene_handouts_gm", pool_campaign)).status_code == status
    anonymous = as_user(None).get(url("scene_handouts_gm", pool_campaign))
    assert anonymous.status_code == 302


def test_each_member_s_page_lists_their_handouts(
    as_user, pool_campaign, gm, player, other_player, outsider
):
    share(pool_campaign, title="For ana", text="One.\n\nTwo", everyone=False, recipients=[player])
    share(pool_campaign, title="For all")
    ana = as_user(player).get(url("scene_handouts", pool_campaign)).content.decode()
    assert "For ana" in ana and "For all" in ana
    assert "<p>One.</p>\n\n<p>Two</p>" in ana
    assert ana.index("For all") < ana.index("For ana")  # newest first
    assert 'name="handout-title"' not in ana and "Delete" not in ana
    ben = as_user(other_player).get(url("scene_handouts", pool_campaign)).content.decode()
    assert "For all" in ben and "For ana" not in ben and "One." not in ben
    gm_page = as_user(gm).get(url("scene_handouts", pool_campaign)).content.decode()
    assert "For ana" in gm_page and "Delete" in gm_page and 'name="handout-title"' in gm_page
    assert as_user(outsider).get(url("scene_handouts", pool_campaign)).status_code == 404


def test_the_list_alone_for_htmx(as_user, pool_campaign, player):
    share(pool_campaign)
    html = as_user(player).get(url("scene_handouts", pool_campaign), **HTMX).content.decode()
    assert 'id="handouts-list"' in html and "A letter" in html
    assert "<html" not in html
    assert 'hx-trigger="facts-resync from:body"' in html


def test_typed_text_is_escaped_and_isolated(as_user, pool_campaign, player):
    share(pool_campaign, title="\u202eevil <b>", text="<script>alert(1)</script>")
    html = as_user(player).get(url("scene_handouts", pool_campaign)).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "<bdi>\u202eevil &lt;b&gt;</bdi>" in html
    assert 'dir="auto"' in html


def test_the_room_shows_the_card(as_user, pool_campaign, gm, player, other_player):
    share(pool_campaign, title="For ana", everyone=False, recipients=[player])
    ana = as_user(player).get(reverse("room", args=[pool_campaign.pk])).content.decode()
    assert 'id="handouts"' in ana and "For ana" in ana and 'aria-live="polite"' in ana
    assert 'name="handout-title"' not in ana
    ben = as_user(other_player).get(reverse("room", args=[pool_campaign.pk])).content.decode()
    assert 'id="handouts"' in ben and "For ana" not in ben
    gm_room = as_user(gm).get(reverse("room", args=[pool_campaign.pk])).content.decode()
    assert "For ana" in gm_room and 'name="handout-title"' in gm_room


def test_the_gm_deletes_a_handout(as_user, pool_campaign, gm, player, pushes):
    handout = share(pool_campaign, title="Gone", everyone=False, recipients=[player])
    pushes.sent.clear()
    response = as_user(gm).post(url("scene_handout_delete", pool_campaign, handout.pk), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Deleted Gone." in html and 'id="handout-' not in html
    assert not Handout.objects.exists()


def test_only_the_gm_deletes_and_only_this_campaign_s(as_user, pool_campaign, gm, player, outsider):
    handout = share(pool_campaign)
    path = url("scene_handout_delete", pool_campaign, handout.pk)
    for user, status in ((player, 403), (outsider, 404)):
        with unchanged():
            assert as_user(user).post(path).status_code == status
    other = make_campaign(gm, name="Elsewhere")
    with unchanged():
        response = as_user(gm).post(url("scene_handout_delete", other, handout.pk))
        assert response.status_code == 404


def test_a_new_member_sees_the_handouts_for_everyone(pool_campaign, player):
    share(pool_campaign, title="For all")
    share(pool_campaign, title="For ana", everyone=False, recipients=[player])
    newcomer = make_user("cleo")
    pool_campaign.memberships.create(user=newcomer, role=Membership.PLAYER)
    assert seen_by(pool_campaign, newcomer) == ["For all"]
