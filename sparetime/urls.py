"""Sparetime's pages, which ``config/urls.py`` includes. They are a Pool campaign's only: every
view is given ``system``, Pool's key, which it passes to ``campaign_for`` (404 in a campaign of
another system)."""

from django.urls import include, path

from rolls.systems.pool.models import KEY

from . import views

pages = [
    path(
        "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/",
        views.character_sparetime,
        name="character_sparetime",
    ),
    path(
        "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/spend/",
        views.sparetime_spend,
        name="sparetime_spend",
    ),
    path(
        "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/build/",
        views.sparetime_build,
        name="sparetime_build",
    ),
    path(
        "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/raise/",
        views.sparetime_raise,
        name="sparetime_raise",
    ),
    path(
        "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/undo/",
        views.sparetime_undo,
        name="sparetime_undo",
    ),
    path("campaigns/<id:campaign_id>/gm/sparetime/", views.gm_sparetime, name="gm_sparetime"),
    path(
        "campaigns/<id:campaign_id>/gm/sparetime/reversal/",
        views.sparetime_reversal,
        name="sparetime_reversal",
    ),
    path(
        "campaigns/<id:campaign_id>/gm/sparetime/reverse/",
        views.sparetime_reverse,
        name="sparetime_reverse",
    ),
    path(
        "campaigns/<id:campaign_id>/gm/sparetime/grant/",
        views.sparetime_grant,
        name="sparetime_grant",
    ),
    path(
        "campaigns/<id:campaign_id>/gm/sparetime/award/",
        views.sparetime_award,
        name="sparetime_award",
    ),
    path(
        "campaigns/<id:campaign_id>/gm/sparetime/delegate/",
        views.sparetime_delegate,
        name="sparetime_delegate",
    ),
    path(
        "campaigns/<id:campaign_id>/sparetime/delegation/",
        views.sparetime_delegation,
        name="sparetime_delegation",
    ),
    path(
        "campaigns/<id:campaign_id>/sparetime/handout/",
        views.sparetime_handout,
        name="sparetime_handout",
    ),
]

urlpatterns = [path("", include(pages), {"system": KEY})]
