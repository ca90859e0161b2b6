from django.apps import AppConfig


class RollsConfig(AppConfig):
    name = "rolls"

    def ready(self):
        # Rolls answers the apps below it, which do not import it (pyproject.toml's contracts).
        from .systems import register_all

        register_all()  # ROLL_SYSTEMS: the floors below read them (campaigns.systems)
