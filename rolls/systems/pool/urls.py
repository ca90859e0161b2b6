"""The Pool system's URLs: a character's HP, ratings and skills, the GM's custom-skill approvals
(the sparetime ledger's pages are the ``sparetime`` app's own). ``config/urls.py`` includes them
giving every view ``system="pool"``, which it passes to ``campaign_for``: 404 in a campaign of
another system."""

from django.urls import path

from ..scaffold import GM, SHEET
from . import views

urlpatterns = [
    path(SHEET + "hp/", views.character_hp, name="character_hp"),
    path(SHEET + "ratings/<id:rating_id>/", views.rating_set, name="rating_set"),
    path(SHEET + "skills/take/", views.skill_take, name="skill_take"),
    path(SHEET + "skills/propose/", views.skill_propose, name="skill_propose"),
    path(GM + "approvals/", views.gm_approvals, name="gm_approvals"),
    path(GM + "approvals/<id:rating_id>/approve/", views.skill_approve, name="skill_approve"),
    path(GM + "approvals/<id:rating_id>/decline/", views.skill_decline, name="skill_decline"),
]
