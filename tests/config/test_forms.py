"""Every form renders through the site's templates (config/forms.py, templates/forms/): each
field in a ``div.field`` with its label, its hint once (the field's aria-describedby) and its
errors; no stock ``as_p`` paragraphs."""

import re

import pytest
from django.urls import reverse

from sheets.services import character_create

FIELD = re.compile(r'<div class="field( has-error)?">')


def fields(html):
    return FIELD.findall(html)


@pytest.mark.parametrize("name, count", [("login", 2), ("signup", 4)], ids=["login", "signup"])
def test_the_account_forms_render_each_field_in_the_site_look(client, db, name, count):
    html = client.get(reverse(name)).content.decode()
    assert len(fields(html)) == count
    assert not re.search(r"<p>\s*<label", html)  # Django's stock as_p
    assert '<label for="id_username">Username:</label>' in html


def test_a_hint_is_shown_once_and_described_by_its_field(client, db):
    html = client.get(reverse("signup")).content.decode()
    assert html.count("150 characters or fewer") == 1
    assert 'id="id_username_helptext"' in html
    assert 'aria-describedby="id_username_helptext"' in html


def test_the_new_campaign_form_says_each_cost_once(as_user, gm):
    html = as_user(gm).get(reverse("campaign_create")).content.decode()
    assert "Sparetime per point" not in html
    assert html.count("Sparetime per attribute point") == 1
    assert html.count("Sparetime per skill point") == 1
    assert len(fields(html)) == 9  # name, system, palette, skills and the five Pool settings
    assert 'id="id_palette"' in html and "<fieldset>" in html  # the system's radios


def test_a_refused_field_shows_its_error_in_place(client, db):
    response = client.post(reverse("signup"), {"username": "", "password1": "x", "password2": "y"})
    html = response.content.decode()
    assert fields(html).count(" has-error") >= 1
    assert 'class="errorlist' in html


def test_the_new_character_form_renders_in_the_site_look(as_user, player, pool_campaign):
    html = (
        as_user(player).get(reverse("character_create", args=[pool_campaign.id])).content.decode()
    )
    assert len(fields(html)) >= 1 and "<p><label" not in html


def test_the_gm_traits_form_renders_in_the_site_look(as_user, gm, player, mana_campaign):
    mira = character_create(campaign=mana_campaign, owner=player, name="Mira")
    html = (
        as_user(gm)
        .get(reverse("character_detail", args=[mana_campaign.id, mira.id]))
        .content.decode()
    )
    start = html.index('action="' + reverse("character_traits", args=[mana_campaign.id, mira.id]))
    traits = html[start : html.index("</form>", start)]
    assert len(fields(traits)) == 1
