from django.urls import path, re_path

from .consumers import FactsConsumer, NoRouteConsumer, RoomConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<id:campaign_id>/", RoomConsumer.as_asgi()),
    path("ws/campaigns/<id:campaign_id>/facts/", FactsConsumer.as_asgi()),
]

#: After the routes: any other path is refused (config/asgi.py).
no_route = re_path("", NoRouteConsumer.as_asgi())
