import pytest
from django.urls import reverse

from rolls.systems.mana import services as mana_services
from rolls.systems.mana.models import ManaPool, ManaSkill, palette_of
from rolls.systems.pool.models import PoolSettings, settings_of
from tests.conftest import make_campaign
from tests.helpers import HTMX, db_snapshot, raises_refused

POOL = {
    "name": "The Far Marches",
    "attribute_cost": "3",
    "skill_cost": "2",
    "hp_base": "12",
    "hp_per_endurance": "4",
}
MANA = {
    "name": "Blue Harbor",
    "color_0": "white",
    "color_1": "blue",
    "color_2": "black",
    "color_3": "red",
    "color_4": "green",
}


def settings_url(campaign):
    return reverse("campaign_settings", args=[campaign.id])


def pools(character):
    return dict(character.mana.values_list("color", "maximum"))


@pytest.fixture
def harbor(mana_campaign, player, other_player, character_with_pools):
    """The mana campaign with two skills and two characters with pools."""
    ManaSkill.objects.create(
        campaign=mana_campaign, name="Gather Information", color_a="blue", color_b="white"
    )
    ManaSkill.objects.create(campaign=mana_campaign, name="Jump", color_a="red", color_b="blue")
    full = {color: (1, 3) for color in [*palette_of(mana_campaign), "colorless"]}
    character_with_pools(mana_campaign, player, "Ilse", pools=full)
    character_with_pools(mana_campaign, other_player, "Bram", pools={"white": (0, 1)})
    return mana_campaign


# Pool settings ---------------------------------------------------------------------------------


def test_gm_changes_pool_settings(as_user, pool_campaign, gm):
    client = as_user(gm)
    response = client.post(settings_url(pool_campaign), POOL)
    assert response.status_code == 302
    assert response["Location"] == reverse("gm_panel", args=[pool_campaign.id])
    pool_campaign.refresh_from_db()
    assert pool_campaign.name == "The Far Marches"
    row = settings_of(pool_campaign)
    assert (row.attribute_cost, row.skill_cost) == (3, 2)
    assert (row.hp_base, row.hp_per_endurance) == (12, 4)
    page = client.get(response["Location"]).content.decode()
    assert "Settings saved." in page


def test_gm_changes_pool_settings_with_htmx(as_user, pool_campaign, gm):
    response = as_user(gm).post(settings_url(pool_campaign), POOL, **HTMX)
    assert response.status_code == 200
    assert response.content.decode().startswith('<section id="gm-settings"')
    pool_campaign.refresh_from_db()
    assert settings_of(pool_campaign).skill_cost == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": ""}, "This field is required"),
        ({"name": "x" * 101}, "at most 100 characters"),
        ({"attribute_cost": "0"}, "greater than or equal to 1"),
        ({"attribute_cost": "-3"}, "greater than or equal to 1"),
        ({"skill_cost": "101"}, "less than or equal to 100"),
        ({"skill_cost": "abc"}, "Enter a whole number"),
        ({"hp_base": "-1"}, "greater than or equal to 0"),
        ({"hp_base": str(10**30)}, "less than or equal to 1000"),
        ({"hp_per_endurance": ""}, "This field is required"),
    ],
)
def test_bad_pool_settings_change_nothing(as_user, pool_campaign, gm, change, message):
    before = db_snapshot()
    client = as_user(gm)
    response = client.post(settings_url(pool_campaign), {**POOL, **change})
    assert response.status_code == 200
    assert message in response.content.decode()
    response = client.post(settings_url(pool_campaign), {**POOL, **change}, **HTMX)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert db_snapshot() == before


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("outsider", 404)])
def test_settings_refused(as_user, pool_campaign, request, who, status):
    before = db_snapshot()
    client = as_user(request.getfixturevalue(who))
    assert client.post(settings_url(pool_campaign), POOL).status_code == status
    assert db_snapshot() == before


def test_settings_need_post_login_and_known_campaign(client, as_user, pool_campaign, gm):
    before = db_snapshot()
    assert client.post(settings_url(pool_campaign), POOL).status_code == 302
    client = as_user(gm)
    assert client.get(settings_url(pool_campaign)).status_code == 405
    unknown = f"/campaigns/{pool_campaign.id + 999}/gm/settings/"
    assert client.post(unknown, POOL).status_code == 404
    assert db_snapshot() == before


# Mana settings: the palette --------------------------------------------------------------------


def test_mana_settings_ignore_pool_fields(as_user, harbor, gm):
    response = as_user(gm).post(settings_url(harbor), {**MANA, "attribute_cost": "50"})
    assert response.status_code == 302
    harbor.refresh_from_db()
    assert settings_of(harbor).attribute_cost == 1
    assert not PoolSettings.objects.filter(campaign=harbor).exists()


