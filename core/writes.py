"""How every app refuses, runs and answers a write.

Refuse: a service raises :class:`Refused` with a sentence for the person who asked; nothing
changes (the write's transaction rolls back, and the pushes it registered with it).

Run: a view runs the write with :func:`attempt`, one transaction. A write registers its own
pushes inside it (``core.push.push_facts``, ``room.push.push_check`` and the like:
``transaction.on_commit``), so a socket only hears of what was committed. A form whose double
submit must not write twice (a GM's grant, an ask) carries a one-time token in a hidden
:class:`OnceField` named ``once``; ``attempt(..., once_by=request.user)`` writes for the first
submit of that token only.

Answer: with the page piece the write changed (:class:`Piece`), or :func:`answer` for a form on
a page of its own. htmx gets the changed fragment (422 when refused); a plain form post (no
JavaScript) is redirected to its page, or gets that page again with the refused fragment in
place.
"""

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

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


def attempt(write, *, form=None, once_by=None):
    """Run ``write()`` in one transaction, when ``form`` (if given) is valid.

    Returns ``(True, what write returned)``, or ``(False, the refusal's sentence)``; the sentence
    is "" when the form holds the errors. ``once_by``: the user whose ``form`` carries a one-time
    token in its field ``once``; a second submit of that token writes nothing and returns
    ``(True, None)``, so that the view answers it as it answered the first."""
    if form is not None and not form.is_valid():
        return False, ""
    token = form.cleaned_data.get("once") if once_by is not None else None
    try:
        with transaction.atomic():
            if token:
                _claim(once_by, token)
            return True, write()
    except Refused as refusal:
        return False, str(refusal)
    except _Repeated:
        return True, None


def answer(request, *, ok, fragment, page, url, notice=""):
    """The answer to a write.

    ``fragment()`` renders the changed piece as HTML (or the refused form with its error);
    ``page()`` renders the whole page with the refused piece in place; ``url`` is where a plain
    form post goes once the write is done. htmx: the fragment, 200, or 422 when refused. Plain
    post: a redirect to ``url``, or the page (200) when refused. ``notice``, a sentence saying
    what was done, follows a plain post's redirect as a message (htmx shows it in the
    fragment)."""
    if request.htmx:
        return HttpResponse(fragment(), status=200 if ok else 422)
    if ok:
        if notice:
            messages.success(request, notice)
        return redirect(url)
    return page()


# Page pieces -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A section of a page that htmx fetches or swaps on its own (a GM panel section, a sheet
    section, the room's forms, a check's card), declared once so that its GET and every write
    that answers with it agree on how it looks, alone and inside its page.

    Declare it with its ``template``, its ``context`` and its ``page``; then a write's view ends
    with ``PIECE.answer(request, *found, ok=ok, **overrides)`` (``found``: what the view's access
    check found, e.g. ``(campaign,)`` or ``(campaign, character)``; ``overrides``: what the
    answer shows in the piece, e.g. the refused form and its error); a piece that has a URL of its
    own gets its GET view from ``PIECE.view()``, or answers one with ``PIECE.get(request,
    *found)``. Without htmx (no JavaScript) the piece is shown inside its whole page: a refused
    plain post must show its error where the form was, and a success goes back to that page.

    Example (``campaigns.views``, where ``panel_section`` declares the GM panel's sections)::

        MEMBERS = Piece(name="members", template="campaigns/_members.html",
                        context=_panel_context, page=panel_with, url="gm_panel")

        def member_remove(request, campaign_id, user_id):
            campaign = campaign_for(request, campaign_id, gm=True)
            membership = get_object_or_404(Membership, campaign=campaign, user_id=user_id)
            ok, refusal = attempt(lambda: services.membership_remove(membership=membership))
            return MEMBERS.answer(request, campaign, ok=ok, member_error="" if ok else refusal)
    """

    #: Its key in its page's ``replace`` (which piece of the page a refused plain post shows in
    #: its place); ``{}`` in it stands for the id of the last of ``found``, for one piece of
    #: several of a kind (``check-{}``).
    name: str
    template: str
    #: ``context(request, *found, **overrides)``: the template's context; ``overrides`` (a
    #: refused form, an error, a notice) are what a write's answer shows in it.
    context: Callable[..., dict]
    #: ``page(request, context, replace)``: the whole page, with the HTML of ``replace``
    #: (``{name: html}``) in place of the pieces it names; ``context`` is this piece's.
    page: Callable
    #: The URL name of the page a plain post goes back to; its arguments: the ids of ``found``
    #: (the first ``url_ids`` of them, when it takes fewer: a check's card goes back to the room).
    url: str
    url_ids: int | None = None
    #: ``access(request, **the URL's arguments)`` -> ``found``: the access check of the piece's
    #: own GET (``view``); None when it has no URL of its own.
    access: Callable | None = None
    #: Its GET answers the fragment alone even without htmx (a piece only htmx loads).
    fragment_only: bool = False

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
        """A write's answer (:func:`answer`) with this piece: htmx gets it (422 when refused), a
        plain post a redirect to ``url``, or the page with the refused piece in place.
        ``notice``, what was done, shows in the piece (its context's ``notice``) and after the
        redirect."""
        if notice:
            overrides["notice"] = notice
        ids = [thing.pk for thing in found][: self.url_ids]
        return answer(
            request,
            ok=ok,
            fragment=lambda: self.html(request, *found, **overrides),
            page=lambda: self._page(request, self.context(request, *found, **overrides), found),
            url=reverse(self.url, args=ids),
            notice=notice,
        )

    def view(self):
        """The piece's own GET view (as Django's ``View.as_view()``): logged in, GET only;
        ``access`` finds it (403/404 as the access check says), ``get`` answers."""

        @login_required
        @require_GET
        def view(request, **kwargs):
            return self.get(request, *self.access(request, **kwargs))

        return view
