"""The toy third system (tests/systems/coins/), registered through the setting ``ROLL_SYSTEMS``
by a fixture (conftest.py): what of a campaign's life goes through the system's interface with
no edit outside its package (its creation and settings, its GM panel, sheet, party and campaign
page, its calculator (none), luck page, session summary and log export through the real views
too: what a system adds to those it declares). The room, its views and sockets, is in
test_coins_room.py."""

import json
from importlib import import_module

import pytest
from django.conf import settings
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.systems import SYSTEMS, system_of
from rolls import services
from rolls.models import Check, LogEntry
from rolls.systems.mana.models import ManaCheck
from rolls.systems.pool.models import PoolCheck
from sheets.party import party_rows
from sheets.services import character_create
from sparetime.services import sparetime_grant
from tests.helpers import HTMX, raises_refused
from tests.systems import coins
from tests.systems.conftest import COINS


def registered_from_the_setting():
    """The keys of the systems the setting ``ROLL_SYSTEMS`` names, in its order."""
    return [import_module(path).SYSTEM.key for path in settings.ROLL_SYSTEMS]


def test_a_coin_campaign_plays_its_own_system(coin_campaign):
    assert system_of(coin_campaign) is coins.SYSTEM
    assert settings.ROLL_SYSTEMS[-1] == COINS
    assert list(SYSTEMS) == registered_from_the_setting()


def test_the_coin_is_registered_only_for_the_tests_that_ask_for_it():
    assert COINS not in settings.ROLL_SYSTEMS and "coin" not in SYSTEMS
    assert list(SYSTEMS) == registered_from_the_setting()


def test_a_coin_character_has_its_sheet_and_party_row(coin_campaign, player):
    hero = character_create(campaign=coin_campaign, owner=player, name="Flip")
    assert not hero.ratings.exists() and not hero.mana.exists()
    coin_campaign.viewer = coin_campaign.memberships.get(user=player)  # as campaign_for sets it
    assert [row["character"] for row in party_rows(coin_campaign)] == [hero]


def test_a_coin_check_is_asked_flipped_logged_and_verified(coin_campaign, gm, player):
    hero = character_create(campaign=coin_campaign, owner=player, name="Flip")
    check = services.check_ask(
        campaign=coin_campaign, character=hero, by=gm, target=2, suggestion="the bridge"
    )
    # What it binds is the system's own row: the coins keep none, nor Pool's nor Mana's.
    assert check.suggestion == "the bridge"
    assert not PoolCheck.objects.filter(pk=check.pk).exists()
    assert not ManaCheck.objects.filter(pk=check.pk).exists()
    entry = coins.SYSTEM.roll(check, by=player, data={"coins": 3})
    check.refresh_from_db()
    assert check.status == Check.DONE
    assert entry.kind == LogEntry.ROLL and entry.seq == 1
    assert entry.data["heads"] == sum(entry.data["faces"]) and len(entry.data["faces"]) == 3
    assert entry.data["chance"] == "1/2"
    assert services.log_verify(coin_campaign) is None


def test_a_coin_flip_refuses_a_bad_number_of_coins(coin_campaign, gm, player):
    hero = character_create(campaign=coin_campaign, owner=player, name="Flip")
    check = services.check_ask(campaign=coin_campaign, character=hero, by=gm, target=1)
    with raises_refused(match="Flip from 1 to 20 coins"):
        coins.SYSTEM.roll(check, by=player, data={"coins": 0})
    assert not LogEntry.objects.exists()


def test_the_gm_flips_for_an_npc_in_one_step(coin_campaign, gm):
    npc = character_create(campaign=coin_campaign, owner=gm, name="Toll keeper")
    check, entry = services.check_roll_npc(
        campaign=coin_campaign, character=npc, by=gm, target=1, data={"coins": 2}
    )
    assert entry.check_ref_id == check.pk and entry.data["coins"] == 2


def test_sparetime_is_refused_to_a_coin_campaign(coin_campaign, gm, player):
    hero = character_create(campaign=coin_campaign, owner=player, name="Flip")
    with raises_refused(match="this campaign plays Coins"):
        sparetime_grant(character=hero, amount=3, by=gm)


