"""Helpers for the sheet tests (fixtures are in conftest.py)."""

from django.urls import reverse


def sheet_url(name, character, *args):
    """The URL ``name`` of ``character``'s sheet (campaign id, character id, ``args``)."""
    return reverse(name, args=[character.campaign_id, character.id, *args])
