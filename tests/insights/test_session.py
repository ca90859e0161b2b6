"""A session's summary page (insights.reports.session_summary, insights.views.session_summary):
who rolled what, its luck, the luckiest and unluckiest moments, the sparetime awarded."""

from fractions import Fraction

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import GameSession
from insights import reports as insights
from rolls import services
from rolls.systems.pool import services as pool_services
from rules import luck
from sparetime.services import sparetime_award, sparetime_reverse
from tests.insights.insight_setup import add_rolls, build_known_log
from tests.rolls.room_setup import ask
from tests.rules.scripted_rng import ScriptedRng


def summary(table, number, viewer):
    table.campaign.viewer = table.campaign.memberships.get(user=viewer)
    session = GameSession.objects.get(campaign=table.campaign, number=number)
    return insights.session_summary(table.campaign, session, viewer.pk)


def test_a_player_sees_their_session_without_the_hidden_rolls(mana_table):
    build_known_log(mana_table)
    s = summary(mana_table, 1, mana_table.player)
    assert [e.seq for e in s.rolls] == [2, 3] and s.hidden == 2
    assert (s.tally.observed, s.tally.expected) == (1, Fraction(2, 5))
    assert s.tally.verdict == luck.WITHIN
    assert s.luckiest.seq == 2 and s.unluckiest.seq == 3


def test_the_gm_sees_every_roll(mana_table):
    build_known_log(mana_table)
    s = summary(mana_table, 1, mana_table.gm)
    assert [e.seq for e in s.rolls] == [2, 3, 4, 5] and s.hidden == 0
    assert s.luckiest.seq == 2  # 3/10, like Bo's, but earlier
    assert s.unluckiest.seq == 5  # the Warden failed at 3/10


def url(table, number):
    return reverse("session_summary", args=[table.campaign.id, number])


def test_the_page(mana_table, as_user, player):
    build_known_log(mana_table)
    response = as_user(player).get(url(mana_table, 1))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<b>1</b> success in 2 rolls, 0.40 ± 0.55 expected" in html
    assert "2 hidden rolls not counted." in html
    assert "Luckiest: <b>Mira</b> (ana) succeeded against 30.0%" in html
    assert "Unluckiest: <b>Mira</b> (ana) failed with 10.0%" in html
    assert ">Bo<" not in html and "The Warden" not in html
    assert "Sparetime awarded" not in html  # a Mana campaign has none


def test_the_luck_page_links_each_session(mana_table, as_user, player):
    build_known_log(mana_table)
    luck_page = reverse("campaign_luck", args=[mana_table.campaign.id])
    html = as_user(player).get(luck_page).content.decode()
    assert f'href="{url(mana_table, 1)}"' in html and f'href="{url(mana_table, 2)}"' in html


def test_pool_session_with_sparetime_awarded(pool_table, as_user, player, gm):
    services.session_start(campaign=pool_table.campaign, by=gm)
    check = ask(pool_table, pool_table.ilse, target=4)
    pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=pool_table.strength,
        rng=ScriptedRng(1, 2, 3),
        intent="<i>lift</i>",
    )
    session, _entry = services.session_end(campaign=pool_table.campaign, by=gm)
    sparetime_award(
        campaign=pool_table.campaign,
        characters=[pool_table.ilse, pool_table.tor],
        amount=3,
        by=gm,
        session=session,
    )
    html = as_user(player).get(url(pool_table, 1)).content.decode()
    assert "Ilse: 3" in html and "Tor: 3" in html
    assert "highest 3 vs TN 4: failure" in html
    assert 'Luckiest: <span class="muted">no success yet</span>' in html
    assert "&lt;i&gt;lift&lt;/i&gt;" in html and "<i>lift</i>" not in html


def test_a_reversed_award_leaves_the_session_s_summary(pool_table, as_user, player, gm):
    services.session_start(campaign=pool_table.campaign, by=gm)
    session, _entry = services.session_end(campaign=pool_table.campaign, by=gm)
    ilse, tor = sparetime_award(
        campaign=pool_table.campaign,
        characters=[pool_table.ilse, pool_table.tor],
        amount=3,
        by=gm,
        session=session,
    )
    sparetime_reverse(entry=tor, by=gm, note="given by mistake")
    html = as_user(player).get(url(pool_table, 1)).content.decode()
    assert "Ilse: 3" in html and "Tor:" not in html


