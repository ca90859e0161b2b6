"""User-typed names (core/names.py): hidden characters refused in every name a form takes,
usernames of one script that look like no other."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaigns.forms import CampaignCreateForm, CampaignSettingsForm, SignupForm
from campaigns.models import Campaign
from core.names import (
    BIDI_CONTROLS,
    ZERO_WIDTH,
    check_username,
    plain_name,
    scripts,
    skeleton,
)
from rolls.forms import AskForm, RequestForm
from rolls.systems.mana.forms import ManaSkillForm, TraitsForm, parse_skills
from rolls.systems.mana.models import ManaSkill, palette_of
from rolls.systems.pool.forms import SkillProposalForm, TemplateSkillForm
from sheets.forms import CharacterForm
from sheets.models import Character
from tests.conftest import make_user
from tests.helpers import db_snapshot

HIDDEN = sorted(BIDI_CONTROLS | ZERO_WIDTH)
RLO = "\u202e"
CYRILLIC_A = "\u0430"


# plain_name ------------------------------------------------------------------------------------
def test_the_rules_characters_are_all_there():
    assert [f"{c:04X}" for c in HIDDEN] == [
        "061C", "200B", "200C", "200D", "200E", "200F", "202A", "202B", "202C", "202D", "202E",
        "2060", "2066", "2067", "2068", "2069", "FEFF",
    ]  # fmt: skip


@pytest.mark.parametrize("code", HIDDEN + [0x00AD, 0x0007], ids=lambda c: f"U+{c:04X}")
def test_hidden_characters_are_refused(code):
    with pytest.raises(ValidationError) as refused:
        plain_name(f"Blue{chr(code)} Harbor")
    assert f"U+{code:04X}" in refused.value.messages[0]
    assert "invisible or direction-changing" in refused.value.messages[0]


@pytest.mark.parametrize("name", ["Blue Harbor", "Jörð", "Мария", "東京の夜", "אריה", "O'Brien-2"])
def test_visible_names_of_any_script_pass(name):
    plain_name(name)


# Usernames -------------------------------------------------------------------------------------
def test_scripts_and_skeletons():
    assert scripts("ana_2") == {"LATIN"}
    assert scripts(f"{CYRILLIC_A}na") == {"LATIN", "CYRILLIC"}
    assert scripts("ひらがなカタカナ漢字") == {"JAPANESE"}
    assert skeleton(f"{CYRILLIC_A}na") == skeleton("ana") == skeleton("ANA")
    assert skeleton("рах") == skeleton("pax")  # Cyrillic р а х
    assert skeleton("αnα") == skeleton("ana")  # Greek alpha
    assert skeleton("rnax") == skeleton("max")
    assert skeleton("ana") != skeleton("ann")


def test_usernames_mixing_scripts_are_refused(db):
    with pytest.raises(ValidationError, match="mixes Cyrillic and Latin"):
        check_username(f"{CYRILLIC_A}na")
    check_username("Мария")
    check_username("ana")


def test_usernames_like_an_existing_one_are_refused(db):
    make_user("ana")
    make_user("pax")
    for lookalike in ("Ana", "AnA", "рах"):
        with pytest.raises(ValidationError, match="looks too much like an existing username"):
            check_username(lookalike)
    check_username("anna")
    check_username("ana")  # itself: the form's own "already exists" says so


def test_signup_refuses_a_lookalike_of_an_existing_user(client, player):
    data = {"password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"}
    before = db_snapshot()
    response = client.post(reverse("signup"), {**data, "username": f"{CYRILLIC_A}na"})
    assert response.status_code == 200
    assert "uses the letters of one script only" in response.content.decode()
    response = client.post(reverse("signup"), {**data, "username": "рех"})  # Cyrillic: pex
    assert response.status_code == 302
    client.logout()
    response = client.post(reverse("signup"), {**data, "username": "pex"})
    assert "looks too much like an existing username" in response.content.decode()
    assert db_snapshot()["campaigns.Campaign"] == before["campaigns.Campaign"]


def test_signup_form_checks_usernames(db):
    form = SignupForm({"username": f"b{RLO}en", "password1": "x", "password2": "x"})
    assert not form.is_valid() and "username" in form.errors


# Every form that takes a name ------------------------------------------------------------------
@pytest.fixture
def mana(mana_campaign):
    mana_campaign.mana_skills.create(name="Jump", color_a="red", color_b="green")
    return mana_campaign


def forms_with(name, mana, pool_campaign, player):
    """(what, bound form, field) for every form field that takes a name, holding ``name``."""
    character = Character(campaign=pool_campaign, owner=player, name="Ada")
    return [
        ("campaign name", CampaignCreateForm({"name": name, "system": "pool"}), "name"),
        (
            "palette color",
            CampaignCreateForm({"name": "Harbor", "system": "mana", "palette": f"red, {name}"}),
            "palette",
        ),
        ("campaign rename", CampaignSettingsForm({"name": name}, campaign=mana), "name"),
        (
            "color rename",
            CampaignSettingsForm(
                {"name": "Harbor", **{f"color_{i}": c for i, c in enumerate(palette_of(mana))}}
                | {"color_0": name},
                campaign=mana,
            ),
            "color_0",
        ),
        (
            "added color",
            CampaignSettingsForm(
                {
                    "name": "Harbor",
                    "add_colors": name,
                    **{f"color_{i}": c for i, c in enumerate(palette_of(mana))},
                },
                campaign=mana,
            ),
            "__all__",
        ),
        (
            "mana skill name",
            ManaSkillForm(
                {"name": name, "color_a": "red", "color_b": "blue"}, palette=palette_of(mana)
            ),
            "name",
        ),
        (
            "mana skill trait",
            ManaSkillForm(
                {"name": "Swim", "color_a": "red", "color_b": "blue", "trait": name},
                palette=palette_of(mana),
            ),
            "trait",
        ),
        ("character name", CharacterForm({"name": name}, instance=character), "name"),
        ("concept", CharacterForm({"name": "Ada", "concept": name}, instance=character), "concept"),
        (
            "template skill",
            TemplateSkillForm({"attribute": "Mind", "template": "Lore: _", "fill": name}),
            "fill",
        ),
        ("skill proposal", SkillProposalForm({"attribute": "Mind", "name": name}), "name"),
        ("trait", TraitsForm({"traits": f"Brave, {name}"}), "traits"),
        (
            "suggested skill",
            RequestForm({"suggestion": name, "visibility": "public"}, campaign=pool_campaign),
            "suggestion",
        ),
        (
            "asked skill",
            AskForm(
                {"suggestion": name, "visibility": "public", "target": 3},
                campaign=pool_campaign,
            ),
            "suggestion",
        ),
    ]


@pytest.mark.parametrize("hidden", [RLO, "\u200b", "\u2067", "\ufeff"], ids=repr)
def test_every_name_refuses_hidden_characters(mana, pool_campaign, player, hidden):
    for what, form, field in forms_with(f"Gate{hidden}keeper", mana, pool_campaign, player):
        assert not form.is_valid(), what
        assert any("invisible or direction-changing" in e for e in form.errors[field]), (
            what,
            form.errors,
        )


def test_every_name_takes_a_plain_one(mana, pool_campaign, player):
    for what, form, field in forms_with("Gatekeeper", mana, pool_campaign, player):
        form.is_valid()
        assert field not in form.errors, (what, form.errors)


def test_mana_skill_lines_refuse_hidden_characters(mana):
    with pytest.raises(ValidationError, match="invisible or direction-changing"):
        parse_skills(f"Jump{RLO} | red | green", palette_of(mana))


def test_campaign_named_with_an_override_is_refused_through_the_view(as_user, outsider):
    before = db_snapshot()
    response = as_user(outsider).post(
        reverse("campaign_create"), {"name": f"Evil {RLO}gnp", "system": "pool"}
    )
    assert response.status_code == 200
    assert "U+202E" in response.content.decode()
    assert db_snapshot() == before
    assert not Campaign.objects.exists() and not ManaSkill.objects.exists()
