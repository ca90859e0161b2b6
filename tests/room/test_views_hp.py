"""HP from the room's party (room.views.party_hp, issue #47): the GM changes any character's HP,
a player their own characters' when the campaign allows it (Pool's setting); its log entry and
the facts push reach the room once committed, in full to those who may see the character; bad
input is refused (422) with nothing changed and nothing pushed; a system without HP (Mana) has
no controls and no route."""

import pytest
from django.urls import reverse

from core.push import pick
from rolls import services
from rolls.export import stub_text
from rolls.models import PRIVATE, PUBLIC, LogEntry
from rolls.systems.pool.models import settings_of, sheet_of
from tests.campaigns.test_gm_settings import POOL, settings_url
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import entry_html, refused


def hp_url(table, character):
    return reverse("party_hp", args=[table.campaign.pk, character.pk])


def hp_of(character):
    character.refresh_from_db()
    return sheet_of(character).hp_current


def hp_entries(table):
    return LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.HP).order_by("seq")


def allow_players(table, allowed=True):
    row = settings_of(table.campaign)
    row.players_change_hp = allowed
    row.save()


def room_html(client, table):
    return client.get(reverse("room", args=[table.campaign.pk])).content.decode()


def party_html(client, table):
    return client.get(reverse("party", args=[table.campaign.pk])).content.decode()


def seen_by(message, user, *, is_gm=False):
    return pick(message, user_id=user.pk, is_gm=is_gm) or ""


def post(client, table, character, data, capture, **headers):
    with capture(execute=True):
        return client.post(hp_url(table, character), data, **headers)


# The GM ------------------------------------------------------------------------------------------


def test_the_gm_lowers_raises_and_sets_hp_logged_and_pushed_to_the_room(
    pool_table, as_user, gm, player, other_player, pushes, django_capture_on_commit_callbacks
):
    t, client = pool_table, as_user(gm)
    assert hp_of(t.ilse) == 10
    response = post(client, t, t.ilse, {"step": "-1"}, django_capture_on_commit_callbacks, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.strip().startswith('<div id="party"') and "9 / 10" in html
    assert hp_of(t.ilse) == 9
    post(client, t, t.ilse, {"value": "4"}, django_capture_on_commit_callbacks, **HTMX)
    post(client, t, t.ilse, {"step": "1"}, django_capture_on_commit_callbacks, **HTMX)
    assert hp_of(t.ilse) == 5
    entries = list(hp_entries(t))
    assert [(e.data["before"], e.data["after"]) for e in entries] == [(10, 9), (9, 4), (4, 5)]
    first = entries[0]
    assert (first.visibility, first.actor, first.character) == (PUBLIC, gm, t.ilse)
    assert first.data == {"name": "Ilse", "before": 10, "after": 9}
    assert services.log_verify(t.campaign) is None
    # Each change: its entry to the whole room, then a facts push naming Ilse to everyone.
    messages = [m for _c, m in pushes.sent]
    assert len(messages) == 6
    entry_push, facts = messages[0], messages[1]
    assert set(entry_push) >= {"seq", "all"} and "gm" not in entry_push
    assert "Ilse’s HP 10 → 9" in entry_push["all"]
    assert facts == {"facts": True, "all": f"<!--facts {t.ilse.pk}-->"}
    # Everyone's room shows the entry and the new HP.
    for user in (gm, player, other_player):
        page = room_html(as_user(user), t)
        assert "Ilse’s HP 10 → 9" in entry_html(page, first.seq) and "5 / 10" in page


def test_both_ends_of_the_range_work_and_beyond_them_is_refused(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    t, client = pool_table, as_user(gm)
    capture = django_capture_on_commit_callbacks
    assert post(client, t, t.ilse, {"value": "0"}, capture, **HTMX).status_code == 200
    assert hp_of(t.ilse) == 0
    pushes.sent.clear()
    html = refused(client, hp_url(t, t.ilse), {"step": "-1"}, t.campaign, pushes, capture)
    assert "Current HP lies between 0 and 10." in html and 'role="alert"' in html
    assert post(client, t, t.ilse, {"value": "10"}, capture, **HTMX).status_code == 200
    assert hp_of(t.ilse) == 10
    pushes.sent.clear()
    html = refused(client, hp_url(t, t.ilse), {"step": "1"}, t.campaign, pushes, capture)
    assert "Current HP lies between 0 and 10." in html
    html = refused(client, hp_url(t, t.ilse), {"value": "11"}, t.campaign, pushes, capture)
    assert "Current HP lies between 0 and 10." in html


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({}, "Set a number of HP, or press − or +."),
        ({"value": ""}, "Set a number of HP, or press − or +."),
        ({"value": "abc"}, "Enter a whole number."),
        ({"value": "4.5"}, "Enter a whole number."),
        ({"value": "-1"}, "greater than or equal to 0"),
        ({"value": "9" * 50}, "less than or equal to 1000000"),
        ({"value": "9" * 5000}, "Enter a whole number."),
        ({"value": "1000000"}, "Current HP lies between 0 and 10."),
        ({"step": "2"}, "Select a valid choice."),
        ({"step": "-10"}, "Select a valid choice."),
        ({"step": "x"}, "Select a valid choice."),
        ({"step": "1", "value": "3"}, "Set a number of HP, or press − or +."),
        ({"value": "10"}, "Ilse has 10 HP already."),
    ],
)
def test_bad_input_is_refused_nothing_changed_nothing_pushed(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks, data, said
):
    t = pool_table
    html = refused(
        as_user(gm), hp_url(t, t.ilse), data, t.campaign, pushes, django_capture_on_commit_callbacks
    )
    assert said in html
    assert html.strip().startswith('<div id="party"')


