from django.apps import AppConfig


class SheetsConfig(AppConfig):
    name = "sheets"

    def ready(self):
        from campaigns.signals import palette_changed

        from .services import pools_follow_palette

        palette_changed.connect(pools_follow_palette, dispatch_uid="sheets.pools_follow_palette")
