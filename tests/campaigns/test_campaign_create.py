import re

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Membership
from rolls.systems.mana.models import DEFAULT_PALETTE, palette_of
from rolls.systems.pool.models import PoolSettings, settings_of
from tests.helpers import db_snapshot, raises_refused

URL = "/campaigns/new/"

MANA = {"name": "Blue Harbor", "system": "mana", "palette": "white, blue, black, red, green"}
POOL = {
    "name": "The Marches",
    "system": "pool",
    "attribute_cost": "3",
    "skill_cost": "2",
    "hp_base": "12",
    "hp_per_endurance": "4",
}


def test_url_name():
    assert reverse("campaign_create") == URL


def test_anonymous_is_sent_to_login(client, db):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    response = client.post(URL, POOL)
    assert response.status_code == 302
    assert not Campaign.objects.exists()


def test_home_links_to_new_campaign(as_user, outsider):
    assert f'href="{URL}"' in as_user(outsider).get(reverse("home")).content.decode()


def test_form_shows_defaults(as_user, outsider):
    response = as_user(outsider).get(URL)
    content = response.content.decode()
    assert response.status_code == 200
    assert "white, blue, black, red, green" in content
    assert 'name="attribute_cost"' in content


def test_the_form_says_what_each_system_plays_like(as_user, outsider):
    """Under the choice of system: what Mana and Pool are, and where the rules say more."""
    content = as_user(outsider).get(URL).content.decode()
    hint = content[content.index('id="id_system_helptext"') :]
    hint = hint[: hint.index("</div>")]
    assert "<b>Mana</b>: checks of a skill in d10s" in hint
    assert "<b>Pool</b>: checks of an attribute&#x27;s d6 plus a skill&#x27;s d10" in hint
    assert 'href="/rules/"' in hint


def test_create_pool_campaign_makes_creator_gm(as_user, outsider):
    response = as_user(outsider).post(URL, POOL)
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign_detail", args=[campaign.id])
    assert (campaign.name, campaign.system) == ("The Marches", "pool")
    row = settings_of(campaign)
    assert (row.attribute_cost, row.skill_cost) == (3, 2)
    assert (row.hp_base, row.hp_per_endurance) == (12, 4)
    membership = Membership.objects.get(campaign=campaign)
    assert (membership.user, membership.role) == (outsider, Membership.GM)
    assert palette_of(campaign) == DEFAULT_PALETTE
    assert not campaign.mana_skills.exists()


def test_pool_campaign_ignores_mana_fields(as_user, outsider):
    response = as_user(outsider).post(URL, {**POOL, "palette": ",,", "skills": "nonsense"})
    assert response.status_code == 302
    campaign = Campaign.objects.get()
    assert palette_of(campaign) == DEFAULT_PALETTE
    assert not campaign.mana_skills.exists()


def test_create_mana_campaign_with_palette_and_skills(as_user, outsider):
    skills = "Gather Information | blue | WHITE\n\n  Jump | Gold | red | Athletic  \n"
    response = as_user(outsider).post(
        URL, {**MANA, "palette": " white, blue , red,Gold ", "skills": skills}
    )
    assert response.status_code == 302
    campaign = Campaign.objects.get()
    assert campaign.system == "mana"
    assert palette_of(campaign) == ["white", "blue", "red", "Gold"]
    assert list(campaign.mana_skills.values_list("name", "color_a", "color_b", "trait")) == [
        ("Gather Information", "blue", "white", ""),
        ("Jump", "Gold", "red", "Athletic"),
    ]
    assert campaign.memberships.get().role == Membership.GM


