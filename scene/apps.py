from django.apps import AppConfig


class SceneConfig(AppConfig):
    """The shared scene (issue #47): the campaign's maps (one shown), their tokens, the
    initiative order, and the GM's handouts; the pictures they show. A Django app on the floor
    above the room (it appends to the log and pushes through the room's consumers)."""

    name = "scene"
    label = "scene"

    def ready(self):
        # The room's cards (the initiative order, the handouts): the room, a floor below, shows
        # the cards the apps above it give it and imports none of them.
        from room.views import ROOM_CARDS

        from . import handouts, initiative

        for card in (initiative.room_card, handouts.room_card):
            if card not in ROOM_CARDS["side"]:
                ROOM_CARDS["side"].append(card)
