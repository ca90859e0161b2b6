"""A page piece, declared once: its template, its context, the page it sits in, the URL a plain
post goes back to, and who may GET it. Its GET (what a facts push's ``hx-get`` fetches), the page
with it in place and a write's answer all come from that one declaration.

``found`` is what a view found through its app's access module (``(campaign,)`` or
``(campaign, character)``): the context function takes it after the request, and the URL named
``url`` takes the ids of it. A write's view finds it with its own (stricter) access, runs the
write with :func:`core.writes.attempt` and answers with :meth:`Piece.answer`.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET

from .writes import answer


@dataclass(frozen=True)
class Piece:
    #: Its key in the page's ``replace`` (and its element's id on the page).
    name: str
    template: str
    #: ``context(request, *found, **overrides)``: the template's context; ``overrides`` (a
    #: refused form, an error, a notice) are what a write's answer shows in it.
    context: Callable[..., dict]
    #: ``page(request, context, replace)``: the whole page, with the HTML of ``replace``
    #: (``{name: html}``) in place of the pieces it names; ``context`` is this piece's.
    page: Callable
    #: The URL name of the page a plain post goes back to; its arguments: the ids of ``found``.
    url: str
    #: ``access(request, **the URL's arguments)``: ``found``, for the piece's own GET (``view``);
    #: None when the piece has no URL of its own.
    access: Callable | None = None
    #: Its GET answers the fragment alone even without htmx (a piece only htmx loads).
    fragment_only: bool = False

    def html(self, request, *found, **overrides):
        return render_to_string(self.template, self.context(request, *found, **overrides), request)

    def _page(self, request, context):
        """The page with the piece in place; ``in_page`` tells its template (plain forms)."""
        html = render_to_string(self.template, {**context, "in_page": True}, request=request)
        return self.page(request, context, {self.name: html})

    def get(self, request, *found, **overrides):
        """The piece's GET: htmx gets the fragment, a browser without htmx the page around it."""
        context = self.context(request, *found, **overrides)
        if request.htmx or self.fragment_only:
            return render(request, self.template, context)
        return self._page(request, context)

    def answer(self, request, *found, ok, notice="", **overrides):
        """A write's answer (``core.writes.answer``): htmx gets the piece (422 when refused), a
        plain post a redirect to ``url``, or the page with the refused piece. ``notice``, what
        was done, shows in the piece (its context's ``notice``) and after the redirect."""
        if notice:
            overrides["notice"] = notice
        return answer(
            request,
            ok=ok,
            fragment=lambda: self.html(request, *found, **overrides),
            page=lambda: self._page(request, self.context(request, *found, **overrides)),
            url=reverse(self.url, args=[thing.pk for thing in found]),
            notice=notice,
        )

    def view(self):
        """The piece's own GET view: ``access`` finds it, ``get`` answers."""

        @login_required
        @require_GET
        def view(request, **kwargs):
            return self.get(request, *self.access(request, **kwargs))

        return view
