from django.apps import AppConfig


class SceneConfig(AppConfig):
    """The shared scene (issue #47): the campaign's maps (one shown), their tokens, the
    initiative order, and the GM's handouts; the pictures they show. A Django app on the floor
    above the room (it appends to the log and pushes through the room's consumers)."""

    name = "scene"
    label = "scene"

    def ready(self):
        # The room's cards (the scene's map across the room; the initiative order and the
        # handouts at the side): the room, a floor below, shows the cards the apps above it give
        # it and imports none of them; without this its page shows none of them.
        from room.views import ROOM_CARDS

        from . import handouts, initiative, views

        for place, card in (
            ("wide", views.room_card),
            ("side", initiative.room_card),
            ("side", handouts.room_card),
        ):
            if card not in ROOM_CARDS[place]:
                ROOM_CARDS[place].append(card)
