"""How every app refuses and answers a write.

A service refuses with :class:`Refused` (nothing changed: the write's transaction rolls back, and
the pushes registered in it with it). A view runs the write with :func:`attempt` and answers with
:func:`answer`: htmx gets the changed fragment (422 when refused); a plain form post is redirected,
or gets the whole page with the refused fragment in place.

A form whose double submit must not write twice (a GM's grant, an ask) carries a one-time token
in a hidden :class:`OnceField` named ``once``; :func:`attempt` with ``once_by`` runs its write
for the first submit of that token only.
"""

import secrets
from datetime import timedelta
from functools import partial

from django import forms
from django.contrib import messages
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from . import push

#: How long a form's one-time token is remembered: far longer than any double submit takes.
ONCE_KEPT = timedelta(days=1)


class Refused(Exception):
    """A write refused by the rules or the table's state; ``str(error)`` is a sentence for the
    person who asked."""


class OnceField(forms.CharField):
    """A form's hidden one-time token, new each time the form is shown. Optional: a post
    without it is written as any other."""

    def __init__(self, **kwargs):
        super().__init__(
            required=False,
            max_length=64,
            widget=forms.HiddenInput,
            initial=lambda: secrets.token_urlsafe(24),
            **kwargs,
        )


#: The model that keeps the one-time tokens (``user``, ``token``, ``created_at``, unique on user and
#: token): ``campaigns.models.FormToken``, given at the campaigns app's ready() (the ground floor
#: has no models and imports no app).
_tokens = None


def keep_tokens_in(model):
    """Keep the forms' one-time tokens in ``model`` (called once, at an app's ready())."""
    global _tokens
    _tokens = model


class _Repeated(Exception):
    """The form's token was used already: the write's transaction rolls back."""


def _claim(user, token):
    """Store ``user``'s form ``token``, or raise ``_Repeated`` when it is stored already (a
    concurrent first submit holds it: this waits for that one's transaction, on PostgreSQL at
    the unique index, on SQLite at the write lock)."""
    try:
        with transaction.atomic():
            _tokens.objects.create(user=user, token=token)
    except IntegrityError:
        raise _Repeated from None
    _tokens.objects.filter(user=user, created_at__lt=timezone.now() - ONCE_KEPT).delete()


def attempt(write, *, form=None, once_by=None, pushes=None, facts=None):
    """Run ``write()`` in one transaction, when ``form`` (if given) is valid.

    Returns ``(True, what write returned)``, or ``(False, the refusal's sentence)``; the sentence
    is "" when the form holds the errors. ``once_by``: the user whose ``form`` carries a one-time
    token in its field ``once``; a second submit of that token writes nothing and returns
    ``(True, None)``, so that the view answers it as it answered the first. ``pushes``:
    ``(campaign_id, messages)``, what the write pushes: once it has committed,
    ``messages(what write returned)`` renders them and ``core.push.send_rendered`` sends them
    (registered here, inside the transaction, as ``core.push.send_on_commit`` would: the
    messages' module is entered once, after the commit, and nothing calls back into the
    caller's). ``facts``: ``(campaign, characters, private)``, the characters' facts the write
    changed (``core.push.push_facts``'s), whose facts push leaves with ``pushes``' messages, in
    the same send."""
    if form is not None and not form.is_valid():
        return False, ""
    token = form.cleaned_data.get("once") if once_by is not None else None
    try:
        with transaction.atomic():
            if token:
                _claim(once_by, token)
            result = write()
            if pushes is not None:
                campaign_id, render = pushes
                rendered = partial(render, result)
                send = partial(push.send_rendered, campaign_id, rendered, facts)
                transaction.on_commit(send)
            return True, result
    except Refused as refusal:
        return False, str(refusal)
    except _Repeated:
        return True, None


def answer(request, *, ok, fragment, page, url, notice=""):
    """The answer to a write.

    ``fragment()`` renders the changed piece as HTML (or the refused form with its error), or
    returns None when the page learns of the change through its socket; ``page()`` renders the
    whole page with the refused piece in place; ``url`` is where a plain form post goes once the
    write is done. htmx: the fragment, 200 (204 without one) or 422 when refused. Plain post: a
    redirect to ``url``, or the page (200) when refused. ``notice``, a sentence saying what was
    done, follows a plain post's redirect as a message (htmx shows it in the fragment)."""
    if request.htmx:
        html = fragment()
        if html is None:
            return HttpResponse(status=204)
        return HttpResponse(html, status=200 if ok else 422)
    if ok:
        if notice:
            messages.success(request, notice)
        return redirect(url)
    return page()


def respond(request, write, *, refused, page, url, form=None, pushes=None, facts=None):
    """:func:`attempt` and :func:`answer` in one call, for a write whose change every page,
    its author's too, learns through its socket (its ``pushes``): htmx gets 204, a plain post
    a redirect to ``url``. Refused: ``refused(sentence)`` renders the refused piece (once), which
    htmx gets (422) and ``page(html)`` shows in place in the whole page. Nothing calls back into
    the caller unless the write is refused. ``facts``: as :func:`attempt`'s."""
    ok, result = attempt(write, form=form, pushes=pushes, facts=facts)
    html = None if ok else refused(result)
    return answer(request, ok=ok, fragment=lambda: html, page=lambda: page(html), url=url)
