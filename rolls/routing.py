from django.urls import path

from .consumers import RoomConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/", RoomConsumer.as_asgi()),
]
