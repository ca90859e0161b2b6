"""The GM's approvals fragment (rolls/systems/pool/views.py): pending custom skills of every
character, approve or decline."""

import pytest
from django.urls import reverse

from rolls.systems.pool.models import Rating, rating_of
from rolls.systems.pool.services import skill_decide, skill_propose
from tests.helpers import HTMX, unchanged


def approvals_url(campaign):
    return reverse("gm_approvals", args=[campaign.id])


def decide_url(name, rating, campaign=None):
    return reverse(name, args=[(campaign or rating.character.campaign).id, rating.id])


@pytest.fixture
def juggling(ana_hero):
    return skill_propose(character=ana_hero, attribute="Trick", name="Juggling")


@pytest.fixture
def shouting(ben_hero):
    return skill_propose(character=ben_hero, attribute="Social", name="Shouting")


def test_gm_sees_pending_skills_of_every_character(as_user, gm, pool_campaign, juggling, shouting):
    skill_decide(rating=shouting, approve=True)
    skill_propose(character=shouting.character, attribute="Trick", name="Whistling")
    response = as_user(gm).get(approvals_url(pool_campaign), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="gm-approvals"')
    assert "Ada" in html and "Juggling" in html and "Bram" in html and "Whistling" in html
    assert "Shouting" not in html
    assert decide_url("skill_approve", juggling) in html
    assert decide_url("skill_decline", juggling) in html


def test_nothing_pending(as_user, gm, pool_campaign, ana_hero):
    assert b"No custom skills are waiting." in as_user(gm).get(approvals_url(pool_campaign)).content


def test_approvals_query_count_is_bounded(
    as_user, gm, pool_campaign, ana_hero, ben_hero, django_assert_max_num_queries
):
    for i in range(5):
        skill_propose(character=ana_hero, attribute="Trick", name=f"Trick {i}")
        skill_propose(character=ben_hero, attribute="Trick", name=f"Trick {i}")
    client = as_user(gm)
    with django_assert_max_num_queries(4):
        assert client.get(approvals_url(pool_campaign)).status_code == 200


def test_approvals_access(as_user, player, outsider, pool_campaign, mana_campaign, gm):
    assert as_user(player).get(approvals_url(pool_campaign)).status_code == 403
    assert as_user(outsider).get(approvals_url(pool_campaign)).status_code == 404
    assert as_user(None).get(approvals_url(pool_campaign)).status_code == 302
    assert as_user(gm).get(approvals_url(mana_campaign)).status_code == 404
    assert as_user(gm).post(approvals_url(pool_campaign)).status_code == 405


@pytest.mark.parametrize(
    ("name", "status"), [("skill_approve", "approved"), ("skill_decline", "declined")]
)
def test_gm_decides(as_user, gm, juggling, name, status):
    response = as_user(gm).post(decide_url(name, juggling), **HTMX)
    assert response.status_code == 200
    assert b'id="gm-approvals"' in response.content and b"Juggling" not in response.content
    juggling.refresh_from_db()
    assert juggling.status == status


def test_approved_skill_can_then_be_rated(as_user, gm, juggling):
    client = as_user(gm)
    client.post(decide_url("skill_approve", juggling), **HTMX)
    url = reverse(
        "rating_set", args=[juggling.character.campaign_id, juggling.character_id, juggling.id]
    )
    assert client.post(url, {"value": "2"}, **HTMX).status_code == 200
    juggling.refresh_from_db()
    assert juggling.value == 2


@pytest.mark.parametrize("second", ["skill_approve", "skill_decline"])
def test_deciding_twice_is_refused(as_user, gm, juggling, second):
    client = as_user(gm)
    client.post(decide_url("skill_decline", juggling), **HTMX)
    with unchanged():
        response = client.post(decide_url(second, juggling), **HTMX)
    assert response.status_code == 422
    assert b"Juggling was already declined." in response.content


def test_decide_access(as_user, player, other_player, outsider, gm, juggling, elsewhere_hero):
    url = decide_url("skill_approve", juggling)
    jump = rating_of(juggling.character, "Strength", "Jump")
    foreign = skill_propose(character=elsewhere_hero, attribute="Trick", name="Juggling")
    with unchanged():
        assert as_user(player).post(url, **HTMX).status_code == 403
        assert as_user(other_player).post(url, **HTMX).status_code == 403
        assert as_user(outsider).post(url, **HTMX).status_code == 404
        assert as_user(None).post(url).status_code == 302
        client = as_user(gm)
        assert client.get(url).status_code == 405
        campaign = juggling.character.campaign
        assert client.post(decide_url("skill_approve", jump)).status_code == 404  # not custom
        assert client.post(decide_url("skill_decline", foreign, campaign)).status_code == 404
        assert client.post(reverse("skill_approve", args=[campaign.id, 99999])).status_code == 404
    assert Rating.objects.get(pk=juggling.pk).status == Rating.PENDING


def test_plain_decision_goes_back_to_the_panel(as_user, gm, juggling):
    response = as_user(gm).post(decide_url("skill_approve", juggling))
    assert response.status_code == 302
    assert response["Location"] == reverse("gm_panel", args=[juggling.character.campaign_id])
    assert Rating.objects.get(pk=juggling.pk).status == Rating.APPROVED


def test_refused_plain_decision_shows_the_panel_with_the_refusal(as_user, gm, juggling):
    client = as_user(gm)
    client.post(decide_url("skill_decline", juggling))
    with unchanged():
        response = client.post(decide_url("skill_approve", juggling))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "GM panel" in html
    assert "Juggling was already declined." in html
    assert html.count('id="gm-approvals"') == 1  # in place of the section that loads itself
