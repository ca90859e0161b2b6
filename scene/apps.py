from django.apps import AppConfig


class SceneConfig(AppConfig):
    """The shared scene (issue #47): the campaign's maps (one shown), their tokens, the
    initiative order, and the GM's handouts; the pictures they show. A Django app on the floor
    above the room (it appends to the log and pushes through the room's consumers)."""

    name = "scene"
    label = "scene"
