"""The Mana system's URLs: its campaign skills, a character's traits and the GM's mana pools.
``config/urls.py`` includes them giving every view ``system="mana"``, which it passes to
``campaign_for``: 404 in a campaign of another system."""

from django.urls import path

from ..scaffold import GM, SHEET
from . import views

urlpatterns = [
    path(GM + "skills/", views.mana_skill_add, name="mana_skill_add"),
    path(GM + "skills/<id:skill_id>/", views.mana_skill_edit, name="mana_skill_edit"),
    path(
        GM + "skills/<id:skill_id>/delete/",
        views.mana_skill_delete,
        name="mana_skill_delete",
    ),
    path(SHEET + "traits/", views.character_traits, name="character_traits"),
    path(GM + "mana/", views.gm_mana, name="gm_mana"),
    path(GM + "mana/refill/", views.mana_refill_all, name="mana_refill_all"),
    path(GM + "mana/<id:character_id>/refill/", views.mana_refill_one, name="mana_refill_one"),
    path(GM + "mana/<id:character_id>/maxima/", views.mana_maxima, name="mana_maxima"),
]
