from django.apps import AppConfig


class SheetsConfig(AppConfig):
    name = "sheets"

    def ready(self):
        # Sheets follows the writes of the apps below it, which do not import it (pyproject.toml's
        # contracts).
        from campaigns.services import PALETTE_FOLLOWERS

        from .services import pools_follow_palette

        if pools_follow_palette not in PALETTE_FOLLOWERS:
            PALETTE_FOLLOWERS.append(pools_follow_palette)
