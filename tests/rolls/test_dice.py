"""rolls.dice: every roll's dice drawn from the campaign's committed seed, the roller's
contribution and the roll's number; seeds revealed when a session starts or ends; the dice of
every revealed seed checked by ``verify_rolls`` (the derivation itself: tests/rules/test_fair.py).
"""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from rolls import chain, services
from rolls.dice import dice_problem, drawn, seed_open
from rolls.export import cells_text
from rolls.models import DiceSeed, LogEntry, after_place, outcome_fields
from rolls.systems.pool import report as pool_report
from rolls.systems.pool import services as pool_services
from rules import fair
from tests.helpers import HTMX, in_threads
from tests.rolls.room_setup import ask, mana_params, roll_requests, roll_url

CONTRIBUTION = "00112233445566778899aabbccddeeff"


def verify(campaign):
    """``verify_rolls`` for ``campaign``: its output, or the CommandError it ends with."""
    out = StringIO()
    try:
        call_command("verify_rolls", "--campaign", str(campaign.pk), stdout=out)
    except CommandError as error:
        return error
    return out.getvalue()


def pool_roll(table, *, contribution=""):
    check = ask(table, table.ilse, target=5)
    return pool_services.check_roll_pool(
        check=check, by=table.player, attribute=table.strength, contribution=contribution
    )


def rewrite(entry, data):
    """Someone with the log key rewrites ``entry``'s data and signs it again (the hash and what
    is kept beside the data as they would be), and every entry after it, chained anew: only
    the dice can tell."""
    entry.data = data
    entry.hash = entry.compute_hash()
    cells = cells_text(entry.kind, entry.visibility, data)
    beside = {"cells": cells, **outcome_fields(entry.kind, data)}
    LogEntry.objects.filter(pk=entry.pk).update(data=data, hash=entry.hash, **beside)
    later = LogEntry.objects.filter(campaign=entry.campaign).order_by("seq", "sub")
    last = entry
    for after in later.filter(after_place(entry.place)):
        after.prev_hash = last.hash
        after.hash = after.compute_hash()
        LogEntry.objects.filter(pk=after.pk).update(prev_hash=after.prev_hash, hash=after.hash)
        last = after
    services._move_head(entry.campaign_id, last.place, last.hash)


def test_a_roll_draws_its_dice_from_the_open_seed_its_contribution_and_its_number(pool_table):
    seed = seed_open(pool_table.campaign)
    entry = pool_roll(pool_table, contribution=CONTRIBUTION.upper())
    record = entry.data["fair"]
    assert record["commitment"] == seed.commitment == fair.commitment(seed.seed)
    assert (record["contribution"], record["by"]) == (CONTRIBUTION, "browser")
    assert len(record["draws"]) == 3 + sum(len(c) - 1 for c in entry.data["d6"])  # explosions
    assert fair.verify_draws(seed.seed, CONTRIBUTION, entry.seq, record["draws"]) is None
    assert drawn(entry.kind, entry.data) == record["draws"]
    assert all(draw[:2] == [1, 6] for draw in record["draws"])
    assert dice_problem(entry, seed) is None


def test_without_a_contribution_the_server_makes_one_and_says_so(pool_table):
    entry = pool_roll(pool_table)
    record = entry.data["fair"]
    assert record["by"] == "server" and len(record["contribution"]) == 32
    assert dice_problem(entry, seed_open(pool_table.campaign)) is None


def test_the_seed_is_committed_before_and_revealed_when_the_session_ends(pool_table):
    campaign = pool_table.campaign
    before = seed_open(campaign)
    services.session_start(campaign=campaign, by=pool_table.gm)
    session_seed = seed_open(campaign)
    before.refresh_from_db()
    assert before.revealed_at is not None and session_seed.revealed_at is None
    entry = pool_roll(pool_table, contribution=CONTRIBUTION)
    assert entry.data["fair"]["commitment"] == session_seed.commitment
    assert verify(campaign).strip().endswith("fingerprint #2 " + entry.hash[:12] + ".")
    services.session_end(campaign=campaign, by=pool_table.gm)
    session_seed.refresh_from_db()
    assert session_seed.revealed_at is not None
    assert seed_open(campaign).commitment not in (before.commitment, session_seed.commitment)
    assert verify(campaign).strip().endswith("1 roll's dice checked against their revealed seeds.")
    assert DiceSeed.objects.filter(campaign=campaign, revealed_at__isnull=True).count() == 1


