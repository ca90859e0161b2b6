"""Registering a rule system (``rolls.systems.register``): every system the setting
``ROLL_SYSTEMS`` names is one ``RuleSystem`` registered as it is (the tests' coin and Fate-style
too, once their fixtures name them); one with a key the column cannot hold, a member it must
give left out or a template it needs missing (one the pages include by its key, or one it names:
its sections', its GM panel pieces', its settings forms') is refused at start-up with a
sentence naming it and what is wrong, and nothing is registered."""

import sys
import types
from importlib import import_module

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from campaigns.systems import SYSTEMS
from rolls.systems import RuleSystem, refusals, register, templates
from tests.systems import coins

#: Where the systems under test are registered from, as the setting names a package.
PATH = "tests.systems.refused"


def register_as_package(monkeypatch, system):
    """Register ``system`` as the ``SYSTEM`` of a package at ``PATH``."""
    monkeypatch.setitem(sys.modules, PATH, types.SimpleNamespace(SYSTEM=system))
    return register(PATH)


def refused(monkeypatch, system, reason):
    before = dict(SYSTEMS)
    with pytest.raises(ImproperlyConfigured, match=reason) as refusal:
        register_as_package(monkeypatch, system)
    assert SYSTEMS == before
    return str(refusal.value)


@pytest.mark.parametrize("path", settings.ROLL_SYSTEMS)
def test_every_system_the_setting_names_is_registered_whole(path):
    system = import_module(path).SYSTEM
    assert SYSTEMS[system.key] is system and isinstance(system, RuleSystem)
    assert refusals(system) == []


@pytest.mark.parametrize("key", list(SYSTEMS))
def test_every_registered_system_has_its_templates(key):
    system = SYSTEMS[key]
    assert f"rolls/systems/{key}/_roll_fields.html" in templates(system)
    assert refusals(system) == []


def test_the_tests_systems_are_registered_whole_with_the_others(coin_system, fate_system):
    named = [import_module(path).SYSTEM.key for path in settings.ROLL_SYSTEMS]
    assert list(SYSTEMS) == named and {coin_system.key, fate_system.key} <= set(named)
    for system in SYSTEMS.values():
        assert refusals(system) == [] and system.template("_entry.html") in templates(system)


def test_the_coin_is_registered_with_its_templates(coin_system):
    assert refusals(coin_system) == []
    assert "rolls/systems/coin/_entry.html" in templates(coin_system)


class Fudge(type(coins.SYSTEM)):
    """The coin under another key (its templates, the coin's, are not there)."""

    key = "fudge"


def test_a_key_longer_than_the_column_is_refused(monkeypatch, coin_system):
    system = Fudge()
    system.key = "fudge" * 5
    sentence = refused(monkeypatch, system, "Campaign.system holds 20")
    assert sentence.startswith(f"The rule system {system.key!r} of {PATH} cannot be registered")
    assert "its key is 25 characters" in sentence


@pytest.mark.parametrize("key", ["Fudge", "fudge dice", "", "4d", None])
def test_a_key_that_is_no_readable_slug_is_refused(monkeypatch, key):
    system = Fudge()
    system.key = key
    refused(monkeypatch, system, f"its key {key!r} is not a slug")


def test_a_key_another_system_has_is_refused(monkeypatch):
    system = Fudge()
    system.key = "pool"
    refused(monkeypatch, system, "another system is registered under the key 'pool'")
    assert SYSTEMS["pool"] is not system


def test_a_system_that_leaves_out_what_it_must_give_is_refused(monkeypatch):
    class Half(RuleSystem):
        key = "half"
        name = "Half"

        def roll(self, check, *, by, data):
            return None

    sentence = refused(monkeypatch, Half(), "it gives no")
    assert "summary, number, any_choice, roll_form, roll_context, odds, asked," in sentence
    assert "export_rolled" in sentence and " roll," not in sentence


def test_a_system_whose_sheet_lacks_a_member_is_refused(monkeypatch):
    system = Fudge()
    system.sheet = types.SimpleNamespace(character_fill=lambda character: None)
    sentence = refused(monkeypatch, system, "it gives no sheet.party_characters")
    assert "sheet.party_row, sheet.section_context" in sentence


def test_distributions_without_their_exact_chances_are_refused(monkeypatch):
    class Counted(Fudge):
        exact_distribution = RuleSystem.exact_distribution

    refused(monkeypatch, Counted(), r"exact_distribution \(its rolled_groups")


def test_a_system_whose_templates_are_missing_is_refused(monkeypatch, coin_system):
    # The coin's own templates are there (the fixture); a key without a folder is not.
    sentence = refused(monkeypatch, Fudge(), "are not there")
    assert "rolls/systems/fudge/_roll_fields.html" in sentence


def test_a_template_a_system_names_missing_is_refused(monkeypatch, coin_system):
    class Partial(type(coins.SYSTEM)):
        party_head = "rolls/systems/coin/_party_head.html"

    before = dict(SYSTEMS)
    del SYSTEMS["coin"]  # the coin's key is free again: only the template is wrong
    try:
        sentence = refused(monkeypatch, Partial(), "are not there")
    finally:
        SYSTEMS.clear()
        SYSTEMS.update(before)
    assert "its templates rolls/systems/coin/_party_head.html are not there" in sentence


def test_an_object_that_is_no_rule_system_is_refused(monkeypatch):
    refused(monkeypatch, object(), "its SYSTEM is a object, not a rolls.systems.RuleSystem")


def test_a_gm_section_whose_template_is_missing_is_refused(monkeypatch, coin_system):
    from rolls.systems.scaffold import gm_piece

    class Panelled(type(coins.SYSTEM)):
        key = "panelled"
        gm_pieces = (gm_piece("dice", "rolls/systems/panelled/_gm_dice.html", dict),)

    sentence = refused(monkeypatch, Panelled(), "are not there")
    assert "rolls/systems/panelled/_gm_dice.html" in sentence


@pytest.mark.parametrize("form", ["create", "settings"])
def test_settings_fields_without_their_template_are_refused(monkeypatch, form):
    class Settled(Fudge):
        pass

    setattr(Settled, f"{form}_fields", lambda self, *campaign: {"size": None})
    sentence = refused(monkeypatch, Settled(), f"{form}_template \\(it has {form}_fields\\)")
    assert sentence.startswith("The rule system 'fudge'")
