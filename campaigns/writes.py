"""How every app refuses and answers a write.

A service refuses with :class:`Refused` (nothing changed: the write's transaction rolls back, and
the pushes registered in it with it). A view runs the write with :func:`attempt` and answers with
:func:`answer`: htmx gets the changed fragment (422 when refused); a plain form post is redirected,
or gets the whole page with the refused fragment in place.
"""

from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect


class Refused(Exception):
    """A write refused by the rules or the table's state; ``str(error)`` is a sentence for the
    person who asked."""


def attempt(write, *, form=None):
    """Run ``write()`` in one transaction, when ``form`` (if given) is valid.

    Returns ``(True, what write returned)``, or ``(False, the refusal's sentence)``; the sentence
    is "" when the form holds the errors."""
    if form is not None and not form.is_valid():
        return False, ""
    try:
        with transaction.atomic():
            return True, write()
    except Refused as refusal:
        return False, str(refusal)


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
