"""What the room pushes and to whom (room.push), and a write whose push fails."""

import logging
from types import SimpleNamespace

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.urls import reverse

from core import push as core_push
from rolls import services
from rolls.models import PRIVATE, PUBLIC, SECRET, LogEntry
from rolls.systems.mana.models import ManaPool, ManaSkill
from rolls.systems.pool import services as pool_services
from rolls.systems.pool.models import rating_of
from room import push
from sheets.services import character_create
from tests.helpers import HTMX
from tests.rolls.room_setup import ask, roll_mana, url
from tests.rolls.sockets import NOTE, is_full, is_stub
from tests.rules.scripted_rng import ScriptedRng

# pick --------------------------------------------------------------------------------------------


def test_pick_everyone_gets_all():
    message = {"seq": 1, "all": "A"}
    assert core_push.pick(message, user_id=1, is_gm=True) == "A"
    assert core_push.pick(message, user_id=2, is_gm=False) == "A"


def test_pick_gm_and_named_users_before_all():
    message = {"all": "stub", "gm": "gm", "users": {"5": "mine"}}
    assert core_push.pick(message, user_id=1, is_gm=True) == "gm"
    assert core_push.pick(message, user_id=5, is_gm=False) == "mine"
    assert core_push.pick(message, user_id=6, is_gm=False) == "stub"


def test_pick_nothing_for_whom_nothing_is_meant():
    assert core_push.pick({"gm": "gm"}, user_id=2, is_gm=False) is None
    assert core_push.pick({"users": {"5": "mine"}}, user_id=6, is_gm=False) is None
    assert core_push.pick({"users": {"5": "mine"}}, user_id=1, is_gm=True) is None
    assert core_push.pick({"gm": None, "all": "A"}, user_id=1, is_gm=True) == "A"


def test_group_name():
    assert core_push.group_name("12") == "campaign_12"


# entry_message -----------------------------------------------------------------------------------


@pytest.fixture
def roll(mana_campaign, gm, player):
    """``roll(visibility, owner=player)`` -> a failed Mana roll's log entry, with a note."""
    skill = ManaSkill.objects.create(
        campaign=mana_campaign, name="Gather Information", color_a="blue", color_b="white"
    )

    def make(visibility=PUBLIC, owner=player):
        character = character_create(campaign=mana_campaign, owner=owner, name="Mira")
        ManaPool.objects.filter(character=character, color__in=["blue", "white"]).update(
            current=3, maximum=3
        )
        check = services.check_ask(
            campaign=mana_campaign,
            character=character,
            by=gm,
            target=3,
            note=NOTE,
            visibility=visibility,
        )
        return roll_mana(check, owner, skill, (7, 10, 4, 2), intent="Ask around the docks")

    return make


def test_public_entry_goes_to_all(roll):
    entry = roll(PUBLIC)
    message = push.entry_message(entry)
    assert set(message) == {"seq", "prev_seq", "all"}
    assert (message["seq"], message["prev_seq"]) == (entry.seq, entry.seq - 1)
    assert is_full(message["all"])
    assert 'hx-swap-oob="beforeend:#log"' in message["all"]
    assert f'data-seq="{entry.seq}"' in message["all"]


def test_private_entry_full_for_gm_and_roller_stub_for_all(roll, player):
    entry = roll(PRIVATE)
    message = push.entry_message(entry)
    assert set(message) == {"seq", "prev_seq", "all", "gm", "users"}
    assert is_stub(message["all"])
    assert "rolled privately" in message["all"]
    assert is_full(message["gm"])
    assert message["users"] == {str(player.pk): message["gm"]}


def test_secret_entry_full_for_gm_only(roll, gm):
    entry = roll(SECRET, owner=gm)
    message = push.entry_message(entry)
    assert set(message) == {"seq", "prev_seq", "all", "gm"}
    assert is_stub(message["all"])
    assert "rolled in secret" in message["all"]
    assert is_full(message["gm"])


def test_render_entry_for_each_viewer(roll, gm, player, other_player):
    entry = roll(PRIVATE)
    seen = {
        user.username: push.render_entry_for(entry, viewer_id=user.pk, gm_id=gm.pk)
        for user in (gm, player, other_player)
    }
    assert is_full(seen["gm"]) and is_full(seen["ana"])
    assert is_stub(seen["ben"])
    assert "hx-swap-oob" not in seen["ben"]


def test_a_typical_roll_fragment_is_small(roll):
    html = push.entry_message(roll(PUBLIC))["all"]
    assert len(html.encode()) < 2048


def test_a_typical_pool_fragment_is_small(pool_campaign, gm, player):
    character = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    strength = rating_of(character, "Strength")
    jump = rating_of(character, "Strength", "Jump")
    for rating, value in ((strength, 3), (jump, 2)):
        rating.value = value
        rating.save()
    check = services.check_ask(
        campaign=pool_campaign, character=character, by=gm, target=8, note=NOTE
    )
    pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=strength,
        skill=jump,
        shift_d6=1,
        bonus_effect="Land without a sound",
        intent="Leap the ditch",
    )
    entry = pool_services.check_answer_shift(
        check=check, approve=True, rng=ScriptedRng(4, 6, 3, 2, 7)
    )
    html = push.entry_message(entry)["all"]
    assert "6 → 3 = 9" in html
    assert len(html.encode()) < 2048


