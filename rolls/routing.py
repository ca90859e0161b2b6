from django.conf import settings
from django.urls import path

from .consumers import RoomConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/", RoomConsumer.as_asgi()),
]

if settings.BENCH_FLOORS:  # the benchmark's bare consumer; never on in production
    from rolls.bench.floors import websocket_urlpatterns as bench_floor_routes

    websocket_urlpatterns += bench_floor_routes
