"""What the room pushes, each rendered per viewer: a new log entry to the whole room, in full to
those entitled to it and as a stub to the others, with the log's new fingerprint for everyone
(each entry carries its place, ``seq`` and ``sub``); and a check's card (one context,
:func:`check_context`, and one template, ``rolls/_check.html``, for the room page, the answer
to a refused write and the push alike) to the GM and to the character's player. How pushes
travel, to whom, and after which commit is ``core.push``'s.

A page's cards change through its socket only: a write that changed a check pushes the card to
the GM and to the character's player (:func:`push_check`), each rendered for them, and answers
the request without it; so whoever acted receives the card once, like everyone else. A check that
closed (done, or cancelled by the GM) leaves the live checks: its push removes the card (the log
keeps the roll).
"""

from dataclasses import dataclass
from functools import partial

from django.template.loader import render_to_string
from django.utils.html import format_html

from core import push as core_push
from core.text import isolated
from core.writes import Refused
from rolls.forms import TargetForm
from rolls.models import PRIVATE, PUBLIC, SECRET, WHISPER, Check, LogEntry
from rolls.systems import system_of

# The log's entries ----------------------------------------------------------------------------


def render_entry(entry, *, hidden, oob=False, revealable=()):
    """The entry's HTML; ``revealable``: the numbers of the secret rolls the viewer (the GM) may
    reveal from here."""
    context = {"entry": entry, "hidden": hidden, "oob": oob, "revealable": revealable}
    return render_to_string("rolls/_log_entry.html", context)


def render_entry_for(entry, *, viewer_id, gm_id, oob=False, revealable=()):
    hidden = not entry.visible_to(viewer_id, gm_id)
    return render_entry(entry, hidden=hidden, oob=oob, revealable=revealable)


def render_fingerprint(entry):
    """The log's fingerprint once ``entry`` is its last (None: an empty log); pushed, it takes
    the place of the one the page shows. A session's start or end, or the GM's early reveal,
    commits the next dice seed (``rolls.dice``): its commitment (in the entry's data) takes the
    place of the one shown."""
    html = render_to_string("rolls/_fingerprint.html", {"entry": entry})
    if entry is not None and entry.kind in LogEntry.ANNOUNCE_DICE:
        commitment = entry.data.get("dice")
        if commitment:
            context = {"commitment": commitment}
            html += render_to_string("rolls/_dice_commitment.html", context)
    return html


def revealable_among(entries, *, viewer_id, gm_id):
    """The numbers of the secret rolls among ``entries`` that ``viewer_id`` may reveal: the GM,
    those not revealed yet (one query when there are any)."""
    if viewer_id != gm_id:
        return set()
    sealed = [e.seq for e in entries if e.visibility == SECRET and e.commitment]
    if not sealed:
        return set()
    campaign_id = entries[0].campaign_id
    return set(sealed) - LogEntry.objects.revealed(campaign_id, sealed)


def entry_message(entry):
    """The push of a new log entry: the full entry to those entitled, a stub to the others; and
    the log's new fingerprint to everyone (rendered once). A whisper goes to its sender and
    its recipient alone: every other socket sends nothing. The message names the entry's place
    (``seq``, ``sub``) and the place of the one before it (``prev_seq``, ``prev_sub``:
    ``log_append``'s ``prev_place``), each sub only when it is one: each socket sends the
    entries in the log's order (``room.consumers``)."""
    fingerprint = render_fingerprint(entry)
    revealable = {entry.seq} if entry.visibility == SECRET and entry.commitment else ()
    full = render_entry(entry, hidden=False, oob=True, revealable=revealable) + fingerprint
    # Plain numbers, a sub only when there is one: the message is copied for every socket
    # (the in-memory layer's deepcopy) or serialized (Redis), each key and value of it.
    place = {"seq": entry.seq}
    if entry.sub:
        place["sub"] = entry.sub
    prev = getattr(entry, "prev_place", None)
    if prev is not None:
        place["prev_seq"] = prev[0]
        if prev[1]:
            place["prev_sub"] = prev[1]
    if entry.visibility == PUBLIC:
        return {**place, "all": full}
    if entry.visibility == WHISPER:
        users = {str(entry.actor_id): full, str(entry.recipient_id): full}
        return {**place, "all": "", "users": users}
    stub = render_entry(entry, hidden=True, oob=True) + fingerprint
    message = {**place, "all": stub, "gm": full}
    if entry.visibility == PRIVATE:
        message["users"] = {str(entry.actor_id): full}
    return message


def push_entry(entry):
    core_push.send(entry.campaign_id, entry_message(entry))


def push_entry_on_commit(entry):
    """Push ``entry`` once the write in progress commits; call inside the write's transaction."""
    core_push.on_commit(entry.campaign_id, lambda: push_entry(entry))


