"""User-typed text isolated wherever it is shown (core/text.py, core/templatetags/text.py, issue
#43): the function and the filters, then every page, pushed fragment, refusal and notice of a
table whose every name, message, intent, note, concept, skill and color carries a right-to-left
override (U+202E), scanned for an override outside its isolation."""

from html.parser import HTMLParser

import pytest
from django.template import Context, Template
from django.urls import reverse

from core import text
from rolls import services as rolls
from rolls.systems.mana.models import ManaSkill
from rolls.systems.pool import services as pool_services
from sheets.models import Character
from sheets.services import character_create
from sparetime.services import sparetime_delegate, sparetime_grant
from tests.conftest import make_campaign, make_user
from tests.rolls.room_setup import build_pool_table, fill, rate
from tests.rules.scripted_rng import ScriptedRng

RLO, FSI, PDI = "\u202e", "\u2068", "\u2069"
HTMX = {"HTTP_HX_REQUEST": "true"}


def test_bdi_escapes_and_isolates():
    shown = Template("{{ v|bdi }} 00:25").render(Context({"v": f"<b>{RLO}hi</b>"}))
    assert shown == f"<bdi>&lt;b&gt;{RLO}hi&lt;/b&gt;</bdi> 00:25"


def test_a_typed_isolate_mark_cannot_close_the_isolation_early():
    # The browser draws <bdi> with these marks: a PDI inside would end it, and the override after
    # it would run on past the element.
    shown = Template("{{ v|bdi }}|{{ v|isolate }}").render(Context({"v": f"a{PDI}{RLO}b\u2067"}))
    assert shown == f"<bdi>a{RLO}b</bdi>|{FSI}a{RLO}b{PDI}"


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("Ilse <b>", "Ilse &lt;b&gt;"),  # left to right only: drawn the same isolated or not
        ("שלום", "<bdi>שלום</bdi>"),  # right-to-left letters turn the digits after them
        ("12", "<bdi>12</bdi>"),  # no letter: the neighbours would give it their direction
        ("", ""),
    ],
)
def test_only_text_that_can_turn_its_surroundings_carries_the_isolation(typed, shown):
    assert Template("{{ v|bdi }}").render(Context({"v": typed})) == shown
    titled = Template("{{ v|isolate }}").render(Context({"v": typed}))
    assert titled == (f"{FSI}{typed}{PDI}" if "bdi" in shown else shown)


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("Ilse", "Ilse"),  # left to right only: bare
        ("", ""),
        ("שלום", f"{FSI}שלום{PDI}"),
        ("12", f"{FSI}12{PDI}"),
        (f"{RLO}Ilse", f"{FSI}{RLO}Ilse{PDI}"),
        (f"a{PDI}{RLO}b\u2067", f"{FSI}a{RLO}b{PDI}"),  # its own isolate marks dropped
    ],
)
def test_isolated_wraps_only_text_that_can_turn_its_surroundings(typed, said):
    assert text.isolated(typed) == said
    assert text.needs_isolation(typed) == (said != typed)


def test_a_member_is_named_isolated_and_a_former_one_so(db):
    shown = Template("{{ u|member }}: hi")
    evil = make_user(f"{RLO}eve")
    assert shown.render(Context({"u": evil})) == f"<bdi>{RLO}eve</bdi>: hi"
    former = '<span class="former">a former member</span>: hi'
    assert shown.render(Context({"u": None})) == former
    assert shown.render(Context({})) == former  # a row the template could not read
    assert text.member_name(evil) == f"{FSI}{RLO}eve{PDI}"
    assert text.member_name(None) == "a former member"


def test_isolated_says_any_object_as_its_text():
    # A sentence quotes a character or a user by its str().
    assert text.isolated(Character(name=f"{RLO}Mira")) == f"{FSI}{RLO}Mira{PDI}"
    assert text.isolated(7) == f"{FSI}7{PDI}"


