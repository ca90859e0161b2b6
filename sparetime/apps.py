from django.apps import AppConfig


class SparetimeConfig(AppConfig):
    """Sparetime, the Pool system's progression: a Django app on the floor above rolls (it raises
    Pool's ratings and answers in the room), label ``sparetime`` (its migrations' and content
    types' since it left ``sheets``). Its pages are its own URLs (``urls.py``, which
    ``config/urls.py`` includes), open in Pool campaigns only.

    Pool shows parts of the ledger (the room's award, a session's awards, the party's free
    sparetime, a character's rows in its player's own data) but may not import it: at
    ``ready()`` the ledger gives Pool those answers (``rolls.systems.pool.progression``);
    without this, Pool's pages fail on the first ask."""

    name = "sparetime"
    label = "sparetime"

    def ready(self):
        from rolls.systems.pool.progression import LEDGER

        from . import services, views

        LEDGER.update(
            session_context=views.session_award_context,
            summary_context=views.summary_awards_context,
            party_free_sparetime=services.party_free_sparetime,
            ledger_export=services.ledger_export,
        )
