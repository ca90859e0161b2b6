"""The benchmark's floors inside the app's server: what a Django write and its push cost at the
least, what an htmx POST plus Channels costs at the least, and what Channels alone costs. Only
the benchmark's servers route them (``bench/settings.py``).

- ``POST /bench/floor/django/<campaign id>/`` (the Django floor): a view as the app's writes
  are, through the whole of ``settings.MIDDLEWARE``: a logged-in member only, CSRF checked,
  one read (the viewer's membership of the campaign, as every room view reads it), one insert
  in a transaction (a form's one-time token, ``campaigns.FormToken``: the small row a write
  whose form carries one stores, ``core.writes``; a product table, so the benchmark adds no
  migration to the app), one small template render, and a group send of it to the room once
  the insert committed, which the room's own sockets forward as they forward any push.
- ``POST /bench/floor/<room>/``: a bare async view, no session, database or template: it
  group-sends the request body, as it is, to the room's floor group.
- ``ws/bench/floor/<room>/``: a bare consumer that joins the room's floor group, forwards what
  the group sends, and group-sends what its client sends (the Channels floor). It dispatches
  as the room's consumer does (``PushConsumer``), so the floors are as lean as the app there.
"""

import secrets

from channels.layers import get_channel_layer
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from campaigns.models import FormToken
from core import push
from room.consumers import PushConsumer


def django_floor_html(names, note):
    """The Django floor's push: ``note`` with ``names`` (the campaign's, the member's)."""
    campaign, member = names
    context = {"campaign": campaign, "member": member, "note": note}
    return render_to_string("bench/_floor_push.html", context)


@login_required
@require_POST
def django_floor_post(request, campaign_id):
    """The Django floor: what every write of the app pays around its own work (the middleware,
    the session and its user, CSRF, a read, a write's transaction, a render, a push)."""
    campaign = campaign_for(request, campaign_id)
    note = request.POST.get("note", "")

    def messages():
        return [{"all": django_floor_html((campaign.name, request.user.username), note)}]

    with transaction.atomic():
        FormToken.objects.create(user=request.user, token=secrets.token_urlsafe(24))
        push.send_on_commit(campaign.pk, messages)
    return HttpResponse(status=204)


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


urlpatterns = [
    path("bench/floor/<int:room>/", floor_post, name="bench_floor"),
    path("bench/floor/django/<int:campaign_id>/", django_floor_post, name="bench_floor_django"),
]
websocket_urlpatterns = [path("ws/bench/floor/<int:room>/", FloorConsumer.as_asgi())]
