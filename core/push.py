"""What the site pushes over websockets, and to whom: the ground floor's part, which knows no
app's models (the log's entries are pushed by ``room.push``).

A push carries HTML variants rendered once: ``all`` for everyone, ``gm`` for the GM, ``users``
for named users (by id). A push with ``all`` goes to the campaign's group and each socket picks
its variant with :func:`pick`, receiving nothing when none is meant for it, so hidden content
never leaves the server for a socket that is not entitled to it. A push without ``all`` (a
check) goes only to the groups of the GM's and the named users' sockets, so the rest of the room
does no work for it.

Every push of a write leaves through :func:`on_commit`: once the write has committed, a push
that fails (any error while rendering or sending) is logged as a warning naming the campaign
and never turns the write's answer into an error; while Redis is away the pushes are dropped
and counted instead, one warning per outage (:func:`group_send_all`). The sockets that missed
a push get it from the log when they reconnect.

A member who is removed from a campaign, or who logs out, must hear nothing more: :func:`leave`
tells that user's sockets, in every process, to close (``room.leave``).

A write that changes a character's facts (HP, ratings, mana pools, sparetime; see
:func:`push_facts`) tells the pages showing them which character changed: a "facts" push, an
HTML comment naming the character, sent to the whole room when a public fact changed, else only
to its player and the GM. Every piece of a page that shows the character's facts then renders
itself again for its viewer, through the view that renders it on the page (``static/js/site.js``).
A write that changes a player's delegation (the sparetime the GM gave them to hand out; see
:func:`push_delegation`) tells that player's pages and the GM's alone, with a facts push saying
``delegation``. A view declares both with the write it runs (:func:`with_facts`). Pages outside
the room hear these pushes alone (``room.consumers.FactsConsumer``).
"""

import asyncio
import logging
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from core.shared_redis import ERRORS, outage

logger = logging.getLogger(__name__)

#: Seconds a request's pushes may wait for Redis before they are dropped as in an outage.
SEND_TIMEOUT = 5


def group_name(campaign_id):
    return f"campaign_{int(campaign_id)}"


def gm_group_name(campaign_id):
    return f"campaign_{int(campaign_id)}_gm"


def user_group_name(campaign_id, user_id):
    """The sockets of one member in one campaign's room."""
    return f"campaign_{int(campaign_id)}_user_{int(user_id)}"


def member_group_name(user_id):
    """Every room socket of one user, in every campaign (see :func:`leave`)."""
    return f"user_{int(user_id)}"


def pick(message, *, user_id, is_gm):
    """The HTML of ``message`` meant for this viewer, or None."""
    if is_gm and message.get("gm") is not None:
        return message["gm"]
    users = message.get("users") or {}
    if str(user_id) in users:
        return users[str(user_id)]
    return message.get("all")


def send(campaign_id, *messages):
    """Push ``messages``, in order: one with an ``all`` variant to the whole room (each socket
    picks its own); any other only to the sockets it names, the GM's (``gm``) and the
    ``users``' ones. A message marked ``facts`` keeps its mark (pages outside the room hear
    nothing else).

    A message without ``all`` that follows one with it (a check's cards after its roll's
    entry) travels inside it, as one of its ``also`` parts: without that, a roll would be
    three sends from the request (the entry to the room, a card to the GM, one to the player),
    each a trip to Redis and a message for every process to receive. Each socket forwards its
    variant of every part after the entry (``RoomConsumer.room_push``); a socket with no
    variant in a part gets nothing of it."""
    sends = []
    room = None  # the last message to the whole room, which carries the next ones
    for message in messages:
        if "all" in message:
            room = dict(message)
            sends.append((group_name(campaign_id), room))
            continue
        if room is not None and not (room.get("facts") or message.get("facts")):
            part = {key: message[key] for key in ("gm", "users") if message.get(key)}
            room.setdefault("also", []).append(part)
            continue
        mark = {"facts": True} if message.get("facts") else {}
        sends.extend(
            (user_group_name(campaign_id, uid), {"all": html, **mark})
            for uid, html in (message.get("users") or {}).items()
        )
        if message.get("gm") is not None:
            sends.append((gm_group_name(campaign_id), {"all": message["gm"], **mark}))
    group_send_all(sends)


def group_send_all(sends, kind="room.push"):
    """Send each (group, message) of ``sends``, in order, as messages of type ``kind``, from the
    request's thread: one trip into the event loop for them all (:func:`send_each`).

    When Redis cannot be reached the pushes are dropped and counted, and the write that made
    them answers as usual (core/shared_redis.py: one warning per outage, and a back-off during
    which nothing is tried); its sockets replay the log when they return."""
    messages = [(group, {"type": kind, **message}) for group, message in sends]
    if not outage.available():
        outage.drop(len(messages))
        return
    sent, error = async_to_sync(send_each)(get_channel_layer(), messages)
    if error is not None:
        outage.failed(error)
        outage.drop(len(messages) - sent)
        return
    outage.succeeded()


async def send_each(layer, sends):
    """Group-send each (group, message) of ``sends`` through ``layer``, in order, until Redis
    fails: how many were sent, and the error (None: all). Without SEND_TIMEOUT a Redis that
    takes the connection and never answers held the request's thread for as long (the
    layer's connections wait for a reply without a timeout, config/settings.py)."""
    sent = 0
    try:
        async with asyncio.timeout(SEND_TIMEOUT):
            for group, message in sends:
                await layer.group_send(group, message)
                sent += 1
    except ERRORS as error:  # the in-memory layer raises none of them
        return sent, error
    return sent, None


