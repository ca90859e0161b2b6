"""How every app refuses and answers a write, and the page pieces it answers with.

A service refuses with :class:`Refused` (nothing changed: the write's transaction rolls back, and
the pushes registered in it with it). A view runs the write with :func:`attempt` and answers with
:func:`answer`, through the piece it answers with (:meth:`Piece.answer`): htmx gets the changed
fragment (422 when refused); a plain form post is redirected, or gets the whole page with the
refused fragment in place. A piece whose changes every page learns through its socket (a check's
card) answers a write that succeeded with nothing (:meth:`Piece.respond`: htmx 204).

A page piece is declared once (:class:`Piece`): its template, its context, the page it sits in,
the URL a plain post goes back to, and who may GET it. Its GET (what a facts push's ``hx-get``
fetches), the page with it in place and a write's answer all come from that one declaration.
``found`` is what a view found through its app's access module (``(campaign,)``,
``(campaign, character)`` or ``(campaign, check)``): the context function takes it after the
request, and the URL named ``url`` takes the ids of it. A write's view finds it with its own
(stricter) access, runs the write with :func:`attempt` and answers with :meth:`Piece.answer`.

A form whose double submit must not write twice (a GM's grant, an ask) carries a one-time token
in a hidden :class:`OnceField` named ``once``; :func:`attempt` with ``once_by`` runs its write
for the first submit of that token only.
"""

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

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


# Page pieces -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A section of a page that htmx fetches or swaps on its own, declared once."""

    #: Its key in the page's ``replace`` (and its element's id on the page); ``{}`` in it stands
    #: for the id of the last of ``found`` (one piece of several of a kind: ``check-{}``).
    name: str
    template: str
    #: ``context(request, *found, **overrides)``: the template's context; ``overrides`` (a
    #: refused form, an error, a notice) are what a write's answer shows in it.
    context: Callable[..., dict]
    #: ``page(request, context, replace)``: the whole page, with the HTML of ``replace``
    #: (``{name: html}``) in place of the pieces it names; ``context`` is this piece's.
    page: Callable
    #: The URL name of the page a plain post goes back to; its arguments: the ids of ``found``
    #: (the first ``url_ids`` of them: a check's card goes back to the room).
    url: str
    #: ``access(request, **the URL's arguments)``: ``found``, for the piece's own GET (``view``);
    #: None when the piece has no URL of its own.
    access: Callable | None = None
    #: Its GET answers the fragment alone even without htmx (a piece only htmx loads).
    fragment_only: bool = False
    #: How many of ``found``'s ids ``url`` takes (None: all of them).
    url_ids: int | None = None
    #: Every page, its writer's too, learns of its changes through its socket (a check's card):
    #: a write that succeeded answers htmx with nothing (204), a refused one with the piece.
    pushed: bool = False

    def key(self, *found):
        """Its key in its page's ``replace``: ``name``, for ``found``."""
        return self.name.format(found[-1].pk) if "{}" in self.name else self.name

    def html(self, request, *found, **overrides):
        return render_to_string(self.template, self.context(request, *found, **overrides), request)

    def _page(self, request, context, found):
        """The page with the piece in place; ``in_page`` tells its template (plain forms)."""
        html = render_to_string(self.template, {**context, "in_page": True}, request=request)
        return self.page(request, context, {self.key(*found): html})

    def get(self, request, *found, **overrides):
        """The piece's GET: htmx gets the fragment, a browser without htmx the page around it."""
        context = self.context(request, *found, **overrides)
        if request.htmx or self.fragment_only:
            return render(request, self.template, context)
        return self._page(request, context, found)

    def answer(self, request, *found, ok, notice="", **overrides):
        """A write's answer (:func:`answer`): htmx gets the piece (422 when refused; nothing,
        204, when it succeeded and the piece is ``pushed``), a plain post a redirect to ``url``,
        or the page with the refused piece. ``notice``, what was done, shows in the piece (its
        context's ``notice``) and after the redirect."""
        if notice:
            overrides["notice"] = notice
        ids = [thing.pk for thing in found][: self.url_ids]
        return answer(
            request,
            ok=ok,
            fragment=lambda: (
                None if ok and self.pushed else self.html(request, *found, **overrides)
            ),
            page=lambda: self._page(request, self.context(request, *found, **overrides), found),
            url=reverse(self.url, args=ids),
            notice=notice,
        )

    def respond(self, request, *found, write, form=None, pushes=None, facts=None, **overrides):
        """:func:`attempt` ``write`` (with ``form``, ``pushes`` and ``facts``, as it takes them)
        and :meth:`answer` with this piece: refused, it shows the refusal as ``error``, with
        ``overrides`` (a refused form). Nothing calls back into the caller's module unless the
        write is refused (a ``pushed`` piece's success renders nothing)."""
        ok, result = attempt(write, form=form, pushes=pushes, facts=facts)
        return self.answer(request, *found, ok=ok, **({} if ok else {"error": result, **overrides}))

    def view(self):
        """The piece's own GET view: ``access`` finds it, ``get`` answers."""

        @login_required
        @require_GET
        def view(request, **kwargs):
            return self.get(request, *self.access(request, **kwargs))

        return view
