"""Helpers for the campaigns tests (fixtures are in conftest.py): the URLs of the GM's panel."""

from django.urls import reverse


def panel(campaign):
    """The GM's panel of ``campaign``."""
    return reverse("gm_panel", args=[campaign.id])


def renew(campaign):
    """Where the GM renews ``campaign``'s invite code."""
    return reverse("invite_renew", args=[campaign.id])
