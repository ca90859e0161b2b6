"""Verifying roll logs: ``manage.py verify_rolls`` and the GM's page (rolls.views.verify_log),
both through rolls.services.log_verify."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from rolls import services
from rolls.models import LogEntry
from tests.conftest import make_campaign
from tests.rolls.room_setup import ask, roll_mana, url


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