@pytest.fixture
def ended(pool_table):
    """A session with one fair roll (its last entry), then ended: the seed revealed."""
    services.session_start(campaign=pool_table.campaign, by=pool_table.gm)
    entry = pool_roll(pool_table, contribution=CONTRIBUTION)
    seed = seed_open(pool_table.campaign)
    services.session_end(campaign=pool_table.campaign, by=pool_table.gm)
    seed.refresh_from_db()
    end = LogEntry.objects.get(campaign=pool_table.campaign, kind=LogEntry.SESSION_END)
    LogEntry.objects.filter(pk=end.pk).delete()  # so that the roll is the last entry again
    head = (entry.seq, entry.sub)
    services._move_head(pool_table.campaign.pk, head, entry.hash)
    return entry, seed


def test_a_changed_die_fails(pool_table, ended):
    entry, _seed = ended
    data = {**entry.data, "d6": [[(entry.data["d6"][0][0] % 6) + 1], *entry.data["d6"][1:]]}
    rewrite(entry, data)
    assert str(verify(pool_table.campaign)).endswith(
        "roll #2: the dice it shows are not the ones drawn."
    )


def test_a_changed_die_and_draw_fails(pool_table, ended):
    """A die changed where it is shown and where it is drawn: the seed tells."""
    entry, _seed = ended
    d6, draws = [list(c) for c in entry.data["d6"]], entry.data["fair"]["draws"]
    draws = [list(draw) for draw in draws]
    # A chain of one die that did not explode: changing it changes no other draw.
    at, n = next(((i, sum(map(len, d6[:i]))) for i, c in enumerate(d6) if c[0] != 6), (0, 0))
    other = 1 if d6[at][0] != 1 else 2
    d6[at] = [other]
    draws[n][2] = other
    rewrite(entry, {**entry.data, "d6": d6, "fair": {**entry.data["fair"], "draws": draws}})
    assert str(verify(pool_table.campaign)).endswith(
        f"roll #2: its die {n + 1} is not the one its seed and contribution give."
    )


def test_dice_regrouped_into_other_chains_fail(pool_table, ended):
    """The same faces in the same order, but a die made an explosion of the one before: rolled
    again from what was asked, the dice give other chains."""
    entry, _seed = ended
    d6 = entry.data["d6"]
    if any(len(chain) > 1 for chain in d6):
        regrouped = [[face for chain in d6 for face in chain]]  # one long chain
    else:
        regrouped = [d6[0] + d6[1], *d6[2:]]
    rewrite(entry, {**entry.data, "d6": regrouped})
    assert str(verify(pool_table.campaign)).endswith(
        "roll #2: its outcome is not what its dice give."
    )


def test_a_draw_read_in_another_range_fails(pool_table, ended):
    """A draw kept with a range that gives the same face from the seed (a server trying ranges
    until the face it wants comes out): the die it shows is a d6, its draw is not."""
    entry, seed = ended
    record = entry.data["fair"]
    face = record["draws"][0][2]
    # Only a range that holds the face can give it: each of the `size` ranges of `size` faces
    # around it gives it one time in `size`, so one is found within the first sizes.
    low, high = next(
        (face - k, face - k + size - 1)
        for size in range(7, 1000)
        for k in range(size)
        if fair.derive(
            seed.seed, record["contribution"], entry.seq, 0, face - k, face - k + size - 1
        )
        == face
    )
    draws = [[low, high, face], *record["draws"][1:]]
    rewrite(entry, {**entry.data, "fair": {**record, "draws": draws}})
    assert str(verify(pool_table.campaign)).endswith(
        "roll #2: the dice it shows are not the ones drawn."
    )


