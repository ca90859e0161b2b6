"""Pool's progression: what Pool shows of the sparetime ledger, the ``sparetime`` app. That app
sits on the floor above rolls (it raises Pool's ratings and answers in the room), so Pool does
not import it (pyproject.toml's floors): the ledger fills ``LEDGER`` at its ``ready()``
(``sparetime/apps.py``), and Pool's members below ask it here."""

from django.core.exceptions import ImproperlyConfigured

#: The ledger's answers by name, given by the ``sparetime`` app at its ready().
LEDGER = {}


def _ledger(name):
    try:
        return LEDGER[name]
    except KeyError:
        raise ImproperlyConfigured(
            'The Pool system plays with its sparetime ledger: add "sparetime" to INSTALLED_APPS.'
        ) from None


def session_context(campaign, last, **overrides):
    """``Pool.session_context``: the room's sparetime award once the last session ended
    (``sparetime.views.session_award_context``)."""
    return _ledger("session_context")(campaign, last, **overrides)


def summary_context(campaign, session):
    """``Pool.summary_context``: the sparetime awarded for a session
    (``sparetime.views.summary_awards_context``)."""
    return _ledger("summary_context")(campaign, session)


def party_free_sparetime():
    """A character's free sparetime, an expression the party's query annotates
    (``sparetime.services.party_free_sparetime``)."""
    return _ledger("party_free_sparetime")()


def ledger_export(character):
    """A character's ledger rows in its player's own data (``sparetime.services.ledger_export``)."""
    return _ledger("ledger_export")(character)
