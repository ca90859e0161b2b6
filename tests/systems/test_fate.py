"""The fourth system, Fate-style (tests/systems/fate/: an app with a model and migrations of its
own, installed by tests/settings.py's one line and registered by the fixture ``fate_system``):
a whole campaign of it through the real views and sockets, nothing of it outside its package.
The GM creates the campaign, a player joins by the invite and makes a character (its skills,
the system's sheet), the GM asks a check, the player rolls it, the room's sockets hear it, the
log keeps it with its exact chance, and ``verify_rolls`` checks its dice once the seed is
revealed; its odds are exact and its luck page, export and summary read it."""

import itertools
import json
from contextlib import AsyncExitStack
from fractions import Fraction
from io import StringIO

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.systems import SYSTEMS, system_of
from rolls import dice, services
from rolls.models import PUBLIC, Check, LogEntry
from rolls.systems import refusals, templates
from sheets.models import Character
from sheets.services import character_create
from tests.conftest import make_campaign
from tests.helpers import HTMX, raises_refused
from tests.rolls.sockets import before_mark, enter, logged_in
from tests.systems.fate import services as fate
from tests.systems.fate.models import FateSkill


def test_four_fudge_dice_sum_as_the_exact_odds_say():
    sums = [sum(faces) for faces in itertools.product((-1, 0, 1), repeat=4)]
    assert {t: sums.count(t) for t in set(sums)} == fate.WAYS
    assert sum(fate.sum_chance(t) for t in fate.WAYS) == 1
    assert fate.chance(0, 0) == Fraction(50, 81)  # a blank or better: 19+16+10+4+1
    assert fate.chance(4, 3) == Fraction(66, 81)  # all but -4, -3 and -2: 81 - 1 - 4 - 10
    assert fate.chance(0, 5) == 0


def test_fate_is_registered_only_for_the_tests_that_ask_for_it(fate_system):
    assert fate.KEY in SYSTEMS and len(fate.KEY) >= 5 and refusals(fate_system) == []
    assert "rolls/systems/fate_style/_sheet_skills.html" in templates(fate_system)


def test_fate_is_not_registered_otherwise():
    assert fate.KEY not in SYSTEMS


sockets = pytest.mark.django_db(transaction=True)


def gm_creates_and_player_joins(gm, player):
    """Through the pages: the GM's new Fate-style campaign, the player in by its invite link
    and their character made (its skills filled by the system's sheet)."""
    gm_client, ana = logged_in(gm), logged_in(player)
    page = gm_client.get(reverse("campaign_create")).content.decode()
    assert f'name="system" value="{fate.KEY}"' in page
    created = gm_client.post(reverse("campaign_create"), {"name": "Dresden", "system": fate.KEY})
    campaign = Campaign.objects.get()
    assert created.status_code == 302 and campaign.system == fate.KEY
    assert system_of(campaign).name == "Fate-style"
    joined = ana.post(reverse("campaign_join", args=[campaign.invite_token]))
    assert joined.status_code == 302 and campaign.member(player) is not None
    made = ana.post(reverse("character_create", args=[campaign.id]), {"name": "Harry"})
    hero = Character.objects.get(campaign=campaign)
    assert made.status_code == 302 and hero.owner == player
    skills = {s.name: s.rating for s in FateSkill.objects.filter(character=hero)}
    assert skills["Fight"] == 4 and len(skills) == 5
    sheet = ana.get(reverse("character_detail", args=[campaign.id, hero.id])).content.decode()
    assert 'id="sheet-fate"' in sheet and "<td>Fight</td><td>+4</td>" in sheet
    return campaign, hero, gm_client, ana


