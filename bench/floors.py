"""The benchmark's floors inside the app's server: what an htmx POST plus Channels costs at the
least, and what Channels alone costs. Only the benchmark's servers route them
(``bench/settings.py``).

- ``POST /bench/floor/<room>/``: a bare async view, no session, database or template: it
  group-sends the request body, as it is, to the room's floor group.
- ``ws/bench/floor/<room>/``: a bare consumer that joins the room's floor group, forwards what
  the group sends, and group-sends what its client sends (the Channels floor). It dispatches
  as the room's consumer does (``PushConsumer``), so the floors are as lean as the app there.
"""

from channels.layers import get_channel_layer
from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from room.consumers import PushConsumer


def group_name(room):
    return f"bench_floor_{int(room)}"


@csrf_exempt
@require_POST
async def floor_post(request, room):
    await get_channel_layer().group_send(
        group_name(room), {"type": "floor.push", "text": request.body.decode()}
    )
    return HttpResponse(status=204)


class FloorConsumer(PushConsumer):
    async def connect(self):
        self.group = group_name(self.scope["url_route"]["kwargs"]["room"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        await self.channel_layer.group_send(self.group, {"type": "floor.push", "text": text_data})

    async def floor_push(self, message):
        await self.send(text_data=message["text"])


urlpatterns = [path("bench/floor/<int:room>/", floor_post, name="bench_floor")]
websocket_urlpatterns = [path("ws/bench/floor/<int:room>/", FloorConsumer.as_asgi())]