def test_a_plain_post_goes_back_to_the_room_or_shows_it_with_the_refusal(
    pool_table, as_user, gm, django_capture_on_commit_callbacks
):
    t, client = pool_table, as_user(gm)
    response = post(client, t, t.ilse, {"value": "3"}, django_capture_on_commit_callbacks)
    assert response.status_code == 302
    assert response["Location"] == reverse("room", args=[t.campaign.pk])
    before = db_snapshot()
    response = client.post(hp_url(t, t.ilse), {"value": "99"})
    assert response.status_code == 200 and db_snapshot() == before
    page = response.content.decode()
    assert 'id="log"' in page and "Current HP lies between 0 and 10." in page


def test_the_gms_own_character_is_the_gms_alone(
    pool_table, as_user, gm, player, other_player, pushes, django_capture_on_commit_callbacks
):
    """Players do not see the GM's characters: its HP change is logged privately, a stub for
    them, and its facts push reaches the GM alone."""
    t = pool_table
    response = post(
        as_user(gm), t, t.npc, {"step": "-1"}, django_capture_on_commit_callbacks, **HTMX
    )
    assert response.status_code == 200
    [entry] = hp_entries(t)
    assert entry.visibility == PRIVATE and entry.data["name"] == "The Ogre"
    entry_push, facts = [m for _c, m in pushes.sent]
    assert "The Ogre" in seen_by(entry_push, gm, is_gm=True)
    for user in (player, other_player):
        seen = seen_by(entry_push, user)
        assert "Ogre" not in seen and "10 → 9" not in seen
        assert "changed the HP of a character only the GM sees" in seen
        assert seen_by(facts, user) == ""
        page = room_html(as_user(user), t)
        assert "Ogre" not in page
        assert "changed the HP of a character only the GM sees" in page
    assert seen_by(facts, gm, is_gm=True) == f"<!--facts {t.npc.pk}-->"
    assert services.log_verify(t.campaign) is None


# Players -----------------------------------------------------------------------------------------


