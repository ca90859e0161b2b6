"""The log's pushes: a new entry goes to the whole room through ``core.push.send``, in full to
those entitled to it and as a stub to the others, with the log's new fingerprint for everyone
(each entry carries its ``seq``). How pushes travel, to whom, and after which commit is
``core.push``'s."""

from django.template.loader import render_to_string

from core import push as core_push

from .models import PRIVATE, PUBLIC, SECRET, LogEntry


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
    the place of the one the page shows."""
    return render_to_string("rolls/_fingerprint.html", {"entry": entry})


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
    the log's new fingerprint to everyone (rendered once)."""
    fingerprint = render_fingerprint(entry)
    revealable = {entry.seq} if entry.visibility == SECRET and entry.commitment else ()
    full = render_entry(entry, hidden=False, oob=True, revealable=revealable) + fingerprint
    if entry.visibility == PUBLIC:
        return {"seq": entry.seq, "all": full}
    stub = render_entry(entry, hidden=True, oob=True) + fingerprint
    message = {"seq": entry.seq, "all": stub, "gm": full}
    if entry.visibility == PRIVATE:
        message["users"] = {str(entry.actor_id): full}
    return message


def push_entry(entry):
    core_push.send(entry.campaign_id, entry_message(entry))


def push_entry_on_commit(entry):
    """Push ``entry`` once the write in progress commits; call inside the write's transaction."""
    core_push.on_commit(entry.campaign_id, lambda: push_entry(entry))
