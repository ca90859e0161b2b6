"""Mana's campaign skills (rolls/systems/mana/views.py): the GM panel's card, adding, editing and
deleting a skill."""

import pytest
from django.urls import reverse

from rolls.systems.mana.models import ManaSettings, ManaSkill
from tests.conftest import make_campaign
from tests.helpers import HTMX, db_snapshot

NEW = {
    "new-skill-name": "Jump",
    "new-skill-color_a": "red",
    "new-skill-color_b": "green",
    "new-skill-trait": "Athletic",
}


def add_url(campaign):
    return reverse("mana_skill_add", args=[campaign.id])


def edit_url(skill):
    return reverse("mana_skill_edit", args=[skill.campaign_id, skill.id])


def delete_url(skill):
    return reverse("mana_skill_delete", args=[skill.campaign_id, skill.id])


def edit_data(skill, **change):
    data = {"name": skill.name, "color_a": skill.color_a, "color_b": skill.color_b, "trait": ""}
    data.update(change)
    return {f"skill-{skill.id}-{key}": value for key, value in data.items()}


@pytest.fixture
def gather(mana_campaign):
    return ManaSkill.objects.create(
        campaign=mana_campaign, name="Gather Information", color_a="blue", color_b="white"
    )


@pytest.fixture
def foreign_skill(outsider):
    elsewhere = make_campaign(outsider, system="mana", name="Elsewhere")
    return ManaSkill.objects.create(
        campaign=elsewhere, name="Sneak", color_a="black", color_b="red"
    )


# Add ---------------------------------------------------------------------------------------------


def test_gm_adds_skill(as_user, mana_campaign, gm):
    response = as_user(gm).post(add_url(mana_campaign), NEW)
    assert response.status_code == 302
    assert response["Location"] == reverse("gm_panel", args=[mana_campaign.id])
    skill = mana_campaign.mana_skills.get()
    assert (skill.name, skill.color_a, skill.color_b, skill.trait) == (
        "Jump",
        "red",
        "green",
        "Athletic",
    )


def test_gm_adds_skill_with_htmx(as_user, mana_campaign, gm, gather):
    response = as_user(gm).post(add_url(mana_campaign), NEW, **HTMX)
    content = response.content.decode()
    assert response.status_code == 200
    assert content.startswith('<section id="gm-skills"')
    assert 'value="Jump"' in content and 'value="Gather Information"' in content
    assert mana_campaign.mana_skills.count() == 2


def test_skill_uses_a_renamed_palette(as_user, mana_campaign, gm):
    palette = ["sun", "moon"]
    ManaSettings.objects.update_or_create(campaign=mana_campaign, defaults={"palette": palette})
    data = {**NEW, "new-skill-color_a": "sun", "new-skill-color_b": "moon"}
    client = as_user(gm)
    assert client.post(add_url(mana_campaign), data).status_code == 302
    # The old color names are gone from the choices.
    assert client.post(add_url(mana_campaign), {**NEW, "new-skill-name": "X"}).status_code == 200
    assert mana_campaign.mana_skills.count() == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"new-skill-name": ""}, "This field is required"),
        ({"new-skill-name": "x" * 61}, "at most 60 characters"),
        ({"new-skill-color_b": "red"}, "two different colors"),
        ({"new-skill-color_b": "gold"}, "Select a valid choice"),
        ({"new-skill-color_a": "colorless"}, "Select a valid choice"),
        ({"new-skill-color_a": ""}, "This field is required"),
        ({"new-skill-name": "gather information"}, "already a skill"),
        ({"new-skill-trait": "t" * 61}, "at most 60 characters"),
    ],
)
def test_bad_skill_changes_nothing(as_user, mana_campaign, gm, gather, change, message):
    before = db_snapshot()
    client = as_user(gm)
    response = client.post(add_url(mana_campaign), {**NEW, **change}, **HTMX)
    assert response.status_code == 422
    assert message in response.content.decode()
    response = client.post(add_url(mana_campaign), {**NEW, **change})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert db_snapshot() == before