class Unisolated(HTMLParser):
    """Each U+202E of a page outside its isolation: in text, outside every <bdi> and every
    FSI … PDI (an <option>'s or a <textarea>'s text is drawn on its own); in the <title> and in
    the attributes that become text (data-title, the tab's title; data-confirm, a question;
    title and aria-label, a tooltip and what a screen reader says), outside FSI … PDI."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    OWN = {"option", "textarea", "script", "style"}
    TEXT_ATTRIBUTES = {"data-title", "data-confirm", "data-confirm-live", "title", "aria-label"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open, self.found = [], []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in self.TEXT_ATTRIBUTES and not isolated(value or ""):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data):
        if RLO not in data or self.OWN & set(self.open):
            return
        ok = isolated(data) or ("bdi" in self.open and "title" not in self.open)
        if not ok:
            self.found.append(f"{'/'.join(self.open[-3:])}: {data.strip()!r}")


def isolated(text):
    """Every U+202E of ``text`` between an FSI and its PDI."""
    depth = 0
    for char in text:
        depth += char == FSI
        depth -= char == PDI and depth > 0
        if char == RLO and not depth:
            return False
    return True


def unisolated(html):
    parser = Unisolated()
    parser.feed(html)
    return parser.found


def evil(text):
    return f"{RLO}{text}"


@pytest.fixture
def evil_table(gm, player, other_player):
    """A Pool table (and a Mana campaign) whose every user-typed string turns right to left."""
    for user in (gm, player, other_player):
        user.username = evil(user.username)
        user.save()
    campaign = make_campaign(gm, name=evil("Marches"), players=[player, other_player])
    table = build_pool_table(campaign, gm, player, other_player)
    Character.objects.filter(campaign=campaign).update(concept=evil("concept"))
    for character in Character.objects.filter(campaign=campaign):
        character.name = evil(character.name)
        character.save()
    table.ilse.refresh_from_db()
    custom = rate(table.ilse, "Strength", evil("Climb"), value=1)
    table.climb = custom
    table.wished = rate(table.ilse, "Agility", evil("Wished"), status="pending")
    sparetime_grant(character=table.ilse, amount=9, by=gm, note=evil("grant note"))
    sparetime_delegate(campaign=campaign, player=other_player, amount=3, by=gm, note=evil("d"))
    rolls.session_start(campaign=campaign, by=gm)
    check = rolls.check_ask(
        campaign=campaign, character=table.ilse, by=gm, target=6, note=evil("check note")
    )
    pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=table.strength,
        skill=custom,
        intent=evil("Leap"),
        rng=ScriptedRng(4, 6, 3, 1, 2, 10, 5, 7),
    )
    rolls.check_ask(campaign=campaign, character=table.ilse, by=gm, target=7, note=evil("open"))
    rolls.message_send(campaign=campaign, by=player, text=evil("hello"))
    rolls.message_send(campaign=campaign, by=player, text=evil("psst"), to=gm)
    rolls.session_end(campaign=campaign, by=gm)
    rolls.check_ask(campaign=campaign, character=table.ilse, by=gm, target=5)

    mana = make_campaign(gm, system="mana", name=evil("Harbor"), players=[player])
    ManaSkill.objects.create(
        campaign=mana, name=evil("Gather"), color_a="blue", color_b="white", trait=evil("Keen")
    )
    mira = character_create(campaign=mana, owner=player, name=evil("Mira"))
    fill(mira, blue=3, white=2)
    table.mana, table.mira = mana, mira
    return table


def pages(table):
    pool, ilse = table.campaign.id, table.ilse.id
    mana = table.mana.id
    common = [
        reverse("home"),
        reverse("campaign_detail", args=[pool]),
        reverse("room", args=[pool]),
        reverse("room_checks", args=[pool]),
        reverse("party", args=[pool]),
        reverse("character_detail", args=[pool, ilse]),
        reverse("character_sparetime", args=[pool, ilse]),
        reverse("sparetime_raise", args=[pool, ilse]) + f"?rating={table.climb.id}",
        reverse("campaign_luck", args=[pool]),
        reverse("session_summary", args=[pool, 1]),
        reverse("dice", args=[pool]),
        reverse("room", args=[mana]),
        reverse("character_detail", args=[mana, table.mira.id]),
    ]
    gm_only = [
        reverse("gm_panel", args=[pool]),
        reverse("gm_sparetime", args=[pool]),
        reverse("gm_approvals", args=[pool]),
        reverse("tuning", args=[pool]),
        reverse("verify_log", args=[pool]),
        reverse("gm_panel", args=[mana]),
        reverse("gm_mana", args=[mana]),
    ]
    return {table.gm: common + gm_only, table.player: common}


def test_every_page_isolates_what_users_typed(evil_table, client):
    found = {}
    for user, paths in pages(evil_table).items():
        client.force_login(user)
        for path in paths:
            response = client.get(path, **(HTMX if "sparetime" in path else {}))
            assert response.status_code == 200, (path, response.status_code)
            where = unisolated(response.content.decode())
            if where:
                found[(user.pk, path)] = where
    assert found == {}


def pushed_html(message):
    """Every variant of a push's HTML: for all, the GM, each user."""
    yield from (message[key] for key in ("all", "gm") if message.get(key))
    yield from (message.get("users") or {}).values()


