from django.apps import AppConfig


class RoomConfig(AppConfig):
    name = "room"

    def ready(self):
        # A character handed to another player takes its live checks along (or the hand-over is
        # refused): the sheets floor, below, asks its followers, and does not import the room.
        from sheets.services import HAND_OVER_FOLLOWERS

        from .push import checks_follow_character

        if checks_follow_character not in HAND_OVER_FOLLOWERS:
            HAND_OVER_FOLLOWERS.append(checks_follow_character)
