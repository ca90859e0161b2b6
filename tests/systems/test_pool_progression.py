"""Pool's progression (rolls/systems/pool/progression.py): the sparetime app, above rolls, gives
Pool its answers at its ready(); without them Pool says at the first ask what is missing."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from campaigns.systems import SYSTEMS
from rolls.systems.pool import progression
from sparetime import services, views


def test_the_sparetime_app_gives_pool_its_answers():
    assert progression.LEDGER == {
        "session_context": views.session_award_context,
        "summary_context": views.summary_awards_context,
        "party_free_sparetime": services.party_free_sparetime,
        "ledger_export": services.ledger_export,
    }


def test_without_the_sparetime_app_pool_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(progression, "LEDGER", {})
    with pytest.raises(ImproperlyConfigured, match='add "sparetime" to INSTALLED_APPS'):
        SYSTEMS["pool"].summary_context(None, None)