def test_a_coin_campaign_is_created_through_the_create_view(coin_system, as_user, outsider):
    page = as_user(outsider).get(reverse("campaign_create")).content.decode()
    assert 'name="system" value="coin"' in page
    assert 'data-system="coin"' not in page  # no settings of its own: no fieldset
    response = as_user(outsider).post(
        reverse("campaign_create"), {"name": "Heads or tails", "system": "coin"}
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign_detail", args=[campaign.id])
    assert (campaign.name, campaign.system) == ("Heads or tails", "coin")
    assert campaign.memberships.get().user == outsider


def test_a_coin_campaign_is_renamed_in_the_gm_panel(coin_campaign, as_user, gm):
    url = reverse("campaign_settings", args=[coin_campaign.id])
    response = as_user(gm).post(url, {"name": "Tails or heads"})
    assert response.status_code == 302
    coin_campaign.refresh_from_db()
    assert coin_campaign.name == "Tails or heads"


def test_a_coin_campaign_s_gm_panel_has_only_the_shared_sections(coin_campaign, as_user, gm):
    response = as_user(gm).get(reverse("gm_panel", args=[coin_campaign.id]))
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="gm-members"' in page and 'id="gm-settings"' in page
    others = ("skills", "approvals", "mana", "sparetime")  # Mana's and Pool's
    assert not any(f'id="gm-{name}"' in page for name in others)


def test_a_coin_character_s_sheet_shows_its_header_alone(coin_campaign, as_user, gm, player):
    hero = character_create(campaign=coin_campaign, owner=player, name="Flip")
    url = reverse("character_detail", args=[coin_campaign.id, hero.id])
    for user in (gm, player):
        response = as_user(user).get(url)
        page = response.content.decode()
        assert response.status_code == 200
        assert "Flip" in page and 'id="sheet-pool"' not in page and 'id="sheet-mana"' not in page
    header = as_user(player).get(url, {"section": "header"}, HTTP_HX_REQUEST="true")
    assert header.status_code == 200 and 'id="sheet-header"' in header.content.decode()


def test_a_coin_campaign_s_page_and_party_show_names_alone(coin_campaign, as_user, gm, player):
    character_create(campaign=coin_campaign, owner=player, name="Flip")
    for user in (gm, player):
        for name in ("campaign_detail", "party"):
            response = as_user(user).get(reverse(name, args=[coin_campaign.id]))
            page = response.content.decode()
            assert response.status_code == 200
            assert "Flip" in page and "party-hp" not in page and "party-mana" not in page
            assert 'id="delegation"' not in page


@pytest.mark.django_db
def test_the_rules_page_offers_no_coin_calculator(coin_system, client):
    html = client.get(reverse("rules")).content.decode()
    assert 'name="system" value="mana"' in html and 'name="system" value="pool"' in html
    assert 'value="coin"' not in html
    answer = client.get(reverse("odds_calculator"), {"system": "coin"}, **HTMX).content.decode()
    assert "Choose the Mana or the Pool calculator." in answer


@pytest.fixture
def coin_flips(coin_campaign, gm, player):
    """Session 1 of the coin campaign: Flip's two flips of 3 coins against 2 heads needed."""
    hero = character_create(campaign=coin_campaign, owner=player, name="Flip")
    services.session_start(campaign=coin_campaign, by=gm)
    entries = []
    for _ in range(2):
        check = services.check_ask(campaign=coin_campaign, character=hero, by=gm, target=2)
        entries.append(coins.SYSTEM.roll(check, by=player, data={"coins": 3}))
    return entries


def test_the_luck_page_of_a_coin_campaign(coin_campaign, coin_flips, as_user, player):
    url = reverse("campaign_luck", args=[coin_campaign.id])
    html = as_user(player).get(url).content.decode()
    heads = sum(entry.data["success"] for entry in coin_flips)
    successes = "success" if heads == 1 else "successes"
    assert f"<b>{heads}</b> {successes} in 2 rolls,\n1.00 ± 0.71 expected" in html
    assert "Heads per number of coins" in html
    assert "<caption>3 coins, 2 rolls</caption>" in html


def test_the_session_summary_of_a_coin_campaign(coin_campaign, coin_flips, as_user, player):
    url = reverse("session_summary", args=[coin_campaign.id, 1])
    html = as_user(player).get(url).content.decode()
    assert html.count("<td>3 coins</td>") == 2
    for entry in coin_flips:
        assert f"{entry.data['heads']} heads vs 2: " in html
    assert "Sparetime awarded" not in html  # a coin campaign has none


def test_the_log_of_a_coin_campaign_to_take_home(coin_campaign, coin_flips, as_user, player):
    url = reverse("log_json", args=[coin_campaign.id])
    log = json.loads(as_user(player).get(url).getvalue())
    assert log["system"] == "coin"
    rolls = [row for row in log["entries"] if row["kind"] == LogEntry.ROLL]
    assert [(row["system"], row["dice"]) for row in rolls] == [("coin", "3 coins")] * 2
    assert [row["result"] for row in rolls] == [f"{e.data['heads']} heads" for e in coin_flips]
    csv = as_user(player).get(reverse("log_csv", args=[coin_campaign.id])).getvalue().decode()
    assert csv.count(",coin,") == 2 and "3 coins" in csv


def test_the_tuning_page_of_a_coin_campaign(coin_campaign, coin_flips, as_user, gm, player):
    url = reverse("tuning", args=[coin_campaign.id])
    html = as_user(gm).get(url).content.decode()
    assert "For every heads needed you asked for" in html
    assert '<tr><th scope="row">2</th><td>2</td>' in html
    assert as_user(player).get(url).status_code == 403