# A check's card -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Viewer:
    """Who a card is rendered for."""

    user_id: int
    is_gm: bool

    @classmethod
    def of(cls, campaign):
        """The viewer of a campaign found by ``campaigns.access``."""
        return cls(campaign.viewer.user_id, campaign.viewer.is_gm)


def asks(check, viewer):
    """Whether ``check`` waits for ``viewer`` to roll: asked of a player's character and open.
    The room counts these in its tab title (``static/js/room.js``) and shows them first."""
    return (
        not viewer.is_gm
        and check.status == Check.OPEN
        and (check.character.owner_id == viewer.user_id)
    )


def check_context(
    check, viewer, *, roll_form=None, target_form=None, error="", last_roll=None, swap=None
):
    """What ``viewer`` sees of ``check``: who, what it asks (once rolled: what was asked and
    rolled), the number, the note and the status; the player's roll form while it is open (and
    why the GM declined a shift); the GM's controls. ``roll_form``/``target_form``: a
    refused form to show with its errors, with ``error`` the refusal. ``last_roll``: the check's
    latest roll, when known. ``swap`` ("new" or "update"): how a push places the card."""
    campaign = check.campaign
    system = system_of(campaign)
    is_owner = check.character.owner_id == viewer.user_id
    context = {
        "check": check,
        "campaign": campaign,
        "system": system,
        "is_gm": viewer.is_gm,
        "is_owner": is_owner,
        "swap": swap,
        "error": error,
        "asks_viewer": asks(check, viewer),
    }
    if is_owner and check.status == Check.OPEN:
        context["roll"] = system.roll_context(check, form=roll_form)
    if viewer.is_gm and check.status == Check.REQUESTED:
        context["target_form"] = target_form or TargetForm(auto_id=f"target-{check.pk}-%s")
    if check.status == Check.SHIFT:
        context["proposal"] = system.proposal(check)
    if check.status in (Check.FAILED, Check.DONE):
        last_roll = last_roll or check.rolls.order_by("-seq").first()
        context["last_roll"] = last_roll
        context["closed"] = check.status == Check.DONE and system.closed_by_gm(check, last_roll)
    else:
        last_roll = None
    # Once rolled, the card says what its roll's entry says was asked (and rolled).
    if last_roll is None or "asked" not in last_roll.data:
        context["asked"] = system.asked(check)
    return context


def render_check(check, viewer, *, request=None, **options):
    """The card as HTML; ``options`` as for :func:`check_context`."""
    context = check_context(check, viewer, **options)
    return render_to_string("rolls/_check.html", context, request=request)


def render_gone(check):
    """The push that takes a closed check's card out of the live checks."""
    return format_html('<article id="check-{}" hx-swap-oob="delete"></article>', check.pk)


def check_messages(check, entry=None, *, swap="update", owner_swap=None):
    """The pushes of a write on ``check``: ``entry`` (its new log entry, if any) to the room and
    the card of ``check`` to the GM and to its character's player; nobody else hears of a check.
    Rendered once the write has committed (``check`` holds its new state), so that no lock is
    held meanwhile. ``owner_swap``: how the player's card is placed, when not as the GM's (a
    check handed over with its character is new to its new player)."""
    gm_id = check.campaign.gm_id()
    options = {"swap": swap, "last_roll": entry}

    def card(viewer):
        if not check.is_live:
            return render_gone(check)
        return render_check(check, viewer, **options)

    message = {"gm": card(Viewer(gm_id, True))}
    owner_id = check.character.owner_id
    if owner_id not in (None, gm_id):  # None: a former member's, the GM's card alone
        options["swap"] = owner_swap or swap
        message["users"] = {str(owner_id): card(Viewer(owner_id, False))}
    return [entry_message(entry), message] if entry else [message]


def push_check(check, *, entry=None, swap="update", owner_swap=None):
    """Once the write in progress commits, push :func:`check_messages` (``core.push.send``).
    Call inside the write's transaction, after the write."""
    messages = partial(check_messages, check, entry, swap=swap, owner_swap=owner_swap)
    core_push.send_on_commit(check.campaign_id, messages)


def checks_follow_character(*, campaign, character, to):
    """A character handed over to the player ``to`` (``sheets.services.HAND_OVER_FOLLOWERS``):
    its live checks go with it, their cards pushed to the new player (and again to the GM, who
    no longer rolls them). Refused while it has a live GM-secret check, which only the GM's own
    characters roll."""
    live = Check.objects.of(campaign).filter(character=character).live()
    if any(check.visibility == SECRET for check in live):
        raise Refused(
            f"{isolated(character.name)} has a live GM-secret check: cancel it before handing "
            f"{isolated(character.name)} over."
        )
    for check in live:
        check.campaign = campaign
        check.character.owner = to
        push_check(check, owner_swap="new")
