"""Tables for the room's view tests (tests/rolls/test_views_*.py): characters ready to roll, a
push recorder, a scripted dice source and a snapshot of everything a refused POST must leave
alone."""

from types import SimpleNamespace

from django.urls import reverse

from campaigns.models import ManaSkill
from rolls import push, services
from rolls.models import Check, LogEntry
from sheets.models import ManaPool, Rating
from sheets.services import character_create


class ScriptedRng:
    """An rng whose ``randint`` returns the queued faces in order."""

    def __init__(self, *faces):
        self.faces = list(faces)

    def randint(self, a, b):
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


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
    """Stands in for ``rolls.push.send``: keeps every (campaign id, message) sent."""

    def __init__(self):
        self.sent = []

    def __call__(self, campaign_id, message):
        self.sent.append((campaign_id, message))

    def entries(self):
        return [m for _c, m in self.sent if "seq" in m]

    def checks(self):
        return [m for _c, m in self.sent if "seq" not in m]


def record_pushes(monkeypatch):
    """Replace ``rolls.push.send`` (through which every push goes) by a recorder."""
    recorder = PushRecorder()
    monkeypatch.setattr(push, "send", recorder)
    return recorder


HTMX = {"HTTP_HX_REQUEST": "true"}