def test_a_changed_contribution_fails(pool_table, ended):
    entry, _seed = ended
    fair_record = {**entry.data["fair"], "contribution": "ff" * 16}
    rewrite(entry, {**entry.data, "fair": fair_record})
    assert "roll #2: its die" in str(verify(pool_table.campaign))


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"contribution": "not hex at all"}, "its dice record is malformed"),
        ({"contribution": "ab" * 33}, "its dice record is malformed"),
        ({"contribution": None}, "its dice record is malformed"),
        ({"draws": {}}, "its dice record is malformed"),
        ({"draws": "3,3,3"}, "its dice record is malformed"),
        ({"draws": None}, "its dice record is malformed"),
        ({"draws": [[1, 6]]}, "its die 1 is not the one its seed and contribution give"),
        ({"draws": [[1, 6, "3"]]}, "its die 1 is not the one its seed and contribution give"),
    ],
)
def test_a_malformed_record_does_not_verify(pool_table, ended, change, why):
    """As docs/fair-dice.md says ("What does not verify"), and the page's script marks it
    (tests/rolls/test_dice_browser.py)."""
    entry, _seed = ended
    rewrite(entry, {**entry.data, "fair": {**entry.data["fair"], **change}})
    assert str(verify(pool_table.campaign)).endswith(f"roll #2: {why}.")


def test_a_changed_seed_fails(pool_table, ended):
    _entry, seed = ended
    DiceSeed.objects.filter(pk=seed.pk).update(seed=fair.new_seed())
    assert str(verify(pool_table.campaign)).endswith("roll #2: its seed is not the one committed.")


def test_a_roll_naming_a_seed_never_committed_fails(pool_table, ended):
    entry, _seed = ended
    rewrite(entry, {**entry.data, "fair": {**entry.data["fair"], "commitment": "ab" * 32}})
    # The log announced another seed before it (#1, the session's start).
    assert str(verify(pool_table.campaign)).endswith(
        "roll #2: its seed is not the one announced before it (#1)."
    )


def test_a_free_roll_and_a_secret_one_are_fair_too(mana_table):
    campaign = mana_table.campaign
    notation = services.rules_notation.parse("4d6kh3+2d6!")
    entry = services.free_roll_make(
        campaign=campaign, by=mana_table.player, notation=notation, contribution=CONTRIBUTION
    )
    secret = services.free_roll_make(
        campaign=campaign, by=mana_table.gm, notation=notation, visibility="secret"
    )
    seed = seed_open(campaign)
    for rolled in (entry, secret):
        assert dice_problem(rolled, seed) is None
        assert drawn(rolled.kind, rolled.data) == rolled.data["fair"]["draws"]
    assert chain.result_of(secret.data)  # sealed as every secret roll


def test_fate_dice_are_d3_draws_and_verify(mana_table):
    """A Fate die is drawn as a d3 (1..3) and shows it less 2: what it shows maps back onto
    its draw, and a Fate die changed where it is shown fails as any die does."""
    campaign = mana_table.campaign
    notation = services.rules_notation.parse("4dF+1d6 vs 3")
    entry = services.free_roll_make(
        campaign=campaign, by=mana_table.player, notation=notation, contribution=CONTRIBUTION
    )
    seed = seed_open(campaign)
    draws = entry.data["fair"]["draws"]
    fate = entry.data["groups"][0]
    assert fate["fate"] is True
    assert [draw[:2] for draw in draws] == [[1, 3]] * 4 + [[1, 6]]
    assert [die["value"] + 2 for die in fate["dice"]] == [draw[2] for draw in draws[:4]]
    assert drawn(entry.kind, entry.data) == draws
    assert dice_problem(entry, seed) is None
    changed = [dict(die) for die in fate["dice"]]
    changed[0]["value"] = (changed[0]["value"] + 2) % 3 - 1  # another face of -1, 0, +1
    groups = [{**fate, "dice": changed}, *entry.data["groups"][1:]]
    entry.data = {**entry.data, "groups": groups}
    assert dice_problem(entry, seed) == "the dice it shows are not the ones drawn"
    entry.data = {**entry.data, "groups": [{**fate, "fate": False}, *groups[1:]]}
    assert dice_problem(entry, seed) == "the dice it shows are not the ones drawn"