# push_entry --------------------------------------------------------------------------------------


def test_push_entry_sends_the_message_to_the_campaign_group(roll, mana_campaign):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(core_push.group_name(mana_campaign.pk), channel)
    try:
        entry = roll(PRIVATE)
        push.push_entry(entry)
        received = async_to_sync(layer.receive)(channel)
    finally:
        async_to_sync(layer.flush)()
    assert received == {"type": "room.push", **push.entry_message(entry)}


# The log's fingerprint ---------------------------------------------------------------------------


@pytest.mark.parametrize("visibility", [PUBLIC, PRIVATE, SECRET])
def test_every_variant_carries_the_new_fingerprint(roll, gm, player, visibility):
    entry = roll(visibility, owner=gm if visibility == SECRET else player)
    message = push.entry_message(entry)
    fingerprint = push.render_fingerprint(entry)
    assert (
        fingerprint
        == f'<span id="log-fingerprint">#{entry.seq} <code>{entry.hash[:12]}</code></span>'
    )
    variants = [message["all"], message.get("gm"), *(message.get("users") or {}).values()]
    for html in filter(None, variants):
        assert html.endswith(fingerprint)


# A push that fails after its write committed -------------------------------------------------


class BrokenLayer:
    """A channel layer that fails for a reason other than Redis being away (which is an
    outage, counted without a warning per write: tests/core/test_push.py)."""

    async def group_send(self, group, message):
        raise RuntimeError("the layer broke")


@pytest.fixture
def broken_layer(monkeypatch):
    monkeypatch.setattr(core_push, "get_channel_layer", BrokenLayer)


def failed_push_warnings(caplog, campaign):
    return [
        r
        for r in caplog.records
        if r.name == "core.push"
        and r.levelno == logging.WARNING
        and f"campaign {campaign.id} " in r.getMessage()
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("headers", "status"), [(HTMX, 204), ({}, 302)])
def test_a_roll_whose_push_fails_is_stored_and_answered(
    pool_table, as_user, player, broken_layer, caplog, headers, status
):
    check = ask(pool_table, pool_table.ilse)
    response = as_user(player).post(
        url("check_roll", pool_table, check.id),
        {"attribute": pool_table.strength.id, "skill": pool_table.jump.id},
        **headers,
    )
    assert response.status_code == status
    assert LogEntry.objects.filter(campaign=pool_table.campaign, check_ref=check).count() == 1
    assert len(failed_push_warnings(caplog, pool_table.campaign)) == 1


@pytest.mark.django_db(transaction=True)
def test_a_session_start_whose_push_fails_is_answered(
    pool_table, as_user, gm, broken_layer, caplog
):
    response = as_user(gm).post(url("session_start", pool_table), **HTMX)
    assert response.status_code == 200
    assert pool_table.campaign.game_sessions.filter(ended_at=None).exists()
    assert len(failed_push_warnings(caplog, pool_table.campaign)) == 1


@pytest.mark.django_db(transaction=True)
def test_a_removal_whose_push_fails_is_answered(pool_campaign, as_user, gm, player, broken_layer):
    response = as_user(gm).post(reverse("member_remove", args=[pool_campaign.id, player.id]))
    assert response.status_code == 302
    assert pool_campaign.member(player) is None


# Facts pushes ------------------------------------------------------------------------------------


def test_a_public_facts_push_goes_to_the_whole_room():
    characters = [SimpleNamespace(pk=7, owner_id=2), SimpleNamespace(pk=3, owner_id=5)]
    message = core_push.facts_message(characters, gm_id=1, private=False)
    assert message == {"facts": True, "all": "<!--facts 3 7-->"}


def test_a_private_facts_push_names_to_each_player_only_their_own_characters():
    characters = [
        SimpleNamespace(pk=7, owner_id=2),
        SimpleNamespace(pk=3, owner_id=5),
        SimpleNamespace(pk=9, owner_id=1),  # the GM's NPC
    ]
    message = core_push.facts_message(characters, gm_id=1, private=True)
    assert message == {
        "facts": True,
        "gm": "<!--facts 3 7 9-->",
        "users": {"2": "<!--facts 7-->", "5": "<!--facts 3-->"},
    }
    assert core_push.facts_message([], gm_id=1, private=True) is None


def test_a_facts_push_keeps_its_mark_on_every_group_it_is_sent_to(monkeypatch):
    sent = []

    def record(sends, kind="room.push"):
        sent.extend(sends)

    monkeypatch.setattr(core_push, "group_send_all", record)
    core_push.send(4, {"facts": True, "gm": "<!--facts 1-->", "users": {"2": "<!--facts 1-->"}})
    assert sent == [
        (core_push.user_group_name(4, 2), {"all": "<!--facts 1-->", "facts": True}),
        (core_push.gm_group_name(4), {"all": "<!--facts 1-->", "facts": True}),
    ]


