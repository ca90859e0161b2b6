from django.apps import AppConfig


class RollsConfig(AppConfig):
    name = "rolls"

    def ready(self):
        # Rolls answers the apps below it, which do not import it (pyproject.toml's contracts).
        from sheets.signals import handing_over
        from sparetime import views as sparetime_views

        from .cards import checks_follow_character
        from .views import session_award_answer

        handing_over.connect(checks_follow_character, dispatch_uid="rolls.checks_follow")
        sparetime_views.ANSWERS_FROM[sparetime_views.FROM_ROOM] = session_award_answer
