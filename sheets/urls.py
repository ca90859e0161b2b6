from django.urls import path

from . import views

CAMPAIGN = "campaigns/<id:campaign_id>/"
SHEET = CAMPAIGN + "characters/<id:character_id>/"
GM = CAMPAIGN + "gm/"

urlpatterns = [
    # The campaign page: its members and its party (sheets.party).
    path(CAMPAIGN, views.campaign_detail, name="campaign_detail"),
    path(CAMPAIGN + "party/", views.party, name="party"),
    path(CAMPAIGN + "characters/new/", views.character_create, name="character_create"),
    path(SHEET, views.character_detail, name="character_detail"),
    path(SHEET + "edit/", views.character_edit, name="character_edit"),
    path(SHEET + "hand-over/", views.character_hand_over, name="character_hand_over"),
    path(SHEET + "saved-rolls/", views.saved_roll_add, name="saved_roll_add"),
    path(
        SHEET + "saved-rolls/<id:saved_id>/delete/",
        views.saved_roll_delete,
        name="saved_roll_delete",
    ),
]
