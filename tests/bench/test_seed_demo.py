"""``manage.py seed_demo``: the demo table, only into a database without users; with DEBUG off
as by default (pytest runs with DEBUG off)."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from bench.management.commands.seed_demo import MANA_NAME, PASSWORD, POOL_NAME
from campaigns.models import Campaign, Membership
from rolls.models import Check, LogEntry
from rolls.services import log_verify, open_session
from rolls.systems.mana.models import ManaPool, ManaSkill, palette_of, traits_of
from rolls.systems.pool.models import Rating
from sheets.models import Character
from sparetime.models import SparetimeEntry
from sparetime.services import free_sparetime

pytestmark = pytest.mark.django_db

MODELS = (
    get_user_model(),
    Campaign,
    Membership,
    ManaSkill,
    Character,
    Rating,
    ManaPool,
    SparetimeEntry,
    Check,
    LogEntry,
)


def seed():
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def counts():
    return {model.__name__: model.objects.count() for model in MODELS}


def test_creates_the_demo(settings):
    assert not settings.DEBUG
    output = seed()

    users = {u.username: u for u in get_user_model().objects.all()}
    assert set(users) == {"gm", "ana", "ben"}
    assert all(user.check_password(PASSWORD) for user in users.values())

    mana = Campaign.objects.get(name=MANA_NAME)
    pool = Campaign.objects.get(name=POOL_NAME)
    assert (mana.system, pool.system) == ("mana", "pool")
    for campaign in (mana, pool):
        roles = dict(campaign.memberships.values_list("user__username", "role"))
        assert roles == {"gm": Membership.GM, "ana": Membership.PLAYER, "ben": Membership.PLAYER}
        assert open_session(campaign).number == 1
        assert campaign.log.filter(kind=LogEntry.ROLL).count() >= 3
        assert campaign.log.first().kind == LogEntry.SESSION_START
        assert log_verify(campaign) is None
        owners = set(campaign.characters.values_list("owner__username", flat=True))
        assert owners == {"ana", "ben"}

    assert palette_of(mana) == ["white", "blue", "black", "red", "green"]
    gather = mana.mana_skills.get(name="Gather Information")
    assert {gather.color_a, gather.color_b} == {"blue", "white"}
    assert mana.mana_skills.get(name="Jump").trait == "Athletic"
    for character in mana.characters.all():
        assert traits_of(character)
        assert sum(character.mana.values_list("maximum", flat=True)) > 0
    assert mana.log.filter(visibility="private").exists()
    # Table talk: a message calling a player, a whisper to the GM, free rolls.
    for campaign in (mana, pool):
        assert campaign.log.filter(kind=LogEntry.MESSAGE).exists()
        assert campaign.log.filter(kind=LogEntry.FREE).exists()
    assert mana.log.get(visibility="whisper").recipient.username == "gm"
    assert mana.log.filter(kind=LogEntry.MESSAGE, data__mentions__isnull=False).exists()

    for character in pool.characters.all():
        assert character.ratings.filter(skill="", value__gt=0).exists()
        assert character.ratings.exclude(skill="").filter(value__gt=0).exists()
        assert free_sparetime(character) > 0
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.DELEGATE).exists()
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.HANDOUT).exists()
    assert pool.checks.filter(status=Check.SHIFT).exists()
    assert pool.checks.filter(status=Check.REQUESTED).exists()

    assert MANA_NAME in output and POOL_NAME in output
    # The passwords are printed when the demo is loaded.
    assert 'users gm, ana, ben (password "rollroom")' in output
    assert "/accounts/login/" in output and PASSWORD in output


def test_running_twice_creates_nothing_more():
    seed()
    before = counts()
    output = seed()
    assert counts() == before
    assert "already exist" in output
    assert f'the password "{PASSWORD}"' in output


@pytest.mark.parametrize("username", ["ana", "someone"])
def test_refuses_a_database_that_has_users(username):
    get_user_model().objects.create_user(username=username, password="their own")
    with pytest.raises(CommandError) as refused:
        seed()
    message = str(refused.value)
    assert "already has 1 user(s)" in message
    assert "Nothing was created" in message and "SQLITE_PATH=demo.sqlite3" in message
    assert counts() == {**dict.fromkeys(counts(), 0), "User": 1}
    assert get_user_model().objects.get().check_password("their own")
