"""Helpers for the sheet tests (fixtures are in conftest.py)."""

from django.urls import reverse

from rolls.systems.mana.models import ManaPool


def sheet_url(name, character, *args):
    """The URL ``name`` of ``character``'s sheet (campaign id, character id, ``args``)."""
    return reverse(name, args=[character.campaign_id, character.id, *args])


def pools(character):
    """``character``'s mana: {color: (current, maximum)}."""
    return {p.color: (p.current, p.maximum) for p in ManaPool.objects.filter(character=character)}
