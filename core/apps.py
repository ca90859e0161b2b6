from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The ground floor: the plumbing every app shares (writes, names, ids, throttle, pushes,
    channel layers, shared Redis). It imports no app above it (pyproject.toml's contracts)."""

    name = "core"

    def ready(self):
        from . import ids

        ids.register()  # <id:...> in every app's URLs and websocket routes
