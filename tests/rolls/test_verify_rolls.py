"""Verifying roll logs: ``manage.py verify_rolls`` and the GM's page (room.views.verify_log),
both through rolls.services.log_check (the chain, rolls.services.log_verify, then the dice of
every roll whose seed is revealed, rolls.dice.dice_verify): every kind of roll verifies once its
seed is revealed, and both say so, or both name the same roll."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rolls import services
from rolls.models import PRIVATE, SECRET, LogEntry
from rolls.systems.mana import services as mana_services
from rolls.systems.pool import services as pool_services
from rolls.systems.pool.models import Rating
from rules import notation
from tests.conftest import make_campaign
from tests.rolls.room_setup import ask, fill, roll_mana, url
from tests.rolls.test_dice import rewrite
from tests.rules.test_notation import accepted, crowded, typed


@pytest.fixture
def rolled(mana_table):
    """Three public rolls in the Mana campaign: entries #1 to #3."""
    for face in (2, 9, 4):
        roll_mana(
            ask(mana_table, mana_table.mira, target=1),
            mana_table.player,
            mana_table.gather,
            (face,),
            spend_a=0,
            spend_b=0,
        )
    return list(LogEntry.objects.filter(campaign=mana_table.campaign))


def verify(*args):
    """Run the command: its output, or the CommandError it ends with."""
    out = StringIO()
    try:
        call_command("verify_rolls", *args, stdout=out)
    except CommandError as error:
        return error
    return out.getvalue()


# The command ------------------------------------------------------------------------------------


def test_a_whole_log_exits_0_with_a_one_line_summary(mana_table, rolled):
    out = verify("--campaign", str(mana_table.campaign.pk))
    assert out.count("\n") <= 1
    assert out.strip() == (
        f"The roll log of campaign {mana_table.campaign.pk} “Blue Harbor” is whole: 3 entries, "
        f"fingerprint #3 {rolled[-1].hash[:12]}."
    )


def test_every_campaign_is_verified_without_one_named(mana_table, rolled):
    make_campaign(mana_table.gm, system="pool", name="Empty")
    assert verify().strip() == "2 roll logs are whole: 3 entries in all."


def test_an_altered_entry_fails_naming_it_and_its_campaign(mana_table, rolled):
    LogEntry.objects.filter(pk=rolled[1].pk).update(data={**rolled[1].data, "faces": [10]})
    error = verify("--campaign", str(mana_table.campaign.pk))
    assert isinstance(error, CommandError) and error.returncode == 1
    assert str(error) == (
        f"The roll log of campaign {mana_table.campaign.pk} “Blue Harbor” does not hold: "
        "entry #2 was altered: its hash does not verify with the log key."
    )


@pytest.mark.parametrize(
    "change",
    [{"success": True}, {"chance": "1/1"}, {"target": 9}, {"pool": "9"}, {"shown": 7}],
)
def test_an_outcome_that_is_not_the_datas_fails(mana_table, rolled, change):
    """What a roll keeps of its outcome beside its data (what luck and tuning count) is not
    under its hash: it must say what the data says."""
    entry = rolled[0]  # a 2 on one die: no success
    assert (entry.success, entry.pool, entry.shown) == (False, "1", 0)
    LogEntry.objects.filter(pk=entry.pk).update(**change)
    assert str(verify("--campaign", str(mana_table.campaign.pk))).endswith(
        "entry #1 was altered: its outcome is not the one its data says."
    )


def test_export_cells_that_are_not_the_datas_fail(mana_table, rolled):
    """What an entry says in the CSV export is kept beside its data, not under its hash: it
    must say what the data says, or a download would show dice that were never rolled."""
    entry = rolled[0]
    assert entry.cells == "mana,,Gather Information,1d10,2,0 successes,1,False,3/10,0.3,,"
    LogEntry.objects.filter(pk=entry.pk).update(cells=entry.cells.replace(",2,", ",10,"))
    assert str(verify("--campaign", str(mana_table.campaign.pk))).endswith(
        "entry #1 was altered: its export is not the one its data says."
    )