@sockets
@pytest.mark.asyncio
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_fate_campaign_is_played_through_its_pages_and_sockets(fate_system, gm, player):
    campaign, hero, gm_client, ana = await database_sync_to_async(gm_creates_and_player_joins)(
        gm, player
    )
    table = type("Table", (), {"campaign": campaign})
    table.cookie = {n: c.cookies["sessionid"].value for n, c in (("gm", gm_client), ("ana", ana))}
    post_as = {"gm": sync_to_async(gm_client.post), "ana": sync_to_async(ana.post)}
    async with AsyncExitStack() as stack:
        to_gm, to_ana = [await enter(stack, table, name) for name in ("gm", "ana")]
        await before_mark(to_gm, to_ana, presence=False)

        ask = {"character": hero.id, "suggestion": "Fight", "target": 3, "visibility": PUBLIC}
        url = reverse("check_ask", args=[campaign.id])
        assert (await post_as["gm"](url, ask, **HTMX)).status_code == 200
        check = await database_sync_to_async(Check.objects.get)()
        [gm_card], [ana_card] = await before_mark(to_gm, to_ana, presence=False)
        assert "Waiting for ana to roll." in gm_card
        assert f'name="skill" id="roll-{check.id}-skill"' in ana_card
        assert "Fight +4</option>" in ana_card and "Notice" not in ana_card  # the check's skill
        fight = await database_sync_to_async(FateSkill.objects.get)(character=hero, name="Fight")

        roll = {"skill": fight.id, "intent": "Punch the troll"}
        url = reverse("check_roll", args=[campaign.id, check.id])
        assert (await post_as["ana"](url, roll, **HTMX)).status_code == 204
        gm_frames, ana_frames = await before_mark(to_gm, to_ana, presence=False)
        entry = await database_sync_to_async(LogEntry.objects.get)(kind=LogEntry.ROLL)
        for heard, gone in (gm_frames, ana_frames):
            assert heard.count('class="die fudge"') == 4 and "Punch the troll" in heard
            assert f"total {entry.data['total']} vs difficulty 3: <b>" in heard
            assert gone == f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'

        revealed = await post_as["gm"](reverse("dice_reveal", args=[campaign.id]))
        assert revealed.status_code == 302  # to the fair-dice page, the seed shown

    # The roll as the log keeps it: its dice, total and exact chance, its fair record.
    faces = entry.data["faces"]
    assert len(faces) == 4 and set(faces) <= {-1, 0, 1}
    assert entry.data["total"] == 4 + sum(faces) and entry.data["chance"] == "22/27"
    assert entry.data["success"] == (entry.data["total"] >= 3)
    assert (entry.pool, entry.shown, entry.chance) == ("4dF", sum(faces), "22/27")
    assert entry.data["fair"]["draws"] == [[1, 3, face + 2] for face in faces]
    # Its dice checked against the revealed seed, by the log's check and by verify_rolls.
    problem, checked, _unannounced = await database_sync_to_async(dice.dice_verify)(campaign)
    assert problem is None and checked == 1
    out = StringIO()
    await database_sync_to_async(call_command)("verify_rolls", campaign=campaign.id, stdout=out)
    assert out.getvalue().startswith(f"The roll log of campaign {campaign.id} “Dresden” is whole")
    assert "1 roll's dice checked against their revealed seeds." in out.getvalue()


@pytest.fixture
def fate_rolls(fate_system, gm, player):
    """Session 1 of a Fate-style campaign: Harry's two rolls of Fight against 3."""
    campaign = make_campaign(gm, system=fate.KEY, name="Dresden", players=[player])
    hero = character_create(campaign=campaign, owner=player, name="Harry")
    fight = hero.fate_skills.get(name="Fight")
    services.session_start(campaign=campaign, by=gm)
    entries = []
    for _ in range(2):
        check = services.check_ask(campaign=campaign, character=hero, by=gm, target=3)
        entries.append(fate_system.roll(check, by=player, data={"skill": fight}))
    services.session_end(campaign=campaign, by=gm)
    return campaign, entries


def test_a_fate_roll_of_another_skill_than_the_one_asked_is_refused(fate_system, gm, player):
    campaign = make_campaign(gm, system=fate.KEY, players=[player])
    hero = character_create(campaign=campaign, owner=player, name="Harry")
    check = services.check_ask(
        campaign=campaign, character=hero, by=gm, target=2, suggestion="Notice"
    )
    fight = hero.fate_skills.get(name="Fight")
    with raises_refused(match="This check is for Notice: roll Notice"):
        fate_system.roll(check, by=player, data={"skill": fight})
    assert not LogEntry.objects.filter(kind=LogEntry.ROLL).exists()


def test_the_luck_export_and_summary_of_a_fate_campaign(fate_rolls, as_user, player):
    campaign, entries = fate_rolls
    client = as_user(player)
    luck = client.get(reverse("campaign_luck", args=[campaign.id])).content.decode()
    assert "The sum of the four Fudge dice" in luck and "<caption>4dF, 2 rolls</caption>" in luck
    log = json.loads(client.get(reverse("log_json", args=[campaign.id])).getvalue())
    rolls = [row for row in log["entries"] if row["kind"] == LogEntry.ROLL]
    assert [(row["system"], row["dice"]) for row in rolls] == [(fate.KEY, "4dF + 4")] * 2
    assert [row["result"] for row in rolls] == [f"total {e.data['total']}" for e in entries]
    summary = client.get(reverse("session_summary", args=[campaign.id, 1])).content.decode()
    assert summary.count("Fight +4") == 2
    assert services.log_verify(campaign) is None
    assert dice.dice_verify(campaign)[:2] == (None, 2)
