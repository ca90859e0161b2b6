"""The scene's pages, which ``config/urls.py`` includes."""

from django.urls import path

from . import handouts, views

CAMPAIGN = "campaigns/<id:campaign_id>/"

urlpatterns = [
    path(
        CAMPAIGN + "pictures/<id:picture_id>/<str:digest>/",
        views.picture,
        name="scene_picture",
    ),
]

# The GM's handouts (scene/handouts.py): every member's list, the GM's form, its writes.
urlpatterns += [
    path(CAMPAIGN + "handouts/", handouts.handouts, name="scene_handouts"),
    path(CAMPAIGN + "gm/handouts/", handouts.handouts_gm, name="scene_handouts_gm"),
    path(CAMPAIGN + "gm/handouts/share/", handouts.handout_share, name="scene_handout_share"),
    path(
        CAMPAIGN + "gm/handouts/<id:handout_id>/delete/",
        handouts.handout_delete,
        name="scene_handout_delete",
    ),
]