def test_a_roll_keeps_what_its_data_says_of_its_outcome(mana_table, rolled):
    entry = LogEntry.objects.get(pk=rolled[1].pk)
    data = entry.data
    assert (entry.success, entry.chance, entry.target) == (
        data["success"],
        data["chance"],
        data["target"],
    )
    assert (entry.pool, entry.shown) == (str(data["dice"]), data["successes"]) == ("1", 1)
    services.session_start(campaign=mana_table.campaign, by=mana_table.gm)
    start = LogEntry.objects.get(campaign=mana_table.campaign, kind=LogEntry.SESSION_START)
    assert (start.success, start.chance, start.target, start.pool, start.shown) == (
        None,
        "",
        None,
        "",
        None,
    )


def test_a_deleted_last_entry_fails(mana_table, rolled):
    LogEntry.objects.filter(pk=rolled[-1].pk).delete()
    assert "entry #3 was deleted" in str(verify())


def test_every_broken_campaign_is_named(mana_table, rolled):
    other = make_campaign(mana_table.gm, system="pool", name="Other")
    services.session_start(campaign=other, by=mana_table.gm)
    LogEntry.objects.filter(campaign=other).delete()
    LogEntry.objects.filter(pk=rolled[0].pk).delete()
    lines = str(verify()).splitlines()
    assert len(lines) == 2
    assert "“Blue Harbor” does not hold: entry #1 was deleted" in lines[0]
    assert "“Other” does not hold: entry #1 was deleted" in lines[1]


def test_an_unknown_campaign_is_an_error(mana_table):
    assert (
        str(verify("--campaign", str(mana_table.campaign.pk + 99)))
        == f"No campaign {mana_table.campaign.pk + 99}."
    )


# The GM's page ----------------------------------------------------------------------------------


def test_the_gm_panel_links_to_the_check(mana_table, as_user, gm):
    html = as_user(gm).get(reverse("gm_panel", args=[mana_table.campaign.pk])).content.decode()
    assert url("verify_log", mana_table) in html


def test_the_gm_sees_a_whole_log(mana_table, rolled, as_user, gm):
    response = as_user(gm).get(url("verify_log", mana_table))
    html = response.content.decode()
    assert response.status_code == 200
    assert "The log is whole." in html and "Every entry is signed" in html
    assert f"#3 <code>{rolled[-1].hash[:12]}</code>" in html


def test_the_gm_sees_the_first_entry_that_does_not_hold(mana_table, rolled, as_user, gm):
    LogEntry.objects.filter(pk=rolled[1].pk).delete()
    html = as_user(gm).get(url("verify_log", mana_table)).content.decode()
    assert "The log does not hold." in html
    assert "Entry #2 was deleted: the log goes from #1 to #3." in html


@pytest.mark.parametrize("who, status", [("player", 403), ("outsider", 404), (None, 302)])
def test_only_the_gm_runs_the_check(mana_table, as_user, outsider, who, status):
    user = {"player": mana_table.player, "outsider": outsider, None: None}[who]
    assert as_user(user).get(url("verify_log", mana_table)).status_code == status


def test_the_check_is_get_only(mana_table, as_user, gm):
    assert as_user(gm).post(url("verify_log", mana_table)).status_code == 405


# Every kind of roll, checked by both once its seed is revealed ----------------------------------

CONTRIBUTION = "00112233445566778899aabbccddeeff"

#: Free rolls: every feature of the notation, with and without a target.
NOTATIONS = [
    "2d6+1 vs 8",  # the demo's own
    "2d6+1",
    "d20",
    "d20+5 adv vs 15",
    "d20-1 dis",
    "d% vs 50",
    "4d6kh3",
    "4d6kl1 vs 3",
    "4d6dh1+2",
    "4d6dl1 vs 12",
    "3d6!",
    "3d6! vs 12",
    "6d10>=8",
    "6d10!>=8 vs 3",
    "5d6<=2",
    "(1d4+1)*2 vs 5",
    "2*-1d6+20",
    "-(1d4+2)+10 vs 5",
    "3d4 - 1d6",
    "7 vs 7",
    "+".join(["d6"] * 31) + " vs 50",  # its canonical text is longer than a player may type
    "1-(2-(3-(4-(5- -1d6))))",  # and nests deeper
]