def test_every_push_isolates_what_users_typed(
    evil_table, client, pushes, django_capture_on_commit_callbacks
):
    t = evil_table
    with django_capture_on_commit_callbacks(execute=True):
        client.force_login(t.player)
        talk = reverse("talk_say", args=[t.campaign.id])
        client.post(talk, {"text": evil("hi @gm")}, **HTMX)
        client.post(talk, {"text": "/w gm " + evil("x")}, **HTMX)
        client.force_login(t.gm)
        data = {"character": t.ilse.id, "target": 6, "note": evil("asked"), "visibility": "public"}
        client.post(reverse("check_ask", args=[t.campaign.id]), data, **HTMX)
    html = [each for _campaign, message in pushes.sent for each in pushed_html(message)]
    assert sum(RLO in each for each in html) >= 3
    assert [unisolated(each) for each in html if unisolated(each)] == []


def test_every_refusal_and_notice_isolates_the_names_it_quotes(evil_table, client):
    """Sentences built in Python (core.text.isolated): a name in one turns only itself."""
    t = evil_table
    pool = t.campaign.id
    add = reverse("member_add", args=[pool])
    ask = reverse("check_ask", args=[pool])
    make_user(evil("zed"))
    client.force_login(t.gm)
    said = {
        "joined": client.post(add, {"username": evil("zed")}, **HTMX),
        "a member": client.post(add, {"username": t.player.username}, **HTMX),
        "no such user": client.post(add, {"username": evil("nobody")}, **HTMX),
        "no dice": client.post(
            ask,
            {
                "character": [t.ilse.id, t.tor.id],
                "suggestion": "Agility",
                "target": 5,
                "visibility": "public",
            },
            **HTMX,
        ),
    }
    client.force_login(t.player)
    spend = reverse("sparetime_spend", args=[pool, t.ilse.id])
    said["pending"] = client.post(spend, {"rating": t.wished.id}, **HTMX)
    said["raised"] = client.post(spend, {"rating": t.climb.id}, **HTMX)
    talk = reverse("talk_say", args=[pool])
    said["no command"] = client.post(talk, {"text": "/שלום x"}, **HTMX)
    shown = {what: response.content.decode() for what, response in said.items()}
    assert {what: unisolated(html) for what, html in shown.items() if unisolated(html)} == {}
    for what, quoted in [
        ("joined", "joined"),
        ("a member", "is already a member of"),
        ("no such user", "There is no user called"),
        ("no dice", "has no dice for Agility"),
        ("pending", "is still waiting for the GM"),
        ("raised", "raised to 2"),
        ("no command", f"There is no /{FSI}שלום{PDI} here"),
    ]:
        assert quoted in shown[what], (what, shown[what])
