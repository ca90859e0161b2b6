from django.urls import path

from . import views

ROOM = "campaigns/<id:campaign_id>/room/"
CHECK = "campaigns/<id:campaign_id>/checks/<id:check_id>/"

urlpatterns = [
    path(ROOM, views.room, name="room"),
    path(ROOM + "log/", views.room_log, name="room_log"),
    path(ROOM + "requests/", views.room_requests, name="room_requests"),
    path(ROOM + "checks/", views.room_checks, name="room_checks"),
    path(ROOM + "log/<id:seq>/reveal/", views.roll_reveal, name="roll_reveal"),
    path(ROOM + "log/verify/", views.verify_log, name="verify_log"),
    path(ROOM + "dice/", views.dice_page, name="dice"),
    path(ROOM + "dice/reveal/", views.dice_reveal, name="dice_reveal"),
    path(ROOM + "session/start/", views.session_start, name="session_start"),
    path(ROOM + "session/end/", views.session_end, name="session_end"),
    path(ROOM + "checks/close/", views.checks_close, name="checks_close"),
    path(ROOM + "talk/", views.talk_say, name="talk_say"),
    path(ROOM + "talk/odds/", views.talk_odds, name="talk_odds"),
    path("campaigns/<id:campaign_id>/checks/ask/", views.check_ask, name="check_ask"),
    path(ROOM + "npc/roll/", views.npc_roll, name="npc_roll"),
    path(ROOM + "npc/form/", views.npc_form, name="npc_form"),
    path(ROOM + "npc/odds/", views.npc_odds, name="npc_odds"),
    path(
        ROOM + "characters/<id:character_id>/request/",
        views.check_request,
        name="check_request",
    ),
    path(
        ROOM + "characters/<id:character_id>/saved-rolls/<id:saved_id>/",
        views.saved_roll,
        name="saved_roll",
    ),
    path(ROOM + "characters/<id:character_id>/hp/", views.party_hp, name="party_hp"),
    path(CHECK + "target/", views.check_set_target, name="check_set_target"),
    path(CHECK + "roll/", views.check_roll, name="check_roll"),
    path(CHECK + "form/", views.check_form, name="check_form"),
    path(CHECK + "odds/", views.check_odds, name="check_odds"),
    path(CHECK + "shift/", views.check_answer_shift, name="check_answer_shift"),
    path(CHECK + "reattempt/", views.check_allow_reattempt, name="check_allow_reattempt"),
    path(CHECK + "cancel/", views.check_cancel, name="check_cancel"),
]