def gm_page(campaign):
    """The GM's "Verify the roll log" page of ``campaign``."""
    client = Client()
    client.force_login(campaign.memberships.get(role="gm").user)
    response = client.get(reverse("verify_log", args=[campaign.pk]))
    assert response.status_code == 200
    return response.content.decode()


def both(campaign):
    """(what ``verify_rolls --campaign`` says, what the GM's page says) of ``campaign``."""
    return verify("--campaign", str(campaign.pk)), gm_page(campaign)


def assert_whole(campaign, rolls):
    """Both checks find the log whole, with the dice of ``rolls`` rolls checked."""
    said, page = both(campaign)
    assert isinstance(said, str), said
    checked = "1 roll's dice" if rolls == 1 else f"{rolls} rolls' dice"
    assert " is whole: " in said
    assert (f"{checked} checked against their revealed seeds." in said) == bool(rolls)
    assert "The log is whole." in page and f'data-dice-checked="{rolls}"' in page
    assert "do not hold" not in page


def free_rolls(table, by):
    for text in NOTATIONS:
        services.free_roll_make(
            campaign=table.campaign,
            by=by,
            notation=notation.parse(text),
            contribution=CONTRIBUTION,
        )


def mana_every_kind(t):
    """A Mana campaign's every kind of roll: a player's check, its re-attempt, a private one, the
    GM's NPC roll, a GM-secret roll (then revealed), free rolls of the player, private and the
    GM's secret one."""
    fill(t.mira, blue=9, white=9, colorless=6)
    check = ask(t, t.mira, target=30)  # no roll of a few dice reaches 30 successes
    spend = {"skill": t.gather, "spend_a": 1, "spend_b": 1, "colorless": 2}
    mana_services.check_roll_mana(check=check, by=t.player, contribution=CONTRIBUTION, **spend)
    services.check_allow_reattempt(check=check)
    mana_services.check_roll_mana(check=check, by=t.player, **spend)  # the server's part
    private = ask(t, t.mira, target=1, visibility=PRIVATE)
    mana_services.check_roll_mana(check=private, by=t.player, **spend)
    npc = {"skill": t.gather, "spend_a": 1, "spend_b": 1, "colorless": 0, "intent": ""}
    services.check_roll_npc(campaign=t.campaign, character=t.npc, by=t.gm, target=2, data=npc)
    _, secret = services.check_roll_npc(
        campaign=t.campaign, character=t.npc, by=t.gm, target=1, data=npc, visibility=SECRET
    )
    services.roll_reveal(campaign=t.campaign, seq=secret.seq, by=t.gm)
    free_rolls(t, t.player)
    services.free_roll_make(
        campaign=t.campaign, by=t.player, notation=notation.parse("2d6 vs 7"), visibility=PRIVATE
    )
    secret = services.free_roll_make(
        campaign=t.campaign, by=t.gm, notation=notation.parse("d20+2 vs 11"), visibility=SECRET
    )
    services.roll_reveal(campaign=t.campaign, seq=secret.seq, by=t.gm)