def recorded_sends(monkeypatch):
    sent = []

    def record(sends, kind="room.push"):
        sent.extend(sends)

    monkeypatch.setattr(core_push, "group_send_all", record)
    return sent


def test_a_checks_cards_travel_inside_its_entrys_push_in_one_group_send(monkeypatch):
    sent = recorded_sends(monkeypatch)
    entry = {"seq": 7, "all": "<p>entry</p>"}
    cards = {"gm": "<p>gm card</p>", "users": {"2": "<p>player card</p>"}}
    core_push.send(4, entry, cards)
    assert sent == [
        (core_push.group_name(4), {"seq": 7, "all": "<p>entry</p>", "also": [cards]}),
    ]
    assert entry == {"seq": 7, "all": "<p>entry</p>"}  # the caller's message is left as it was


def test_cards_without_an_entry_go_only_to_the_sockets_they_name(monkeypatch):
    sent = recorded_sends(monkeypatch)
    core_push.send(4, {"gm": "<p>gm card</p>", "users": {"2": "<p>player card</p>"}})
    assert sent == [
        (core_push.user_group_name(4, 2), {"all": "<p>player card</p>"}),
        (core_push.gm_group_name(4), {"all": "<p>gm card</p>"}),
    ]


def test_a_facts_push_never_travels_inside_an_entrys(monkeypatch):
    """Pages outside the room forward only facts pushes: one must stay a push of its own."""
    sent = recorded_sends(monkeypatch)
    core_push.send(4, {"seq": 1, "all": "<p>entry</p>"}, {"facts": True, "gm": "<!--facts 1-->"})
    assert sent == [
        (core_push.group_name(4), {"seq": 1, "all": "<p>entry</p>"}),
        (core_push.gm_group_name(4), {"all": "<!--facts 1-->", "facts": True}),
    ]


# with_facts: the pushes a write declares ---------------------------------------------------------


@pytest.fixture
def committed(monkeypatch, django_capture_on_commit_callbacks):
    """``committed(write)`` -> (what the write returned, the group sends of the pushes it
    registered, once committed); the campaign: id 4, GM 1."""
    sent = recorded_sends(monkeypatch)

    def run(write):
        with django_capture_on_commit_callbacks(execute=True):
            result = write()
        return result, sent

    return run


CAMPAIGN = SimpleNamespace(pk=4, gm_id=lambda: 1)
FACTS = {"facts": True}


@pytest.mark.django_db
def test_with_facts_tells_each_player_whose_delegation_changed_and_the_gm(committed):
    """A hand-out: the character's sparetime (private), then the giver's delegation."""
    handout = SimpleNamespace(character=SimpleNamespace(pk=7, owner_id=5), player_id=2)
    write = core_push.with_facts(
        lambda: handout,
        CAMPAIGN,
        lambda entry: [entry.character],
        private=True,
        delegations=lambda entry: [entry.player_id],
    )
    result, sent = committed(write)
    assert result is handout
    assert sent == [
        (core_push.user_group_name(4, 5), {"all": "<!--facts 7-->", **FACTS}),
        (core_push.gm_group_name(4), {"all": "<!--facts 7-->", **FACTS}),
        (core_push.user_group_name(4, 2), {"all": "<!--facts delegation-->", **FACTS}),
        (core_push.gm_group_name(4), {"all": "<!--facts delegation-->", **FACTS}),
    ]


@pytest.mark.django_db
def test_with_facts_of_a_delegation_alone_pushes_no_characters_facts(committed):
    """A delegation changes no character: its player and the GM hear of the delegation only;
    the GM's own delegation goes to the GM alone."""
    _, sent = committed(core_push.with_facts(lambda: None, CAMPAIGN, delegations=[3, 1]))
    assert sent == [
        (core_push.user_group_name(4, 3), {"all": "<!--facts delegation-->", **FACTS}),
        (core_push.gm_group_name(4), {"all": "<!--facts delegation-->", **FACTS}),
        (core_push.gm_group_name(4), {"all": "<!--facts delegation-->", **FACTS}),
    ]


@pytest.mark.django_db
def test_with_facts_reads_privacy_from_what_the_write_returned(committed):
    """A reversal: a raise's rating is public (the whole room), a balance alone private."""
    character = SimpleNamespace(pk=7, owner_id=5)

    def write(kind):
        return core_push.with_facts(
            lambda: SimpleNamespace(kind=kind),
            CAMPAIGN,
            [character],
            private=lambda reversal: reversal.kind != "spend",
        )

    _, sent = committed(write("spend"))
    assert sent == [(core_push.group_name(4), {"all": "<!--facts 7-->", **FACTS})]
    sent.clear()
    committed(write("grant"))
    assert sent == [
        (core_push.user_group_name(4, 5), {"all": "<!--facts 7-->", **FACTS}),
        (core_push.gm_group_name(4), {"all": "<!--facts 7-->", **FACTS}),
    ]
