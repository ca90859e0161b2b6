from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"

    def ready(self):
        from . import ids

        ids.register()  # <id:...> in every app's URLs and websocket routes
