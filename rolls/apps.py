from django.apps import AppConfig


class RollsConfig(AppConfig):
    name = "rolls"

    def ready(self):
        # Rolls answers the apps below it, which do not import it (pyproject.toml's contracts).
        from sheets.services import HAND_OVER_FOLLOWERS

        from .push import checks_follow_character
        from .systems import register_all

        register_all()  # ROLL_SYSTEMS: the floors below read them (campaigns.systems)

        if checks_follow_character not in HAND_OVER_FOLLOWERS:
            HAND_OVER_FOLLOWERS.append(checks_follow_character)
