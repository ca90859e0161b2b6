"""The initiative order (scene.services' combatant_*/initiative_*, scene/initiative.py's views):
adding characters and typed names with a score or rolled dice, sorting, moving, starting,
advancing (rounds), ending; who may do what; refusals that change and push nothing."""

import pytest
from django.urls import reverse

from rolls import services as rolls_services
from rolls.export import entry_cells
from rolls.models import LogEntry
from scene import services
from scene.models import Combatant, Initiative
from tests.helpers import HTMX, raises_refused, unchanged
from tests.rolls.room_setup import refused


def url(name, table, *args):
    return reverse(name, args=[table.campaign.pk, *args])


def add(table, name="", score=None, **kwargs):
    combatant, _entry = services.combatant_add(
        campaign=table.campaign, by=table.gm, name=name, score=score, **kwargs
    )
    return combatant


def names(table):
    return list(
        Combatant.objects.filter(initiative__campaign=table.campaign).values_list("name", flat=True)
    )


def state(table):
    initiative = Initiative.objects.get(campaign=table.campaign)
    return initiative.started, initiative.round, initiative.turn


def turns(table):
    return [
        e.data
        for e in LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.TURNS).order_by(
            "seq"
        )
    ]


@pytest.fixture
def fight(pool_table):
    """Ilse (ana's) 12, Goblin 18, Tor (ben's) 15, in that order, not started."""
    add(pool_table, character=pool_table.ilse, score=12)
    add(pool_table, name="Goblin", score=18)
    add(pool_table, character=pool_table.tor, score=15)
    return pool_table


# Services -------------------------------------------------------------------------------------


def test_sort_start_and_next_count_rounds_and_log_each_turn(fight):
    campaign, gm = fight.campaign, fight.gm
    services.initiative_sort(campaign=campaign)
    assert names(fight) == ["Goblin", "Tor", "Ilse"]
    services.initiative_start(campaign=campaign, by=gm)
    assert state(fight) == (True, 1, 0)
    services.initiative_next(campaign=campaign, by=gm)
    services.initiative_next(campaign=campaign, by=gm)
    assert state(fight) == (True, 1, 2)
    services.initiative_next(campaign=campaign, by=gm)  # past the last: the next round
    assert state(fight) == (True, 2, 0)
    services.initiative_end(campaign=campaign, by=gm)
    assert not Initiative.objects.filter(campaign=campaign).exists()
    assert not Combatant.objects.exists()
    assert turns(fight) == [
        {"action": "start", "round": 1, "name": "Goblin", "names": ["Goblin", "Tor", "Ilse"]},
        {"action": "turn", "round": 1, "name": "Tor"},
        {"action": "turn", "round": 1, "name": "Ilse"},
        {"action": "turn", "round": 2, "name": "Goblin"},
        {"action": "end", "round": 2, "names": ["Goblin", "Tor", "Ilse"]},
    ]
    assert not rolls_services.log_check(campaign).broken  # chained as every entry


def test_the_exports_say_what_each_turns_entry_was(fight):
    campaign, gm = fight.campaign, fight.gm
    start = services.initiative_start(campaign=campaign, by=gm)
    turn = services.initiative_next(campaign=campaign, by=gm)
    end = services.initiative_end(campaign=campaign, by=gm)
    about, result, note = 2, 5, 11  # rolls.export.CELLS' places
    cells = [entry_cells(e.kind, e.visibility, e.data) for e in (start, turn, end)]
    assert [(c[about], c[result], c[note]) for c in cells] == [
        ("Initiative started", "round 1", "Ilse, Goblin, Tor"),
        ("Turn", "round 1", "Goblin"),
        ("Initiative ended", "round 1", "Ilse, Goblin, Tor"),
    ]
    assert not rolls_services.log_check(campaign).broken  # the stored cells match the data


def test_the_turn_stays_with_whom_it_was_when_the_order_changes(fight):
    campaign, gm = fight.campaign, fight.gm
    services.initiative_start(campaign=campaign, by=gm)
    services.initiative_next(campaign=campaign, by=gm)  # Goblin's turn
    services.initiative_sort(campaign=campaign)  # Goblin first now
    assert state(fight) == (True, 1, 0)
    goblin = Combatant.objects.get(name="Goblin")
    services.combatant_move(campaign=campaign, combatant_id=goblin.pk, direction="down")
    assert names(fight) == ["Tor", "Goblin", "Ilse"] and state(fight)[2] == 1
    services.combatant_remove(campaign=campaign, combatant_id=goblin.pk)  # whose turn it was
    assert names(fight) == ["Tor", "Ilse"] and state(fight)[2] == 1  # the next one's: Ilse
    ilse = Combatant.objects.get(name="Ilse")
    services.combatant_remove(campaign=campaign, combatant_id=ilse.pk)
    assert state(fight)[2] == 0  # the last one's, removed: the first one's


