"""Helpers for the rolls tests (their fixtures are in conftest.py and tests/conftest.py): tables
with characters ready to roll, a Mana roll with scripted dice, their URLs, an entry in a page,
the odds fragment, a push recorder and a snapshot of everything a refused POST must leave alone
(the socket tests' helpers are in sockets.py)."""

from types import SimpleNamespace

from django.test import Client
from django.urls import reverse

from core import push as core_push
from rolls import services
from rolls.models import LogEntry
from rolls.services import GENESIS
from rolls.systems.mana import services as mana_services
from rolls.systems.mana.models import ManaPool, ManaSkill
from rolls.systems.pool.models import Rating
from sheets.services import character_create
from tests.helpers import HTMX, db_snapshot
from tests.rules.scripted_rng import ScriptedRng

#: The dice every roll draws (script_dice draws from it with a script of its own).
ROLL_DICE = services.roll_dice


def script_dice(monkeypatch, *faces):
    """Make the next roll made through the views show ``faces`` (instead of the campaign's fair
    dice, ``rolls.services.roll_dice``: such a roll keeps no record of them)."""

    def scripted(campaign, **kwargs):
        return ROLL_DICE(campaign, **{**kwargs, "rng": ScriptedRng(*faces)})

    monkeypatch.setattr(services, "roll_dice", scripted)


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


def build_mana_table(campaign, gm, player, other_player):
    table = SimpleNamespace(campaign=campaign, gm=gm, player=player, other_player=other_player)
    table.gather = ManaSkill.objects.create(
        campaign=campaign, name="Gather Information", color_a="blue", color_b="white"
    )
    table.jump = ManaSkill.objects.create(
        campaign=campaign, name="Jump", color_a="red", color_b="green", trait="Athletic"
    )
    table.mira = character_create(campaign=campaign, owner=player, name="Mira")
    fill(table.mira, blue=3, white=2, red=1, colorless=4)
    table.bo = character_create(campaign=campaign, owner=other_player, name="Bo")
    fill(table.bo, blue=5, white=5)
    table.npc = character_create(campaign=campaign, owner=gm, name="The Warden")
    fill(table.npc, blue=2, white=2)
    return table


def build_pool_table(campaign, gm, player, other_player):
    table = SimpleNamespace(campaign=campaign, gm=gm, player=player, other_player=other_player)
    table.ilse = character_create(campaign=campaign, owner=player, name="Ilse")
    table.strength = rate(table.ilse, "Strength", value=3)
    table.jump = rate(table.ilse, "Strength", "Jump", value=2)
    table.agility = rate(table.ilse, "Agility", value=1)
    table.parkour = rate(table.ilse, "Agility", "Parkour", value=4, status=Rating.PENDING)
    table.tor = character_create(campaign=campaign, owner=other_player, name="Tor")
    table.tor_strength = rate(table.tor, "Strength", value=2)
    table.npc = character_create(campaign=campaign, owner=gm, name="The Ogre")
    rate(table.npc, "Strength", value=4)
    return table


def ask(table, character, target=3, **kwargs):
    """A check asked by the GM (services, no view)."""
    return services.check_ask(
        campaign=table.campaign, character=character, by=table.gm, target=target, **kwargs
    )


def roll_mana(check, by, skill, faces, *, spend_a=1, spend_b=1, colorless=0, **kwargs):
    """Roll ``check`` through the service (no view) spending 1 + 1 mana of ``skill``'s colors
    unless told otherwise; the dice show ``faces`` (none: a roll that reaches the dice fails)."""
    return mana_services.check_roll_mana(
        check=check,
        by=by,
        skill=skill,
        spend_a=spend_a,
        spend_b=spend_b,
        colorless=colorless,
        rng=ScriptedRng(*faces),
        **kwargs,
    )


def url(name, table, *args):
    return reverse(name, args=[table.campaign.id, *args])


