"""Helpers for the rolls tests (their fixtures are in conftest.py): tables with characters ready
to roll, a Mana roll with scripted dice, a push recorder and a snapshot of everything a refused
POST must leave alone."""

from types import SimpleNamespace

from django.urls import reverse

from campaigns.models import ManaSkill
from rolls import push, services
from rolls.models import Check, LogEntry
from sheets.models import ManaPool, Rating
from sheets.services import character_create
from tests.rolls.scripted_rng import ScriptedRng

HTMX = {"HTTP_HX_REQUEST": "true"}


def script_dice(monkeypatch, *faces):
    """Make the next roll made through the views show ``faces``."""
    monkeypatch.setattr(services, "_rng", lambda: ScriptedRng(*faces))


def fill(character, **amounts):
    """Mana: current = maximum = amount for each color given."""
    for color, amount in amounts.items():
        ManaPool.objects.filter(character=character, color=color).update(
            current=amount, maximum=amount
        )


def rate(character, attribute, skill="", value=0, status=Rating.APPROVED):
    rating, _ = Rating.objects.update_or_create(
        character=character,
        attribute=attribute,
        skill=skill,
        defaults={"value": value, "status": status},
    )
    return rating


def mana_table(campaign, gm, player, other_player):
    t = SimpleNamespace(campaign=campaign, gm=gm, player=player, other_player=other_player)
    t.gather = ManaSkill.objects.create(
        campaign=campaign, name="Gather Information", color_a="blue", color_b="white"
    )
    t.jump = ManaSkill.objects.create(
        campaign=campaign, name="Jump", color_a="red", color_b="green", trait="Athletic"
    )
    t.mira = character_create(campaign=campaign, owner=player, name="Mira")
    fill(t.mira, blue=3, white=2, red=1, colorless=4)
    t.bo = character_create(campaign=campaign, owner=other_player, name="Bo")
    fill(t.bo, blue=5, white=5)
    t.npc = character_create(campaign=campaign, owner=gm, name="The Warden")
    fill(t.npc, blue=2, white=2)
    return t


def pool_table(campaign, gm, player, other_player):
    t = SimpleNamespace(campaign=campaign, gm=gm, player=player, other_player=other_player)
    t.ilse = character_create(campaign=campaign, owner=player, name="Ilse")
    t.strength = rate(t.ilse, "Strength", value=3)
    t.jump = rate(t.ilse, "Strength", "Jump", value=2)
    t.agility = rate(t.ilse, "Agility", value=1)
    t.parkour = rate(t.ilse, "Agility", "Parkour", value=4, status=Rating.PENDING)
    t.tor = character_create(campaign=campaign, owner=other_player, name="Tor")
    t.tor_strength = rate(t.tor, "Strength", value=2)
    t.npc = character_create(campaign=campaign, owner=gm, name="The Ogre")
    rate(t.npc, "Strength", value=4)
    return t


def ask(t, character, target=3, **kwargs):
    """A check asked by the GM (services, no view)."""
    return services.check_ask(
        campaign=t.campaign, character=character, by=t.gm, target=target, **kwargs
    )


def roll_mana(check, by, skill, faces, *, spend_a=1, spend_b=1, colorless=0, **kwargs):
    """Roll ``check`` through the service (no view) spending 1 + 1 mana of ``skill``'s colors
    unless told otherwise; the dice show ``faces`` (none: a roll that reaches the dice fails)."""
    return services.check_roll_mana(
        check=check,
        by=by,
        skill=skill,
        spend_a=spend_a,
        spend_b=spend_b,
        colorless=colorless,
        rng=ScriptedRng(*faces),
        **kwargs,
    )


def url(name, t, *args):
    return reverse(name, args=[t.campaign.id, *args])


def snapshot(campaign):
    """Everything a refused POST must leave as it was."""
    return {
        "log": list(LogEntry.objects.filter(campaign=campaign).values_list("seq", "hash")),
        "checks": list(
            Check.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list(
                "pk", "status", "target", "intent", "shift_d6", "shift_d10", "bonus_effect"
            )
        ),
        "mana": list(
            ManaPool.objects.filter(character__campaign=campaign)
            .order_by("pk")
            .values_list("pk", "current", "maximum")
        ),
        "ratings": list(
            Rating.objects.filter(character__campaign=campaign)
            .order_by("pk")
            .values_list("pk", "value", "status")
        ),
        "sessions": list(campaign.game_sessions.values_list("number", "ended_at")),
        "sparetime": list(campaign.sparetime.values_list("pk", flat=True)),
    }


class PushRecorder:
    """Stands in for ``rolls.push.send``: keeps every (campaign id, message) sent, in order."""

    def __init__(self):
        self.sent = []

    def __call__(self, campaign_id, *messages):
        self.sent.extend((campaign_id, message) for message in messages)

    def entries(self):
        return [m for _c, m in self.sent if "seq" in m]

    def checks(self):
        return [m for _c, m in self.sent if "seq" not in m]


def record_pushes(monkeypatch):
    """Replace ``rolls.push.send`` (through which every push goes) by a recorder."""
    recorder = PushRecorder()
    monkeypatch.setattr(push, "send", recorder)
    return recorder


def refused(client, path, data, campaign, pushes, capture):
    """POST ``data`` with htmx (``capture``: pytest-django's
    ``django_capture_on_commit_callbacks``), check the refusal changed and pushed nothing and
    return its HTML."""
    before = snapshot(campaign)
    with capture(execute=True) as callbacks:
        response = client.post(path, data, **HTMX)
    assert response.status_code == 422, response.content.decode()
    assert snapshot(campaign) == before
    assert callbacks == [] and pushes.sent == []
    return response.content.decode()