def pool_every_kind(t):
    """A Pool campaign's every kind of roll: a player's check, a shift the GM approves, the
    GM's NPC roll and their own shift, a GM-secret roll (then revealed), free rolls."""
    pool_services.check_roll_pool(
        check=ask(t, t.ilse, target=5), by=t.player, attribute=t.strength, skill=t.jump
    )
    shifted = ask(t, t.ilse, target=4)
    pool_services.check_roll_pool(
        check=shifted,
        by=t.player,
        attribute=t.strength,
        skill=t.jump,
        shift_d6=1,
        shift_d10=1,
        bonus_effect="Disarm",
        contribution=CONTRIBUTION,
    )
    pool_services.check_answer_shift(check=shifted, approve=True, contribution="fedcba98" * 4)
    ogre = Rating.objects.get(character=t.npc, attribute="Strength", skill="")
    npc = {"attribute": ogre, "skill": None, "shift_d6": 0, "shift_d10": 0}
    npc |= {"bonus_effect": "", "intent": ""}
    services.check_roll_npc(campaign=t.campaign, character=t.npc, by=t.gm, target=6, data=npc)
    shift = npc | {"shift_d6": 2, "bonus_effect": "Roar"}
    services.check_roll_npc(campaign=t.campaign, character=t.npc, by=t.gm, target=3, data=shift)
    _, secret = services.check_roll_npc(
        campaign=t.campaign, character=t.npc, by=t.gm, target=4, data=npc, visibility=SECRET
    )
    services.roll_reveal(campaign=t.campaign, seq=secret.seq, by=t.gm)
    free_rolls(t, t.player)


def rolls_of(campaign):
    return LogEntry.objects.filter(campaign=campaign, kind__in=LogEntry.ROLLS)


@pytest.mark.parametrize("reveal", ["session end", "gm's early reveal"])
@pytest.mark.parametrize("system", ["mana", "pool"])
def test_every_kind_of_roll_verifies_once_its_seed_is_revealed(
    system, reveal, mana_table, pool_table
):
    """Every kind of roll, made as the app makes them, in a session: once its seed is revealed
    (the session's end, or the GM's early reveal), ``verify_rolls`` and the GM's page both find
    the log whole and every roll's dice checked."""
    table = mana_table if system == "mana" else pool_table
    services.session_start(campaign=table.campaign, by=table.gm)
    (mana_every_kind if system == "mana" else pool_every_kind)(table)
    rolls = rolls_of(table.campaign).count()
    shifts = [entry for entry in rolls_of(table.campaign) if entry.data.get("shift")]
    assert len(shifts) == (2 if system == "pool" else 0)  # the player's and the GM's own
    attempts = [entry.data.get("attempt") for entry in rolls_of(table.campaign)]
    assert (2 in attempts) == (system == "mana")  # a re-attempt
    revealed = LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.REVEAL)
    assert revealed.count() == (2 if system == "mana" else 1)  # a secret check's, a free roll's
    assert_whole(table.campaign, 0)  # before the reveal nothing is checked
    if reveal == "session end":
        services.session_end(campaign=table.campaign, by=table.gm)
    else:
        services.dice_seed_reveal(campaign=table.campaign, by=table.gm)
    assert_whole(table.campaign, rolls)
    assert str(verify()).startswith("2 roll logs are whole")  # both campaigns, without one named


def test_the_demo_verifies_once_its_sessions_end(gm):
    """The demo's own rolls (``manage.py seed_demo``), among them ``/r 2d6+1 vs 8``."""
    gm.delete()  # the demo loads only into a database without users
    call_command("seed_demo", stdout=StringIO())
    for campaign in services.Campaign.objects.all():
        services.session_end(campaign=campaign, by=campaign.memberships.get(role="gm").user)
        assert_whole(campaign, rolls_of(campaign).filter(data__fair__isnull=False).count())


