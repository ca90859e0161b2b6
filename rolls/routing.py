from django.urls import path

from .consumers import FactsConsumer, RoomConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/", RoomConsumer.as_asgi()),
    path("ws/campaigns/<int:campaign_id>/facts/", FactsConsumer.as_asgi()),
]