def test_members_only_and_unknown_sessions(mana_table, as_user, outsider, player, gm):
    build_known_log(mana_table)
    assert as_user(None).get(url(mana_table, 1)).status_code == 302
    assert as_user(outsider).get(url(mana_table, 1)).status_code == 404
    assert as_user(gm).get(url(mana_table, 1)).status_code == 200
    assert as_user(player).get(url(mana_table, 3)).status_code == 404
    assert as_user(player).get(url(mana_table, 0)).status_code == 404
    assert as_user(player).get(url(mana_table, 2**63)).status_code == 404
    assert as_user(player).post(url(mana_table, 1)).status_code == 405


def test_a_fixed_number_of_queries_from_10_to_300_entries(mana_table, as_user, player):
    build_known_log(mana_table)  # session 2 is still running: the added rolls land in it
    client = as_user(player)
    counts = []
    for more in (1, 290):
        add_rolls(mana_table, more)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(mana_table, 2)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 6


def test_a_long_session_lists_its_rolls_a_page_at_a_time(mana_table, as_user, player, monkeypatch):
    """The tally, the hidden count and the moments are the whole session's; the list is the
    page's. build_known_log's session 2 holds Mira's private roll (#9, at 1/10, a success) and
    the rolls added here (#10 on, public, half at 1/2 succeed)."""
    build_known_log(mana_table)
    add_rolls(mana_table, 7)
    monkeypatch.setattr(insights, "SUMMARY_PAGE", 3)
    whole = summary(mana_table, 2, mana_table.player)
    assert [e.seq for e in whole.rolls] == [9, 10, 11] and (whole.page, whole.pages) == (1, 3)
    assert (whole.first, whole.last, whole.seen, whole.hidden) == (1, 3, 8, 0)
    session = GameSession.objects.get(campaign=mana_table.campaign, number=2)
    last = insights.session_summary(mana_table.campaign, session, mana_table.player.pk, page=3)
    assert [e.seq for e in last.rolls] == [15, 16] and (last.first, last.last) == (7, 8)
    assert (last.tally.observed, last.tally.rolls) == (whole.tally.observed, 8)
    assert last.luckiest.seq == whole.luckiest.seq == 9  # on page 1, shown on every page
    assert last.unluckiest.seq == whole.unluckiest.seq == 11
    beyond = insights.session_summary(mana_table.campaign, session, mana_table.player.pk, page=9)
    assert beyond.page == 3 and [e.seq for e in beyond.rolls] == [15, 16]
    # Ben does not see Mira's private roll: one hidden, seven listed, his moments without it.
    ben = insights.session_summary(mana_table.campaign, session, mana_table.other_player.pk)
    assert (ben.hidden, ben.seen, ben.pages) == (1, 7, 3)
    assert [e.seq for e in ben.rolls] == [10, 11, 12] and ben.luckiest.seq == 10


def test_the_pages_of_a_long_session(mana_table, as_user, player, monkeypatch):
    build_known_log(mana_table)
    add_rolls(mana_table, 7)
    monkeypatch.setattr(insights, "SUMMARY_PAGE", 3)
    client = as_user(player)
    html = client.get(url(mana_table, 2), {"page": "2"}).content.decode()
    assert "Rolls 4–6 of 8 · page 2 of 3" in html
    assert 'href="?page=1#rolls" rel="prev"' in html and 'href="?page=3#rolls" rel="next"' in html
    for bad in ("0", "-1", "x", "2.5", "9" * 30, "", "²", "٣"):
        page = client.get(url(mana_table, 2), {"page": bad})
        assert page.status_code == 200 and "page 1 of 3" in page.content.decode(), bad
    last = client.get(url(mana_table, 2), {"page": "99"}).content.decode()
    assert "Rolls 7–8 of 8 · page 3 of 3" in last and "Later rolls" not in last
    short = client.get(url(mana_table, 1)).content.decode()
    assert "page 1 of" not in short  # one page: no pages to tell
