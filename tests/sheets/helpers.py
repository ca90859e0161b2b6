"""Helpers for the sheet tests (fixtures are in conftest.py)."""

from contextlib import contextmanager

from django.urls import reverse

from sheets.models import Character, ManaPool, Rating

#: Extra headers that make the test client's request an htmx request.
HTMX = {"HTTP_HX_REQUEST": "true"}


def snapshot():
    """Every character, rating and mana pool row, to compare before and after an action."""
    return (
        list(Character.objects.order_by("pk").values_list()),
        list(Rating.objects.order_by("pk").values_list()),
        list(ManaPool.objects.order_by("pk").values_list()),
    )


@contextmanager
def unchanged():
    """``with unchanged(): ...`` fails if the block changed any sheet row."""
    before = snapshot()
    yield
    assert snapshot() == before


def sheet_url(name, character, *args):
    """The URL ``name`` of ``character``'s sheet (campaign id, character id, ``args``)."""
    return reverse(name, args=[character.campaign_id, character.id, *args])