def test_a_mana_roll_through_the_view_takes_the_browsers_contribution(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=1)
    params = mana_params(mana_table, spend_a=1, contribution=CONTRIBUTION)
    response = as_user(player).post(roll_url(mana_table, check), params, **HTMX)
    assert response.status_code == 204
    entry = LogEntry.objects.get(campaign=mana_table.campaign, kind=LogEntry.ROLL)
    assert entry.data["fair"]["contribution"] == CONTRIBUTION
    assert entry.data["fair"]["by"] == "browser"
    assert dice_problem(entry, seed_open(mana_table.campaign)) is None


def test_an_unreadable_contribution_is_refused_and_nothing_rolls(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=1)
    params = mana_params(mana_table, spend_a=1, contribution="not hex at all")
    response = as_user(player).post(roll_url(mana_table, check), params, **HTMX)
    assert response.status_code == 422
    assert "random part for the dice was not readable" in response.content.decode()
    assert not LogEntry.objects.filter(campaign=mana_table.campaign, kind=LogEntry.ROLL)


def test_a_free_roll_from_the_box_takes_the_browsers_contribution(mana_table, as_user, player):
    path = reverse("talk_say", args=[mana_table.campaign.id])
    response = as_user(player).post(path, {"text": "/r 2d6", "contribution": CONTRIBUTION}, **HTMX)
    assert response.status_code == 200
    entry = LogEntry.objects.get(campaign=mana_table.campaign, kind=LogEntry.FREE)
    assert entry.data["fair"]["contribution"] == CONTRIBUTION


def test_seeds_never_leave_the_server_before_they_are_revealed(mana_table, as_user, player):
    seed = seed_open(mana_table.campaign)
    page = as_user(player).get(reverse("room", args=[mana_table.campaign.id])).content.decode()
    assert seed.seed not in page


@pytest.mark.django_db(transaction=True)
def test_rooms_opened_at_once_make_one_seed_and_show_it(pool_table, player, gm, other_player):
    """Real requests at once, on a campaign with no seed yet: one is made, every page shows it
    (on both databases: the unique open seed is a constraint, the loser reads the winner's)."""
    pages = []

    def open_room(user):
        def get():
            client = Client()
            client.force_login(user)
            pages.append(client.get(reverse("room", args=[pool_table.campaign.id])))

        return get

    in_threads(*(open_room(user) for user in (player, gm, other_player, player, gm, player)))
    [seed] = DiceSeed.objects.filter(campaign=pool_table.campaign)
    assert [page.status_code for page in pages] == [200] * 6
    assert all(seed.commitment[:16] in page.content.decode() for page in pages)


@pytest.mark.django_db(transaction=True)
def test_rolls_at_once_each_draw_at_their_own_number(pool_table, player, gm, pushes, settings):
    """Eight real rolls at once: each takes its number before its dice, so every one verifies
    at the number it was logged at once the seed is revealed."""
    settings.WRITE_LIMITS = {}
    seed_open(pool_table.campaign)
    in_threads(*roll_requests(pool_table, player, 8))
    services.session_start(campaign=pool_table.campaign, by=gm)  # reveals the seed
    out = verify(pool_table.campaign)
    assert "8 rolls' dice checked against their revealed seeds." in str(out)
    # Before the first session the seed was shown in the room only: the log cannot tell when.
    assert (
        str(out)
        .strip()
        .endswith(
            "8 rolls came before the log announced any dice seed (a campaign's first seed, shown in"
            " the room only)."
        )
    )


def test_a_roll_sent_without_scripts_says_so_in_the_room(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=1)
    client = as_user(player)
    response = client.post(roll_url(mana_table, check), mana_params(mana_table, spend_a=1))
    assert response.status_code == 302  # a plain form: back to the room
    entry = LogEntry.objects.get(campaign=mana_table.campaign, kind=LogEntry.ROLL)
    assert entry.data["fair"]["by"] == "server"
    room = client.get(reverse("room", args=[mana_table.campaign.id])).content.decode()
    assert "Dice from the server's random part: sent without scripts." in room
    browser = ask(mana_table, mana_table.mira, target=1)
    params = mana_params(mana_table, spend_a=1, contribution=CONTRIBUTION)
    client.post(roll_url(mana_table, browser), params, **HTMX)
    room = client.get(reverse("room", args=[mana_table.campaign.id])).content.decode()
    assert room.count("sent without scripts") == 1