def test_rolled_dice_are_a_logged_free_roll_whose_total_is_the_score(pool_table):
    combatant, entry = services.combatant_add(
        campaign=pool_table.campaign, by=pool_table.gm, name="Orc", dice="d20+2"
    )
    assert entry.kind == LogEntry.FREE and entry.data["expression"] == "1d20+2"
    assert combatant.score == entry.data["total"] and 3 <= combatant.score <= 22
    assert entry.data["fair"]  # the campaign's fair dice: checked once its seed is revealed


@pytest.mark.parametrize("score", [services.SCORE_MIN, services.SCORE_MAX])
def test_both_ends_of_the_score_range_work(pool_table, score):
    assert add(pool_table, name="Edge", score=score).score == score


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "Low", "score": services.SCORE_MIN - 1}, "A score lies in"),
        ({"name": "High", "score": services.SCORE_MAX + 1}, "A score lies in"),
        ({"name": "Bad", "dice": "2d"}, None),
        ({"name": "Target", "dice": "d20 vs 10"}, "roll without"),
        ({"name": "Huge", "dice": "2d1000+999"}, "A score lies in"),
        ({"name": "Both", "score": 3, "dice": "d20"}, "not both"),
        ({"name": "Neither"}, "Give a score"),
        ({"name": "   ", "score": 3}, "type a name"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(pool_table, kwargs, match):
    with unchanged(), raises_refused(match):
        add(pool_table, **kwargs)


def test_a_character_of_another_campaign_is_refused(pool_table, elsewhere):
    with unchanged(), raises_refused("of this campaign"):
        add(pool_table, character=elsewhere[1], score=3)


def test_next_and_end_without_an_order_are_refused(pool_table):
    campaign, gm = pool_table.campaign, pool_table.gm
    with unchanged():
        with raises_refused("Start the turn order"):
            services.initiative_next(campaign=campaign, by=gm)
        with raises_refused("no turn order"):
            services.initiative_end(campaign=campaign, by=gm)
        with raises_refused("Add someone"):
            services.initiative_start(campaign=campaign, by=gm)


def test_moving_the_first_up_is_refused(fight):
    first = Combatant.objects.get(name="Ilse")
    with unchanged(), raises_refused("first already"):
        services.combatant_move(campaign=fight.campaign, combatant_id=first.pk, direction="up")


# Views ----------------------------------------------------------------------------------------


def test_the_gm_builds_and_runs_the_order_from_the_room(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    client = as_user(pool_table.gm)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url("combatant_add", pool_table), {"character": pool_table.ilse.pk, "score": 7}, **HTMX
        )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="initiative"' in html and "Ilse" in html and "Start" in html
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url("combatant_add", pool_table), {"name": "Wolf", "dice": "d6"}, **HTMX)
        client.post(url("initiative_start", pool_table), **HTMX)
        response = client.post(url("initiative_next", pool_table), **HTMX)
    assert response.status_code == 200
    assert 'aria-current="true"' in response.content.decode()
    assert state(pool_table) == (True, 1, 1)
    # The wolf's roll, the start and the turn arrived in the log; the card went out each time.
    assert [m["all"].count('class="entry') for m in pushes.entries()] == [1, 1, 1]
    cards = [m for _c, m in pushes.sent if "seq" not in m]
    assert len(cards) == 4 and all('id="initiative"' in m["gm"] for m in cards)


def test_the_room_shows_the_order_after_a_reload(fight, as_user):
    services.initiative_start(campaign=fight.campaign, by=fight.gm)
    html = as_user(fight.player).get(url("room", fight)).content.decode()
    card = html[html.index('id="initiative"') :]
    assert "Round <b data-round>1</b>" in card
    assert '<li aria-current="true" class="current"><span class="initiative-name">Ilse' in card
    assert "data-my-turn" in card  # ana plays Ilse
    assert "initiative-add" not in card  # no GM controls for a player
    other = as_user(fight.other_player).get(url("room", fight)).content.decode()
    assert "data-my-turn" not in other


