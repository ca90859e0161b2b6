"""The benchmark's table, made through the ORM in the server's database: per room a Pool
campaign with a GM and its players, each player with a character (Agility 3, Dodge 2), logged-in
sessions, and one open check per measured roll (its note carries the roll's marker)."""

from dataclasses import dataclass, field
from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.db import transaction
from django.utils.crypto import get_random_string

from campaigns.models import Campaign, Membership
from rolls.services import check_ask
from rolls.systems.pool.services import rating_set
from sheets.services import character_create

from .client import MARKER

BACKEND = "django.contrib.auth.backends.ModelBackend"
ATTRIBUTE, ATTRIBUTE_VALUE = "Agility", 3
SKILL, SKILL_VALUE = "Dodge", 2
TARGET = 6


@dataclass
class Player:
    user_id: int
    session_key: str
    character_id: int
    attribute_id: int
    skill_id: int


@dataclass
class Room:
    campaign_id: int
    players: list = field(default_factory=list)


@dataclass
class Table:
    tag: str
    rooms: list
    #: The open check of each measured roll, by its index; then those of the warm-up rolls.
    checks: list
    warmup_checks: list
    user_ids: list
    session_keys: list

    def names(self, room, player):
        """(the campaign's name, the player's username) of ``player`` in ``room``."""
        return f"Bench {self.tag} {room}", f"bench-{self.tag}-{room}-{player}"


def session_for(user):
    """A logged-in session of ``user`` (what logging in stores), saved; returns its key."""
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = BACKEND
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def _player(campaign, user, name):
    Membership.objects.create(campaign=campaign, user=user, role=Membership.PLAYER)
    character = character_create(campaign=campaign, owner=user, name=name)
    ratings = {r.label: r for r in character.ratings.filter(skill__in=["", SKILL])}
    attribute = rating_set(rating=ratings[ATTRIBUTE], value=ATTRIBUTE_VALUE)
    skill = rating_set(rating=ratings[SKILL], value=SKILL_VALUE)
    return Player(user.pk, session_for(user), character.pk, attribute.pk, skill.pk), character


@transaction.atomic
def table_create(*, rooms, clients, sends, warmups):
    """``sends``: the (room, player) of each measured roll; ``warmups`` likewise, unmeasured."""
    tag = get_random_string(8).lower()
    users = get_user_model().objects
    table = Table(tag, [], [], [], [], [])
    characters, gms = [], []
    for r in range(rooms):
        campaign = Campaign.objects.create(name=table.names(r, 0)[0], system="pool")
        gm = users.create_user(username=f"bench-{tag}-{r}-gm")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.GM)
        room = Room(campaign.pk)
        row = []
        for p in range(clients):
            user = users.create_user(username=table.names(r, p)[1])
            player, character = _player(campaign, user, f"Runner {r}-{p}")
            room.players.append(player)
            row.append(character)
            table.user_ids.append(user.pk)
            table.session_keys.append(player.session_key)
        table.rooms.append(room)
        table.user_ids.append(gm.pk)
        characters.append(row)
        gms.append(gm)

    def ask(r, p, note):
        check = check_ask(
            campaign=characters[r][p].campaign,
            character=characters[r][p],
            by=gms[r],
            target=TARGET,
            suggestion=f"{ATTRIBUTE} + {SKILL}",
            note=note,
        )
        return check.pk

    table.checks = [ask(r, p, f"{MARKER}{i}") for i, (r, p) in enumerate(sends)]
    table.warmup_checks = [ask(r, p, "warm-up") for r, p in warmups]
    return table


def table_delete(table):
    """Remove what ``table_create`` made (for a database that outlives the benchmark)."""
    with transaction.atomic():
        Campaign.objects.filter(pk__in=[room.campaign_id for room in table.rooms]).delete()
        get_user_model().objects.filter(pk__in=table.user_ids).delete()
    sessions_delete(table.session_keys)


def sessions_delete(keys):
    """Remove the sessions of ``keys`` through the session engine: a cached session leaves its
    cache too (Redis outlives the run)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    for key in keys:
        store(key).delete()