def test_pool_campaign_has_no_mana_skills(as_user, pool_campaign, gm):
    before = db_snapshot()
    assert as_user(gm).post(add_url(pool_campaign), NEW).status_code == 404
    assert db_snapshot() == before


# Edit ------------------------------------------------------------------------------------------


def test_gm_edits_skill(as_user, gm, gather):
    data = edit_data(gather, name="Gather Rumours", color_a="black", trait="Nosy")
    response = as_user(gm).post(edit_url(gather), data, **HTMX)
    assert response.status_code == 200
    gather.refresh_from_db()
    assert (gather.name, gather.color_a, gather.color_b, gather.trait) == (
        "Gather Rumours",
        "black",
        "white",
        "Nosy",
    )


def test_edit_keeps_own_name(as_user, gm, gather):
    response = as_user(gm).post(edit_url(gather), edit_data(gather, trait="Nosy"))
    assert response.status_code == 302
    gather.refresh_from_db()
    assert gather.trait == "Nosy"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": ""}, "This field is required"),
        ({"color_a": "white"}, "two different colors"),
        ({"color_b": "gold"}, "Select a valid choice"),
        ({"name": "JUMP"}, "already a skill"),
    ],
)
def test_bad_edit_changes_nothing(as_user, mana_campaign, gm, gather, change, message):
    ManaSkill.objects.create(campaign=mana_campaign, name="Jump", color_a="red", color_b="green")
    before = db_snapshot()
    client = as_user(gm)
    response = client.post(edit_url(gather), edit_data(gather, **change), **HTMX)
    assert response.status_code == 422
    assert message in response.content.decode()
    response = client.post(edit_url(gather), edit_data(gather, **change))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert db_snapshot() == before


# Delete ----------------------------------------------------------------------------------------


def test_gm_deletes_skill(as_user, mana_campaign, gm, gather):
    response = as_user(gm).post(delete_url(gather), **HTMX)
    assert response.status_code == 200
    assert "No skills yet." in response.content.decode()
    assert not mana_campaign.mana_skills.exists()


# Access and bad ids, for all three -------------------------------------------------------------


def requests_for(skill):
    return [
        (add_url(skill.campaign), NEW),
        (edit_url(skill), edit_data(skill, trait="Nosy")),
        (delete_url(skill), {}),
    ]


@pytest.mark.parametrize("index", range(3))
@pytest.mark.parametrize(("who", "status"), [("player", 403), ("outsider", 404), (None, 302)])
def test_access(as_user, request, gather, index, who, status):
    url, data = requests_for(gather)[index]
    before = db_snapshot()
    user = request.getfixturevalue(who) if who else None
    assert as_user(user).post(url, data).status_code == status
    assert db_snapshot() == before


@pytest.mark.parametrize("index", range(3))
def test_get_is_not_allowed(as_user, gm, gather, index):
    url, _ = requests_for(gather)[index]
    assert as_user(gm).get(url).status_code == 405


def test_another_campaigns_or_unknown_skill_is_404(as_user, mana_campaign, gm, foreign_skill):
    before = db_snapshot()
    client = as_user(gm)
    foreign = [
        f"/campaigns/{mana_campaign.id}/gm/skills/{foreign_skill.id}/",
        f"/campaigns/{mana_campaign.id}/gm/skills/{foreign_skill.id}/delete/",
        f"/campaigns/{mana_campaign.id}/gm/skills/999999/",
        f"/campaigns/{mana_campaign.id}/gm/skills/999999/delete/",
    ]
    for url in foreign:
        assert client.post(url, edit_data(foreign_skill, trait="X")).status_code == 404
    # The GM of one campaign reaching the other campaign's own URLs: not a member, 404.
    assert client.post(delete_url(foreign_skill)).status_code == 404
    assert db_snapshot() == before