def text_of(html):
    """The page's text, tags out, spaces as one."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def tamper(entry, data):
    """``entry`` rewritten with ``data`` and signed again, its chain with it (by whoever holds
    the log key: only the dice can tell); what both checks say."""
    rewrite(entry, data)
    said, page = both(entry.campaign)
    return said, text_of(page)


SPEND_1_1 = {"spend_a": 1, "spend_b": 1, "colorless": 0}


@pytest.fixture
def revealed(mana_table):
    """A session's free roll with a target, a Mana check, then a free roll without, the session
    ended: (the table, the three rolls)."""
    t = mana_table
    services.session_start(campaign=t.campaign, by=t.gm)
    rolled = [
        services.free_roll_make(
            campaign=t.campaign, by=t.player, notation=notation.parse("2d6!+1 vs 8")
        ),
        mana_services.check_roll_mana(
            check=ask(t, t.mira, target=1), by=t.player, skill=t.gather, **SPEND_1_1
        ),
        services.free_roll_make(campaign=t.campaign, by=t.player, notation=notation.parse("4d6")),
    ]
    services.session_end(campaign=t.campaign, by=t.gm)
    assert_whole(t.campaign, 3)
    return t, [LogEntry.objects.get(pk=entry.pk) for entry in rolled]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("die", "the dice it shows are not the ones drawn"),
        ("die and draw", "its die 1 is not the one its seed and contribution give"),
        ("total", "its outcome is not what its dice give"),
        ("success", "its outcome is not what its dice give"),
        ("target", "its outcome is not what its dice give"),
    ],
)
def test_a_tampered_free_roll_is_named_by_both(revealed, change, why):
    table, (entry, *_) = revealed
    data = {**entry.data, "groups": [dict(g) for g in entry.data["groups"]]}
    first = data["groups"][0]
    face = first["dice"][0]["value"]
    other = 1 if face != 1 else 2
    if change.startswith("die"):
        first["dice"] = [{**first["dice"][0], "value": other}, *first["dice"][1:]]
    if change == "die and draw":
        record = entry.data["fair"]
        data["fair"] = {**record, "draws": [[1, 6, other], *record["draws"][1:]]}
    if change == "total":
        data["total"] += 1
    if change == "success":
        data["success"] = not data["success"]
    if change == "target":
        # a target its total no longer reaches (or now does): the success it shows is wrong
        data["target"] = data["total"] + 1 if data["success"] else 1
    said, page = tamper(entry, data)
    assert isinstance(said, CommandError)
    assert str(said).endswith(f"do not hold: roll #{entry.seq}: {why}.")
    assert f"The dice do not hold. Roll #{entry.seq}: {why}." in page
    assert "The log is whole." not in page


def test_a_tampered_check_roll_is_named_by_both(revealed):
    table, (_, entry, _) = revealed
    faces = [face % 10 + 1 for face in entry.data["faces"]]
    said, page = tamper(entry, {**entry.data, "faces": faces})
    why = "the dice it shows are not the ones drawn"
    assert str(said).endswith(f"do not hold: roll #{entry.seq}: {why}.")
    assert f"The dice do not hold. Roll #{entry.seq}: {why}." in page


def test_a_broken_chain_is_named_by_both_before_any_die(revealed):
    table, (entry, *_) = revealed
    LogEntry.objects.filter(pk=entry.pk).update(data={**entry.data, "total": 0})
    said, page = both(table.campaign)
    why = "was altered: its hash does not verify with the log key"
    assert str(said).endswith(f"entry #{entry.seq} {why}.")
    assert f"Entry #{entry.seq} {why}." in text_of(page)


# Random notations, with and without a target ---------------------------------------------------


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(typed(most_faces=20), crowded()), st.booleans())
def test_any_free_roll_verifies_once_its_seed_is_revealed(mana_table, text, early):
    """Any notation a player may type, with or without ``vs``: rolled through the service with
    fair dice, its seed revealed (the GM's early reveal, or a session's end), it verifies.
    Each example in a savepoint of its own, rolled back: the same campaign, fresh."""
    parsed = accepted(text)
    assume(parsed is not None)
    campaign = mana_table.campaign
    with transaction.atomic():
        if not early:
            services.session_start(campaign=campaign, by=mana_table.gm)
        entry = services.free_roll_make(campaign=campaign, by=mana_table.player, notation=parsed)
        assert entry.data.get("target") == parsed.target
        dice = sum(len(group["dice"]) for group in entry.data["groups"])
        assert len(entry.data["fair"]["draws"]) == dice  # every die drawn, none else
        if early:
            services.dice_seed_reveal(campaign=campaign, by=mana_table.gm)
        else:
            services.session_end(campaign=campaign, by=mana_table.gm)
        found = services.log_check(campaign)
        assert found.whole, (found.unfair, entry.data["expression"], parsed.target)
        assert found.checked == 1
        transaction.set_rollback(True)
