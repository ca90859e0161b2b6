from django.apps import AppConfig


class ManaConfig(AppConfig):
    """Mana as a Django app (``settings.ROLL_SYSTEMS`` names it among ``INSTALLED_APPS``): its
    models (``models.py``), their admin and migrations."""

    name = "rolls.systems.mana"
    label = "mana"

    def ready(self):
        # Its skills and pools follow a palette change (campaigns.services, which does not
        # import it: pyproject.toml's contracts).
        from campaigns.services import PALETTE_FOLLOWERS

        from .services import pools_follow_palette, skills_follow_palette

        for follow in (skills_follow_palette, pools_follow_palette):
            if follow not in PALETTE_FOLLOWERS:
                PALETTE_FOLLOWERS.append(follow)