def test_rename_color_everywhere(as_user, harbor, gm, outsider, character_with_pools):
    elsewhere = make_campaign(outsider, system="mana", name="Elsewhere")
    stranger = character_with_pools(elsewhere, outsider, "Stranger", pools={"blue": (2, 2)})
    ManaSkill.objects.create(campaign=elsewhere, name="Jump", color_a="blue", color_b="red")
    response = as_user(gm).post(settings_url(harbor), {**MANA, "color_1": "azure"})
    assert response.status_code == 302
    harbor.refresh_from_db()
    assert palette_of(harbor) == ["white", "azure", "black", "red", "green"]
    assert list(harbor.mana_skills.values_list("name", "color_a", "color_b")) == [
        ("Gather Information", "azure", "white"),
        ("Jump", "red", "azure"),
    ]
    ilse = harbor.characters.get(name="Ilse")
    assert pools(ilse) == {c: 3 for c in ["white", "azure", "black", "red", "green", "colorless"]}
    assert ilse.mana.get(color="azure").current == 1
    bram = harbor.characters.get(name="Bram")
    # Bram lacked pool rows: the update fills in the palette's colors at 0/0.
    assert pools(bram) == {"white": 1, "azure": 0, "black": 0, "red": 0, "green": 0}
    assert pools(stranger) == {"blue": 2}
    assert elsewhere.mana_skills.get().color_a == "blue"


def test_rename_changing_only_case(as_user, harbor, gm):
    as_user(gm).post(settings_url(harbor), {**MANA, "color_1": "Blue"})
    harbor.refresh_from_db()
    assert palette_of(harbor)[1] == "Blue"
    assert harbor.mana_skills.get(name="Jump").color_b == "Blue"
    assert "Blue" in pools(harbor.characters.get(name="Ilse"))


def test_add_colors_creates_empty_pools(as_user, harbor, gm):
    response = as_user(gm).post(
        settings_url(harbor), {**MANA, "name": "Harbor", "add_colors": " gold , silver"}
    )
    assert response.status_code == 302
    harbor.refresh_from_db()
    assert harbor.name == "Harbor"
    assert palette_of(harbor) == ["white", "blue", "black", "red", "green", "gold", "silver"]
    for character in harbor.characters.all():
        assert character.mana.get(color="gold").maximum == 0
        assert character.mana.get(color="silver").current == 0
    assert harbor.characters.get(name="Ilse").mana.get(color="red").current == 1
    assert ManaPool.objects.filter(character__campaign=harbor).count() == 8 + 7


def test_rename_and_add_in_one_go_with_htmx(as_user, harbor, gm):
    data = {**MANA, "color_0": "ivory", "add_colors": "gold"}
    response = as_user(gm).post(settings_url(harbor), data, **HTMX)
    assert response.status_code == 200
    assert 'name="color_5" value="gold"' in response.content.decode()
    harbor.refresh_from_db()
    assert palette_of(harbor) == ["ivory", "blue", "black", "red", "green", "gold"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": ""}, "This field is required"),
        ({"color_1": ""}, "This field is required"),
        ({"color_1": "white"}, "appears twice"),
        ({"color_0": "blue", "color_1": "white"}, "appears twice"),
        ({"color_1": "red", "color_3": "azure"}, "appears twice"),
        ({"color_1": "colorless"}, "colorless"),
        ({"color_1": "x" * 31}, "at most 30 characters"),
        ({"add_colors": "gold, Gold"}, "appears twice"),
        ({"add_colors": "Blue"}, "appears twice"),
        ({"add_colors": "gold,,silver"}, "blank"),
        ({"add_colors": "gold,"}, "blank"),
        ({"add_colors": "Colorless"}, "colorless"),
        ({"add_colors": "y" * 31}, "too long"),
        ({"add_colors": ", ".join(f"c{i}" for i in range(8))}, "1 to 12 colors"),
        ({"color_1": "azure", "add_colors": "blue"}, "appears twice"),
    ],
)
def test_bad_palette_changes_nothing(as_user, harbor, gm, change, message):
    before = db_snapshot()
    client = as_user(gm)
    response = client.post(settings_url(harbor), {**MANA, **change})
    assert response.status_code == 200
    assert message in response.content.decode()
    response = client.post(settings_url(harbor), {**MANA, **change}, **HTMX)
    assert response.status_code == 422
    assert db_snapshot() == before


def test_missing_color_field_is_refused(as_user, harbor, gm):
    before = db_snapshot()
    data = {key: value for key, value in MANA.items() if key != "color_4"}
    response = as_user(gm).post(settings_url(harbor), data)
    assert response.status_code == 200
    assert db_snapshot() == before


def test_palette_service_refuses_removal(harbor):
    before = db_snapshot()
    with raises_refused(match="not removed"):
        mana_services.palette_update(campaign=harbor, palette=["white", "blue"])
    assert db_snapshot() == before
