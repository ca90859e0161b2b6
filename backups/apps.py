from django.apps import AppConfig


class BackupsConfig(AppConfig):
    """The table's database copied while it is served (``manage.py backup``) and brought back
    into an empty database with its logs proven (``manage.py restore``). No models; above
    rolls, whose log check a restore runs (pyproject.toml's floors)."""

    name = "backups"