def test_the_card_alone_for_a_resync(fight, as_user, outsider):
    response = as_user(fight.other_player).get(url("initiative_card", fight), **HTMX)
    assert response.status_code == 200 and "Goblin" in response.content.decode()
    assert as_user(outsider).get(url("initiative_card", fight)).status_code == 404


WRITES = [
    ("combatant_add", False),
    ("combatant_remove", True),
    ("combatant_move", True),
    ("initiative_sort", False),
    ("initiative_start", False),
    ("initiative_next", False),
    ("initiative_end", False),
]


@pytest.mark.parametrize(("name", "named"), WRITES)
def test_players_get_403_and_outsiders_404(fight, as_user, outsider, name, named):
    args = [Combatant.objects.get(name="Goblin").pk] if named else []
    with unchanged():
        assert as_user(fight.player).post(url(name, fight, *args), **HTMX).status_code == 403
        assert as_user(outsider).post(url(name, fight, *args), **HTMX).status_code == 404


def test_a_refused_add_answers_422_with_the_reason(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    client = as_user(pool_table.gm)
    path = url("combatant_add", pool_table)
    capture = django_capture_on_commit_callbacks
    data = {"name": "Orc", "score": services.SCORE_MAX + 1}
    html = refused(client, path, data, pool_table.campaign, pushes, capture)
    assert "Score:" in html and 'value="Orc"' in html
    html = refused(
        client, path, {"name": "Orc", "dice": "3x"}, pool_table.campaign, pushes, capture
    )
    assert 'class="error"' in html
    html = refused(
        client, path, {"character": 10**6, "score": 1}, pool_table.campaign, pushes, capture
    )
    assert "of this campaign" in html


def test_a_combatant_of_another_campaign_is_not_found(
    fight, elsewhere, as_user, pushes, django_capture_on_commit_callbacks
):
    theirs = services.combatant_add(campaign=elsewhere[0], by=fight.gm, name="Theirs", score=1)[0]
    client = as_user(fight.gm)
    with unchanged(), django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("combatant_remove", fight, theirs.pk), **HTMX)
    assert (
        response.status_code == 422 and "no longer in the turn order" in response.content.decode()
    )
    assert pushes.sent == []


def test_next_and_end_without_an_order_answer_422(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    client = as_user(pool_table.gm)
    for name in ("initiative_next", "initiative_end", "initiative_start", "initiative_sort"):
        refused(
            client,
            url(name, pool_table),
            {},
            pool_table.campaign,
            pushes,
            django_capture_on_commit_callbacks,
        )


def test_a_plain_post_goes_back_to_the_room(pool_table, as_user):
    client = as_user(pool_table.gm)
    response = client.post(url("combatant_add", pool_table), {"name": "Orc", "score": 3})
    assert response.status_code == 302 and response["Location"] == url("room", pool_table)
    response = client.post(url("initiative_next", pool_table), follow=True)
    assert "Start the turn order first." in response.content.decode()


# At once --------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_adds_and_turns_at_once_make_one_order(pool_table, client_factory, pushes, settings):
    """Real requests at once from the GM's tabs (on both databases: the suite runs on SQLite and
    on PostgreSQL): the first adds make one order between them (none fails on the campaign's one
    order), and two "next" clicks advance twice, each logged."""
    from tests.helpers import race

    settings.WRITE_LIMITS = {}
    clients = client_factory(pool_table.gm, 4)

    def adding(client, name):
        def send():
            data = {"name": name, "dice": "d20"}
            response = client.post(url("combatant_add", pool_table), data, **HTMX)
            assert response.status_code == 200, response.content.decode()

        return send

    assert race(*(adding(c, f"Orc {n}") for n, c in enumerate(clients))) == [None] * 4
    assert Initiative.objects.count() == 1 and len(names(pool_table)) == 4
    services.initiative_start(campaign=pool_table.campaign, by=pool_table.gm)

    def advancing(client):
        return lambda: client.post(url("initiative_next", pool_table), **HTMX).status_code

    assert race(advancing(clients[0]), advancing(clients[1])) == [200, 200]
    assert state(pool_table) == (True, 1, 2)
    assert [d["action"] for d in turns(pool_table)] == ["start", "turn", "turn"]
    assert not rolls_services.log_check(pool_table.campaign).broken
