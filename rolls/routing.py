"""The websocket routes. Every ASGI application of the project (``config/asgi.py``,
``bench/asgi.py``) imports them: here daphne is told how to serve them
(``config/websocket_server.py``), whichever way it is started."""

from django.urls import path

from config import websocket_server

from .consumers import FactsConsumer, RoomConsumer

websocket_server.install()

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/", RoomConsumer.as_asgi()),
    path("ws/campaigns/<int:campaign_id>/facts/", FactsConsumer.as_asgi()),
]