def on_commit(campaign_id, callback):
    """Run ``callback()`` (which renders and sends pushes) once the write in progress commits;
    call inside the write's transaction. The write is done by then: a failure is logged, with
    the campaign (None: every campaign of a user), and goes no further."""

    def run():
        try:
            callback()
        except Exception:
            _failed(campaign_id)

    transaction.on_commit(run)


def send_on_commit(campaign_id, messages):
    """Send what ``messages()`` returns (:func:`send`'s messages, rendered then, outside the
    write's locks) once the write in progress commits, as :func:`on_commit` would; call inside
    the write's transaction."""
    transaction.on_commit(partial(send_rendered, campaign_id, messages))


def send_rendered(campaign_id, messages):
    """Render ``messages()`` and send them (:func:`send`); a failure is logged as
    :func:`on_commit`'s. What :func:`send_on_commit` runs after the commit."""
    try:
        send(campaign_id, *messages())
    except Exception:
        _failed(campaign_id)


def _failed(campaign_id):
    logger.warning(
        "Push to campaign %s failed after its write committed; sockets that missed it "
        "replay it from the log when they reconnect",
        campaign_id,
        exc_info=True,
    )


def leave(user_id, campaign_id=None, *, recast=False):
    """Close ``user_id``'s room sockets in ``campaign_id`` (None: in every campaign), in every
    process; each drops what it has not sent yet. ``recast``: they are still a member, in
    another role, and their page loads itself again."""
    message = {"campaign": None if campaign_id is None else int(campaign_id)}
    if recast:
        message["recast"] = True
    group_send_all([(member_group_name(user_id), message)], "room.leave")


def leave_on_commit(user_id, campaign_id=None, *, recast=False):
    """:func:`leave` once the write in progress commits (its membership change is visible)."""
    on_commit(campaign_id, lambda: leave(user_id, campaign_id, recast=recast))


# Facts: what a character's sheet shows ---------------------------------------------------------


def facts_signal(character_ids):
    """The HTML of a facts push: a comment naming the characters whose facts changed (htmx swaps
    nothing for it; ``static/js/site.js`` tells the page's pieces to render themselves again)."""
    return "<!--facts " + " ".join(str(int(i)) for i in sorted(set(character_ids))) + "-->"


def facts_message(characters, *, gm_id, private):
    """The push telling pages that ``characters``' facts changed: to the whole room, or, when
    only ``private`` facts changed (mana pools, sparetime), to each character's player (naming
    their characters alone) and to the GM."""
    characters = list(characters)
    if not characters:
        return None
    ids = [c.pk for c in characters]
    if not private:
        return {"facts": True, "all": facts_signal(ids)}
    owned = {}
    for character in characters:
        if character.owner_id != gm_id:
            owned.setdefault(str(character.owner_id), []).append(character.pk)
    users = {uid: facts_signal(cids) for uid, cids in owned.items()}
    return {"facts": True, "gm": facts_signal(ids), "users": users}


#: The word a facts push carries, instead of character ids, when a player's delegation (the
#: sparetime the GM gave them to hand out) changed: ``<!--facts delegation-->``.
DELEGATION = "delegation"


def delegation_message(player_id, *, gm_id):
    """The push telling ``player_id``'s pages and the GM's that the player's delegation changed
    (private: no other player hears it)."""
    signal = f"<!--facts {DELEGATION}-->"
    users = {} if player_id == gm_id else {str(int(player_id)): signal}
    return {"facts": True, "gm": signal, "users": users}


def push_delegation(campaign, player_id):
    """Once the write in progress commits, tell the pages of the player ``player_id`` and the
    GM's that the player's delegation changed (a delegation, a hand-out, or the reversal of
    either). Call inside the write's transaction."""
    on_commit(
        campaign.pk,
        lambda: send(campaign.pk, delegation_message(player_id, gm_id=campaign.gm_id())),
    )


def push_facts(campaign, characters, *, private=False):
    """Once the write in progress commits, tell the pages that ``characters`` (of ``campaign``;
    a list, or a queryset read then) changed: HP, a rating, a name (public) or, with
    ``private``, only their mana pools or sparetime. Call inside the write's transaction."""

    def run():
        message = facts_message(characters, gm_id=campaign.gm_id(), private=private)
        if message:
            send(campaign.pk, message)

    on_commit(campaign.pk, run)


def with_facts(write, campaign, characters=(), *, private=False, delegations=()):
    """``write`` followed, in its transaction, by the pushes of what it changed (what
    ``attempt`` runs): :func:`push_facts` of ``characters`` (``private`` or not; none: no facts
    push), then :func:`push_delegation` of each player id in ``delegations``. Each of
    ``characters``, ``private`` and ``delegations`` may be a function of what ``write()``
    returned."""

    def run():
        result = write()
        changed = characters(result) if callable(characters) else characters
        if changed:
            hidden = private(result) if callable(private) else private
            push_facts(campaign, changed, private=hidden)
        players = delegations(result) if callable(delegations) else delegations
        for player_id in players:
            push_delegation(campaign, player_id)
        return result

    return run
