"""The GM's scenes page: uploading maps, their grids, showing one, tokens; who may; what is
refused (nothing stored, nothing pushed)."""

import re

import pytest
from django.urls import reverse

from core.images import MAX_BYTES
from rolls.export import entry_cells
from rolls.models import LogEntry
from scene.models import Picture, Scene, Token
from scene.services import scene_show, token_add
from tests.core.test_images import png_declaring
from tests.helpers import HTMX
from tests.rolls.room_setup import refused
from tests.scene.conftest import picture_bytes, upload


def scenes_url(table, name="scenes", *args):
    return reverse(name, args=[table.campaign.pk, *args])


# The page ---------------------------------------------------------------------------------------


def test_the_gm_sees_the_scenes(as_user, gm, pool_table, ford):
    html = as_user(gm).get(scenes_url(pool_table)).content.decode()
    assert "The ford" in html
    assert ford.picture.get_absolute_url() in html
    assert reverse("scene_show", args=[pool_table.campaign.pk, ford.pk]) in html


@pytest.mark.parametrize("who,status", [("player", 403), ("outsider", 404)])
def test_others_may_not_see_the_scenes(as_user, pool_table, player, outsider, who, status):
    user = player if who == "player" else outsider
    assert as_user(user).get(scenes_url(pool_table)).status_code == status


def test_the_gm_panel_and_the_room_link_to_the_scenes(as_user, gm, player, pool_table):
    client = as_user(gm)
    link = scenes_url(pool_table)
    assert link in client.get(reverse("gm_panel", args=[pool_table.campaign.pk])).content.decode()
    assert link in client.get(reverse("room", args=[pool_table.campaign.pk])).content.decode()
    assert (
        link
        not in as_user(player).get(reverse("room", args=[pool_table.campaign.pk])).content.decode()
    )


# Uploading a map --------------------------------------------------------------------------------


def test_the_gm_uploads_a_map(as_user, gm, pool_table, pushes):
    data = picture_bytes("WEBP", size=(64, 48))
    response = as_user(gm).post(
        scenes_url(pool_table, "scene_add"),
        {"name": "The ford", "image": upload(data, name="whatever.bin", content_type="text/plain")},
    )
    assert response.status_code == 302
    scene = Scene.objects.get()
    assert (scene.name, scene.shown) == ("The ford", False)
    assert bytes(scene.picture.data) == data
    assert (scene.picture.content_type, scene.picture.width, scene.picture.height) == (
        "image/webp",
        64,
        48,
    )
    assert pushes.sent == []  # nobody sees it before it is shown