def test_a_shift_the_gm_approves_draws_with_the_gms_part(pool_table, as_user, gm, player):
    check = ask(pool_table, pool_table.ilse, target=5)
    pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=pool_table.strength,
        shift_d6=1,
        bonus_effect="Disarm",
        contribution=CONTRIBUTION,
    )
    shift = reverse("check_answer_shift", args=[pool_table.campaign.id, check.id])
    gms = "fedcba9876543210" * 2
    response = as_user(gm).post(shift, {"answer": "approve", "contribution": gms}, **HTMX)
    assert response.status_code == 204
    entry = LogEntry.objects.get(campaign=pool_table.campaign, kind=LogEntry.ROLL)
    assert (entry.data["fair"]["contribution"], entry.data["shift"]) == (gms, {"d6": 1, "d10": 0})
    assert entry.data["fair"]["by"] == "gm"  # the GM's browser, not the player's
    assert dice_problem(entry, seed_open(pool_table.campaign)) is None
    unreadable = ask(pool_table, pool_table.ilse, target=5)
    pool_services.check_roll_pool(
        check=unreadable, by=player, attribute=pool_table.strength, shift_d6=1, bonus_effect="X"
    )
    shift = reverse("check_answer_shift", args=[pool_table.campaign.id, unreadable.id])
    response = as_user(gm).post(shift, {"answer": "approve", "contribution": "zz"}, **HTMX)
    assert response.status_code == 422
    assert LogEntry.objects.filter(campaign=pool_table.campaign, kind=LogEntry.ROLL).count() == 1


def test_a_roll_must_name_the_seed_last_announced_before_it(pool_table, gm):
    """A server that made a seed of its own for a roll it had received (and revealed it, as an
    early reveal would) is caught: the log announced another seed before the roll."""
    services.session_start(campaign=pool_table.campaign, by=gm)
    entry = pool_roll(pool_table, contribution=CONTRIBUTION)
    announced = seed_open(pool_table.campaign)
    other = DiceSeed.objects.create(
        campaign=pool_table.campaign,
        seed=fair.new_seed(),
        commitment="",
        revealed_at=timezone.now(),
    )
    other.commitment = fair.commitment(other.seed)
    other.save()
    again = fair.FairDice(other.seed, CONTRIBUTION, entry.seq)
    data = {**entry.data, **pool_report.replay(entry.data | {"target": 5}, again)}
    data["fair"] = {**again.record(), "by": "browser"}
    rewrite(entry, data)
    assert announced.commitment != other.commitment
    assert str(verify(pool_table.campaign)).endswith(
        "roll #2: its seed is not the one announced before it (#1)."
    )


def test_the_gms_early_reveal_announces_the_next_seed(pool_table, gm):
    services.session_start(campaign=pool_table.campaign, by=gm)
    services.dice_seed_reveal(campaign=pool_table.campaign, by=gm)
    entry = pool_roll(pool_table, contribution=CONTRIBUTION)
    services.dice_seed_reveal(campaign=pool_table.campaign, by=gm)
    assert entry.seq == 3
    assert (
        verify(pool_table.campaign)
        .strip()
        .endswith("1 roll's dice checked against their revealed seeds.")
    )


def test_a_roll_before_any_announcement_naming_no_seed_fails(pool_table):
    entry = pool_roll(pool_table, contribution=CONTRIBUTION)  # no session yet
    services._move_head(entry.campaign_id, entry.place, entry.hash)
    rewrite(entry, {**entry.data, "fair": {**entry.data["fair"], "commitment": "cd" * 32}})
    assert str(verify(pool_table.campaign)).endswith("roll #1: its seed was never committed.")
