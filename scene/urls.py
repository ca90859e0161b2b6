"""The scene's pages, which ``config/urls.py`` includes."""

from django.urls import path

from . import views

CAMPAIGN = "campaigns/<id:campaign_id>/"

urlpatterns = [
    path(
        CAMPAIGN + "pictures/<id:picture_id>/<str:digest>/",
        views.picture,
        name="scene_picture",
    ),
]