def test_mana_campaign_without_skills_and_with_bad_pool_fields(as_user, outsider):
    response = as_user(outsider).post(URL, {**MANA, "attribute_cost": "abc", "hp_base": "-4"})
    assert response.status_code == 302
    campaign = Campaign.objects.get()
    assert not campaign.mana_skills.exists()
    assert (settings_of(campaign).attribute_cost, settings_of(campaign).hp_base) == (1, 10)
    assert not PoolSettings.objects.filter(campaign=campaign).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**POOL, "name": ""}, "This field is required"),
        ({**POOL, "name": "x" * 101}, "at most 100 characters"),
        ({**POOL, "system": "dice"}, "Select a valid choice"),
        ({**POOL, "system": ""}, "This field is required"),
        ({**POOL, "attribute_cost": "0"}, "greater than or equal to 1"),
        ({**POOL, "skill_cost": "-1"}, "greater than or equal to 1"),
        ({**POOL, "skill_cost": "101"}, "less than or equal to 100"),
        ({**POOL, "attribute_cost": "abc"}, "Enter a whole number"),
        ({**POOL, "attribute_cost": "1.5"}, "Enter a whole number"),
        ({**POOL, "hp_base": "-1"}, "greater than or equal to 0"),
        ({**POOL, "hp_per_endurance": "1001"}, "less than or equal to 1000"),
        ({**POOL, "hp_base": str(10**30)}, "less than or equal to 1000"),
        ({**POOL, "hp_base": ""}, "This field is required"),
        ({**MANA, "palette": ""}, "This field is required"),
        ({**MANA, "palette": "red, blue, Red"}, "appears twice"),
        ({**MANA, "palette": "red,,blue"}, "blank"),
        ({**MANA, "palette": "red, blue,"}, "blank"),
        ({**MANA, "palette": "red, colorless"}, "colorless"),
        ({**MANA, "palette": "red, " + "x" * 31}, "too long"),
        ({**MANA, "palette": ", ".join(f"c{i}" for i in range(13))}, "1 to 12 colors"),
        ({**MANA, "skills": "Jump | red | red"}, "two different colors"),
        ({**MANA, "skills": "Jump | red | gold"}, "Select a valid choice"),
        ({**MANA, "skills": "Jump | red"}, "Line 1"),
        ({**MANA, "skills": "Jump | red | blue | Athletic | extra"}, "Line 1"),
        ({**MANA, "skills": " | red | blue"}, "This field is required"),
        ({**MANA, "skills": "Jump | red | blue\njump | white | blue"}, "already a skill"),
    ],
)
def test_bad_input_changes_nothing(as_user, outsider, data, message):
    before = db_snapshot()
    response = as_user(outsider).post(URL, data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert db_snapshot() == before


def test_skill_errors_name_the_line(as_user, outsider):
    skills = "Jump | red | blue\nSneak | black | black"
    content = as_user(outsider).post(URL, {**MANA, "skills": skills}).content.decode()
    assert "Line 2: A skill has two different colors." in content


def test_service_refuses_unknown_system(outsider):
    before = db_snapshot()
    with raises_refused(match="Unknown system"):
        services.campaign_create(user=outsider, name="X", system="dice")
    assert db_snapshot() == before


def test_service_keeps_model_defaults(outsider):
    campaign = services.campaign_create(user=outsider, name="X", system="pool")
    row = settings_of(campaign)
    assert (row.attribute_cost, row.skill_cost, row.hp_base) == (1, 1, 10)
    assert campaign.memberships.get().user == outsider


# Only the chosen system's settings (static/js/site.js hides and disables the other's) ---------


def test_each_systems_settings_are_marked_for_the_switch(as_user, outsider):
    html = as_user(outsider).get(URL).content.decode()
    assert "data-system-switch" in html
    assert '<fieldset id="settings-mana" data-system="mana">' in html
    assert '<fieldset id="settings-pool" data-system="pool">' in html
    # Without JS both show: nothing is hidden by the page itself.
    assert "<fieldset hidden" not in html and " disabled" not in html


def test_a_refused_form_keeps_the_chosen_system(as_user, outsider):
    response = as_user(outsider).post(URL, {**POOL, "attribute_cost": "0"})
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'<input type="radio" name="system" value="pool"[^>]*checked', html)


@pytest.mark.parametrize(
    ("data", "system"),
    [
        # What a browser sends once the other system's fieldset is disabled: none of its fields.
        (MANA, "mana"),
        (POOL, "pool"),
    ],
)
def test_the_other_systems_fields_may_be_absent(as_user, outsider, data, system):
    response = as_user(outsider).post(URL, data)
    assert response.status_code == 302
    assert Campaign.objects.get().system == system
