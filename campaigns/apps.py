from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"

    def ready(self):
        from core import writes

        from .models import FormToken

        writes.keep_tokens_in(FormToken)  # the ground floor has no models of its own
