"""The scene's pages, which ``config/urls.py`` includes."""

from django.urls import path

from . import handouts, initiative, move_views, views

CAMPAIGN = "campaigns/<id:campaign_id>/"
SCENE = CAMPAIGN + "scenes/<id:scene_id>/"

urlpatterns = [
    path(
        CAMPAIGN + "pictures/<id:picture_id>/<str:digest>/",
        views.picture,
        name="scene_picture",
    ),
    path(CAMPAIGN + "scenes/", views.scenes, name="scenes"),
    path(CAMPAIGN + "scenes/add/", views.scene_add, name="scene_add"),
    path(CAMPAIGN + "scenes/hide/", views.scene_hide, name="scene_hide"),
    path(SCENE + "grid/", views.scene_grid, name="scene_grid"),
    path(SCENE + "show/", views.scene_show, name="scene_show"),
    path(SCENE + "delete/", views.scene_delete, name="scene_delete"),
    path(SCENE + "tokens/add/", views.token_add, name="token_add"),
    path(SCENE + "tokens/<id:token_id>/remove/", views.token_remove, name="token_remove"),
    path(CAMPAIGN + "scene/card/", views.scene_card, name="scene_card"),
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

# The initiative order (scene/initiative.py).
urlpatterns += [
    path(
        "campaigns/<id:campaign_id>/initiative/",
        initiative.initiative_card,
        name="initiative_card",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/add/",
        initiative.combatant_add,
        name="combatant_add",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/<id:combatant_id>/remove/",
        initiative.combatant_remove,
        name="combatant_remove",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/<id:combatant_id>/move/",
        initiative.combatant_move,
        name="combatant_move",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/sort/",
        initiative.initiative_sort,
        name="initiative_sort",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/start/",
        initiative.initiative_start,
        name="initiative_start",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/next/",
        initiative.initiative_next,
        name="initiative_next",
    ),
    path(
        "campaigns/<id:campaign_id>/initiative/end/",
        initiative.initiative_end,
        name="initiative_end",
    ),
]

# Moving a token (scene/move_views.py, scene/moves.py).
urlpatterns += [
    path(
        "campaigns/<id:campaign_id>/scene/tokens/<id:token_id>/move/",
        move_views.token_move,
        name="token_move",
    ),
]