def test_an_htmx_upload_answers_with_the_list(as_user, gm, pool_table):
    response = as_user(gm).post(
        scenes_url(pool_table, "scene_add"),
        {"name": "Cave", "image": upload(picture_bytes())},
        **HTMX,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="scenes"' in html and "Added the scene Cave." in html


REFUSED_UPLOADS = {
    "a renamed executable": (b"MZ\x90\x00" + b"\x00" * 200, "not a PNG, JPEG or WebP"),
    "an image bomb": (png_declaring(30_000, 30_000), "too big"),
    "a huge file": (b"\x89PNG\r\n\x1a\n" + b"\x00" * MAX_BYTES, "too large"),
    "a GIF": (picture_bytes("GIF"), "not a PNG, JPEG or WebP"),
    "a truncated PNG": (picture_bytes()[:60], "damaged or incomplete"),
}


@pytest.mark.parametrize("what", list(REFUSED_UPLOADS))
def test_what_is_not_an_accepted_image_is_refused_and_nothing_is_stored(
    as_user, gm, pool_table, pushes, django_capture_on_commit_callbacks, what
):
    data, sentence = REFUSED_UPLOADS[what]
    html = refused(
        as_user(gm),
        scenes_url(pool_table, "scene_add"),
        {"name": "The ford", "image": upload(data)},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert sentence in html
    assert not Picture.objects.exists()


@pytest.mark.parametrize(
    "data", [{"name": "", "image": b""}, {"name": "x" * 81}, {"name": "a\u202eb"}]
)
def test_a_bad_form_is_refused(
    as_user, gm, pool_table, pushes, django_capture_on_commit_callbacks, data
):
    data = {**data, "image": upload(picture_bytes())} if "image" not in data else {"name": ""}
    refused(
        as_user(gm),
        scenes_url(pool_table, "scene_add"),
        data,
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )


def test_a_refused_plain_post_shows_the_page_with_the_refusal(as_user, gm, pool_table):
    response = as_user(gm).post(
        scenes_url(pool_table, "scene_add"), {"name": "Gif", "image": upload(picture_bytes("GIF"))}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Scenes" in html and "not a PNG, JPEG or WebP" in html
    assert not Scene.objects.exists()


# The grid ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "grid,x,y,snap", [(0, -500, -500, ""), (500, 500, 500, "on"), (1, 0, 0, "on")]
)
def test_the_grid_takes_both_ends_of_its_ranges(as_user, gm, pool_table, ford, grid, x, y, snap):
    data = {"grid": grid, "grid_x": x, "grid_y": y}
    if snap:
        data["snap"] = snap
    response = as_user(gm).post(scenes_url(pool_table, "scene_grid", ford.pk), data, **HTMX)
    assert response.status_code == 200
    ford.refresh_from_db()
    assert (ford.grid, ford.grid_x, ford.grid_y, ford.snap) == (grid, x, y, bool(snap))


@pytest.mark.parametrize(
    "data",
    [
        {"grid": 501, "grid_x": 0, "grid_y": 0},
        {"grid": -1, "grid_x": 0, "grid_y": 0},
        {"grid": 50, "grid_x": 501, "grid_y": 0},
        {"grid": 50, "grid_x": 0, "grid_y": -501},
        {"grid": "ten", "grid_x": 0, "grid_y": 0},
        {"grid": 10**30, "grid_x": 0, "grid_y": 0},
    ],
)
def test_a_grid_out_of_range_is_refused(
    as_user, gm, pool_table, ford, pushes, django_capture_on_commit_callbacks, data
):
    refused(
        as_user(gm),
        scenes_url(pool_table, "scene_grid", ford.pk),
        data,
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )


def test_a_scene_of_another_campaign_is_404(as_user, gm, pool_table, mana_table):
    from scene.services import scene_add

    other = scene_add(campaign=mana_table.campaign, name="Far", upload=picture_bytes())
    response = as_user(gm).post(scenes_url(pool_table, "scene_show", other.pk), **HTMX)
    assert response.status_code == 404


# Showing ----------------------------------------------------------------------------------------


def test_showing_a_scene_logs_it_and_shows_only_it(as_user, gm, player, pool_table, ford):
    from scene.services import scene_add

    cave = scene_add(campaign=pool_table.campaign, name="Cave", upload=picture_bytes())
    client = as_user(gm)
    assert client.post(scenes_url(pool_table, "scene_show", ford.pk)).status_code == 302
    assert client.post(scenes_url(pool_table, "scene_show", cave.pk)).status_code == 302
    assert list(Scene.objects.filter(shown=True)) == [cave]
    entries = list(LogEntry.objects.filter(kind=LogEntry.SCENE).order_by("seq"))
    assert [e.data["name"] for e in entries] == ["The ford", "Cave"]
    assert entries[1].prev_hash == entries[0].hash  # chained as every entry
    room = as_user(player).get(reverse("room", args=[pool_table.campaign.pk])).content.decode()
    assert "The GM showed the scene Cave" in room
    assert cave.picture.get_absolute_url() in room
    assert entry_cells(LogEntry.SCENE, "public", entries[1].data)[2] == "Scene shown: Cave"


def test_showing_the_shown_scene_again_logs_nothing_more(as_user, gm, pool_table, ford):
    client = as_user(gm)
    for _ in range(2):
        assert client.post(scenes_url(pool_table, "scene_show", ford.pk)).status_code == 302
    assert LogEntry.objects.filter(kind=LogEntry.SCENE).count() == 1
    assert list(Scene.objects.filter(shown=True)) == [ford]


def test_the_shown_scenes_name_is_isolated_in_the_log(as_user, gm, player, pool_table):
    from scene.services import scene_add

    scene = scene_add(campaign=pool_table.campaign, name="مخيم <b>", upload=picture_bytes())
    scene_show(scene=scene, by=gm)
    room = as_user(player).get(reverse("room", args=[pool_table.campaign.pk])).content.decode()
    assert "The GM showed the scene <bdi>مخيم &lt;b&gt;</bdi>" in room


def test_hiding_shows_no_scene(as_user, gm, player, pool_table, ford):
    scene_show(scene=ford, by=gm)
    response = as_user(gm).post(scenes_url(pool_table, "scene_hide"), **HTMX)
    assert response.status_code == 200
    assert not Scene.objects.filter(shown=True).exists()
    room = as_user(player).get(reverse("room", args=[pool_table.campaign.pk])).content.decode()
    assert ford.picture.get_absolute_url() not in room
    assert 'id="scene"' in room  # the empty card, for a push to fill


def test_deleting_a_scene_deletes_its_map_and_tokens(as_user, gm, pool_table, ford):
    token_add(scene=ford, name="Orc", colour="#000000", upload=picture_bytes(size=(8, 8)))
    response = as_user(gm).post(scenes_url(pool_table, "scene_delete", ford.pk), **HTMX)
    assert response.status_code == 200
    assert not Scene.objects.exists() and not Token.objects.exists()
    assert not Picture.objects.exists()


# Tokens -----------------------------------------------------------------------------------------


def test_a_characters_token_bears_its_name_and_starts_in_the_middle(as_user, gm, pool_table, ford):
    data = {"character": pool_table.ilse.pk, "name": "ignored", "colour": "#1F618D"}
    response = as_user(gm).post(scenes_url(pool_table, "token_add", ford.pk), data, **HTMX)
    assert response.status_code == 200
    token = Token.objects.get()
    assert (token.name, token.character, token.colour) == ("Ilse", pool_table.ilse, "#1f618d")
    # 400 x 300, squares of 50 from 0: the middle of the square holding the centre.
    assert (token.x, token.y) == (225, 175)


def test_without_snapping_a_token_starts_at_the_centre(pool_table, ford):
    ford.snap = False
    token = token_add(scene=ford, name="Marker", colour="#000000")
    assert (token.x, token.y) == (200, 150)


def test_an_npc_token_with_a_picture(as_user, gm, pool_table, ford):
    data = {"name": "Orc", "colour": "#b03a2e", "image": upload(picture_bytes(size=(8, 8)))}
    response = as_user(gm).post(scenes_url(pool_table, "token_add", ford.pk), data, **HTMX)
    assert response.status_code == 200
    token = Token.objects.get()
    assert token.name == "Orc" and token.picture.width == 8


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "colour": "#b03a2e"},
        {"name": "Orc", "colour": "red"},
        {"name": "Orc", "colour": "#b03a2"},
        {"name": "Orc", "colour": "#gggggg"},
        {"name": "x" * 41, "colour": "#b03a2e"},
        {"character": 999999, "colour": "#b03a2e"},
        {"name": "Orc", "colour": "#b03a2e", "image": "GIF"},
    ],
)
def test_a_bad_token_is_refused(
    as_user, gm, pool_table, ford, pushes, django_capture_on_commit_callbacks, data
):
    if data.get("image") == "GIF":
        data = {**data, "image": upload(picture_bytes("GIF"))}
    refused(
        as_user(gm),
        scenes_url(pool_table, "token_add", ford.pk),
        data,
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )


