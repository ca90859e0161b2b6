from django.apps import AppConfig


class SparetimeConfig(AppConfig):
    name = "sparetime"

    def ready(self):
        # The party (sheets, below) shows each character's free sparetime without importing us.
        from sheets.party import POOL_SUMS

        from .services import party_free_sparetime

        POOL_SUMS["sparetime"] = party_free_sparetime
