"""The websocket routes. Every ASGI application of the project (``config/asgi.py``,
``bench/asgi.py``) imports them: here daphne is told how to serve them
(``config/websocket_server.py``), whichever way it is started."""

from django.urls import path, re_path

from rolls.consumers import FactsConsumer, NoRouteConsumer, RoomConsumer

from . import websocket_server

websocket_server.install()

websocket_urlpatterns = [
    path("ws/campaigns/<id:campaign_id>/", RoomConsumer.as_asgi()),
    path("ws/campaigns/<id:campaign_id>/facts/", FactsConsumer.as_asgi()),
]

#: After the routes: any other path is refused (config/asgi.py).
no_route = re_path("", NoRouteConsumer.as_asgi())