def test_another_campaigns_character_is_refused(
    as_user, gm, pool_table, mana_table, ford, pushes, django_capture_on_commit_callbacks
):
    refused(
        as_user(gm),
        scenes_url(pool_table, "token_add", ford.pk),
        {"character": mana_table.mira.pk, "colour": "#b03a2e"},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )


def test_a_gm_only_token_never_reaches_a_players_page(as_user, gm, player, pool_table, ford):
    scene_show(scene=ford, by=gm)
    token_add(scene=ford, name="Lurker", colour="#000000", gm_only=True)
    token_add(scene=ford, name="Ilse", colour="#ffffff", character=pool_table.ilse)
    room_url = reverse("room", args=[pool_table.campaign.pk])
    card_url = reverse("scene_card", args=[pool_table.campaign.pk])
    for url in (room_url, card_url):
        mine = as_user(player).get(url).content.decode()
        assert "Lurker" not in mine and 'aria-label="Ilse, token"' in mine
        theirs = as_user(gm).get(url).content.decode()
        assert "Lurker, token (GM only)" in theirs


def test_removing_a_token(as_user, gm, pool_table, ford):
    token = token_add(scene=ford, name="Orc", colour="#000000")
    url = scenes_url(pool_table, "token_remove", ford.pk, token.pk)
    assert as_user(gm).post(url, **HTMX).status_code == 200
    assert not Token.objects.exists()
    assert as_user(gm).post(url, **HTMX).status_code == 404


# The room's card ---------------------------------------------------------------------------------


def test_the_card_shows_the_map_grid_and_tokens(as_user, gm, player, pool_table, ford):
    ford.grid, ford.grid_x, ford.grid_y = 40, 5, -3
    ford.save()
    scene_show(scene=ford, by=gm)
    token = token_add(scene=ford, name="Ilse", colour="#1f618d", character=pool_table.ilse)
    html = (
        as_user(player).get(reverse("scene_card", args=[pool_table.campaign.pk])).content.decode()
    )
    assert '<section class="card scene-card wide-card" id="scene" aria-label="Scene"' in html
    # After a reconnect (a push may have been missed) it fetches itself again.
    assert 'hx-trigger="facts-resync from:body, scene from:body"' in html
    assert 'data-grid="40" data-grid-x="5" data-grid-y="-3"' in html
    assert f'src="{ford.picture.get_absolute_url()}" width="400" height="300"' in html
    assert f'id="token-{token.pk}" data-token="{token.pk}" data-x="{token.x}"' in html
    assert 'x="5" y="-3" width="40" height="40"' in html  # the grid's pattern
    assert "style=" not in html  # the CSP refuses inline styles


def test_no_scene_shown_is_an_empty_hidden_card(as_user, player, pool_table, ford):
    html = (
        as_user(player).get(reverse("scene_card", args=[pool_table.campaign.pk])).content.decode()
    )
    assert 'id="scene"' in html and " hidden>" in html and "<img" not in html


def test_a_double_submitted_upload_adds_one_scene(as_user, gm, pool_table):
    client = as_user(gm)
    form = client.get(scenes_url(pool_table)).content.decode()
    once = re.search(r'name="once" value="([^"]+)" id="scene-add-once"', form).group(1)
    for _ in range(2):
        data = {"name": "Cave", "image": upload(picture_bytes()), "once": once}
        response = client.post(scenes_url(pool_table, "scene_add"), data, **HTMX)
        assert response.status_code == 200
        assert "Added the scene Cave." in response.content.decode()
    assert Scene.objects.count() == 1 and Picture.objects.count() == 1