def roll_url(table, check):
    """Where ``check`` is rolled."""
    return url("check_roll", table, check.id)


def entry_html(html, seq):
    """The log entry ``seq`` in the page or push ``html``: its article, up to its end."""
    start = html.index(f'id="entry-{seq}"')
    return html[start : html.index("</article>", start)]


def odds(client, table, check, **params):
    """The odds of ``check`` with the roll form's ``params`` (htmx): the fragment's HTML."""
    response = client.get(url("check_odds", table, check.id), params, **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def mana_params(table, with_skill=None, **overrides):
    """The Mana roll form's fields for the odds: ``with_skill`` (default Gather Information)
    with its colors and nothing spent unless ``overrides`` say."""
    skill = with_skill or table.gather
    params = {"skill": skill.id, "color_a": skill.color_a, "color_b": skill.color_b}
    return {**params, "spend_a": 0, "spend_b": 0, "colorless": 0, **overrides}


class PushRecorder:
    """Stands in for ``core.push.send``: keeps every (campaign id, message) sent, in order."""

    def __init__(self):
        self.sent = []

    def __call__(self, campaign_id, *messages):
        self.sent.extend((campaign_id, message) for message in messages)

    def entries(self):
        return [m for _c, m in self.sent if "seq" in m]

    def checks(self):
        return [m for _c, m in self.sent if "seq" not in m and not m.get("facts")]

    def facts(self):
        """The facts pushes (``core.push.facts_message``)."""
        return [m for _c, m in self.sent if m.get("facts")]


def record_pushes(monkeypatch):
    """Replace ``core.push.send`` (through which every push goes) by a recorder."""
    recorder = PushRecorder()
    monkeypatch.setattr(core_push, "send", recorder)
    return recorder


def refused(client, path, data, campaign, pushes, capture):
    """POST ``data`` with htmx (``capture``: pytest-django's
    ``django_capture_on_commit_callbacks``), check the refusal changed and pushed nothing and
    return its HTML."""
    before = db_snapshot()
    with capture(execute=True) as callbacks:
        response = client.post(path, data, **HTMX)
    assert response.status_code == 422, response.content.decode()
    assert db_snapshot() == before
    assert callbacks == [] and pushes.sent == []
    return response.content.decode()


def assert_whole(pool_table, count):
    """The table's log: ``count`` entries, those but whispers numbered 1, 2, ... and each
    whisper the next sub of the number before it (#2.1, #2.2), each entry chained to the one
    before, and ``log_verify`` finds it whole; its entries."""
    entries = list(LogEntry.objects.filter(campaign=pool_table.campaign))
    assert len(entries) == count
    numbered = [e.seq for e in entries if not e.sub]
    assert numbered == list(range(1, len(numbered) + 1))
    prev, last = GENESIS, (0, 0)
    for entry in entries:
        assert entry.prev_hash == prev, f"#{entry.number} does not chain"
        assert entry.place in ((last[0] + 1, 0), (last[0], last[1] + 1)), entry.number
        assert entry.sub == 0 or entry.visibility == "whisper", entry.number
        prev, last = entry.hash, entry.place
    assert services.log_verify(pool_table.campaign) is None
    return entries


def roll_request(pool_table, client, check):
    """A player's Pool roll, as the room posts it."""

    def post():
        data = {"attribute": pool_table.strength.id, "skill": pool_table.jump.id}
        response = client.post(url("check_roll", pool_table, check.id), data, **HTMX)
        assert response.status_code == 204, response.content.decode()

    return post


def roll_requests(pool_table, user, count):
    """``count`` Pool rolls of ``user``'s, each by a client of its own on a check of its own, to
    send at once (``tests.helpers.in_threads``)."""
    requests = []
    for _ in range(count):
        client = Client()
        client.force_login(user)
        requests.append(roll_request(pool_table, client, ask(pool_table, pool_table.ilse)))
    return requests