def test_players_see_no_controls_and_may_not_change_hp_unless_the_campaign_allows(
    pool_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    t, client = pool_table, as_user(player)
    html = party_html(client, t)
    assert "10 / 10" in html and hp_url(t, t.ilse) not in html
    before = db_snapshot()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(hp_url(t, t.ilse), {"step": "-1"}, **HTMX)
    assert response.status_code == 403
    assert db_snapshot() == before and callbacks == [] and pushes.sent == []


def test_a_player_allowed_changes_their_own_characters_hp_only(
    pool_table, as_user, player, other_player, pushes, django_capture_on_commit_callbacks
):
    t = pool_table
    allow_players(t)
    client = as_user(player)
    html = party_html(client, t)
    assert hp_url(t, t.ilse) in html and hp_url(t, t.tor) not in html
    response = post(client, t, t.ilse, {"step": "-1"}, django_capture_on_commit_callbacks, **HTMX)
    assert response.status_code == 200 and hp_of(t.ilse) == 9
    [entry] = hp_entries(t)
    assert (entry.actor, entry.visibility) == (player, PUBLIC)
    assert "Ilse’s HP 10 → 9" in seen_by(pushes.entries()[0], other_player)
    pushes.sent.clear()
    before = db_snapshot()
    for character, status in ((t.tor, 403), (t.npc, 404)):
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            response = client.post(hp_url(t, character), {"step": "-1"}, **HTMX)
        assert response.status_code == status
        assert callbacks == []
    assert db_snapshot() == before and pushes.sent == []


def test_the_setting_turned_off_again_stops_the_player(
    pool_table, as_user, player, django_capture_on_commit_callbacks
):
    t = pool_table
    allow_players(t)
    allow_players(t, False)
    assert as_user(player).post(hp_url(t, t.ilse), {"step": "-1"}, **HTMX).status_code == 403


def test_the_gm_sets_the_campaigns_setting_on_its_pool_settings(pool_campaign, as_user, gm):
    client = as_user(gm)
    form = client.get(reverse("gm_panel", args=[pool_campaign.pk])).content.decode()
    assert 'name="players_change_hp"' in form
    assert client.post(settings_url(pool_campaign), {**POOL, "players_change_hp": "on"})
    assert settings_of(pool_campaign).players_change_hp is True
    pool_campaign.refresh_from_db()
    client.post(settings_url(pool_campaign), POOL)  # a checkbox left out: off
    pool_campaign.refresh_from_db()
    assert settings_of(pool_campaign).players_change_hp is False


def test_outsiders_get_404(pool_table, as_user, outsider, pushes):
    t = pool_table
    before = db_snapshot()
    assert as_user(outsider).post(hp_url(t, t.ilse), {"step": "-1"}, **HTMX).status_code == 404
    assert as_user(None).post(hp_url(t, t.ilse), {"step": "-1"}).status_code == 302
    assert db_snapshot() == before and pushes.sent == []


# A system without HP -----------------------------------------------------------------------------


def test_a_system_without_hp_has_no_controls_and_no_route(mana_table, as_user, gm, pushes):
    t = mana_table
    client = as_user(gm)
    url = reverse("party_hp", args=[t.campaign.pk, t.mira.pk])
    assert url not in party_html(client, t) and url not in room_html(client, t)
    before = db_snapshot()
    assert client.post(url, {"step": "-1"}, **HTMX).status_code == 404
    assert db_snapshot() == before and pushes.sent == []


# What the log keeps ------------------------------------------------------------------------------


def test_the_export_says_whose_hp_changed_and_a_stub_to_who_may_not_see_it(
    pool_table, as_user, gm, django_capture_on_commit_callbacks
):
    t = pool_table
    post(as_user(gm), t, t.ilse, {"value": "7"}, django_capture_on_commit_callbacks, **HTMX)
    [entry] = hp_entries(t)
    assert entry.cells == ",,HP,,,7,,,,,,Ilse: 10 → 7"
    assert stub_text(LogEntry.HP) == ",,HP" + "," * 9


def test_a_name_is_escaped_and_isolated_in_the_entry_and_the_refusal(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    t = pool_table
    name = "<b>אילסה</b> 3"
    type(t.ilse).objects.filter(pk=t.ilse.pk).update(name=name)
    t.ilse.refresh_from_db()
    client, capture = as_user(gm), django_capture_on_commit_callbacks
    assert post(client, t, t.ilse, {"value": "5"}, capture, **HTMX).status_code == 200
    [entry_push] = pushes.entries()
    assert "<bdi>&lt;b&gt;אילסה&lt;/b&gt; 3</bdi>’s HP 10 → 5" in entry_push["all"]
    assert "<b>אילסה" not in entry_push["all"]
    pushes.sent.clear()
    html = refused(client, hp_url(t, t.ilse), {"value": "5"}, t.campaign, pushes, capture)
    assert "\u2068&lt;b&gt;אילסה&lt;/b&gt; 3\u2069 has 5 HP already." in html
