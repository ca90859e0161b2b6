"""What a page shows of user-typed text: each string isolated from the text around it, so that
a direction mark typed into it (U+202E, right-to-left override, and the like) turns only that
string around, never the time, the name or the sentence after it.

One way, everywhere: ``{{ value|bdi }}`` in HTML (escaped, in a ``<bdi>``); ``{{ value|isolate }}``
where no markup can go (``<title>``, an attribute that becomes the tab's title or a question),
between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE. Both are builtins (config/settings.py),
so a template needs no ``{% load %}``. Script-made text (static/js/site.js,
``rollroomText.isolated``) keeps each ``<bdi>`` isolated the same way.

Text written left to right only (a left-to-right letter, and no right-to-left letter, Arabic
digit or direction mark) is drawn the same isolated or not: it goes out bare, and only text that
can turn something around carries the isolation.
"""

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeData, mark_safe

from core.text import FORMER_MEMBER, FSI, PDI, needs_isolation, unmarked

register = template.Library()


def _unmarked(value):
    """``value`` without its isolate marks (kept safe if it was)."""
    text = unmarked(str(value))
    return mark_safe(text) if isinstance(value, SafeData) else text


@register.filter
def bdi(value):
    """``value`` escaped and isolated: ``<bdi>value</bdi>``. The browser draws the element's
    isolation with the same marks: a PDI typed inside would close it early."""
    if not needs_isolation(str(value)):
        return conditional_escape(value)
    return format_html("<bdi>{}</bdi>", _unmarked(value))


@register.filter
def isolate(value):
    """``value`` as plain text between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (its
    own isolate marks dropped): for text that cannot hold markup. Still escaped where shown."""
    if not needs_isolation(str(value)):
        return value
    return f"{FSI}{_unmarked(value)}{PDI}"


@register.filter
def member(user):
    """A member's name as ``bdi`` shows it, or "a former member" where the user is gone: None (a
    row whose user deleted their account, read with ``select_related``) or "" (one the template
    could not read)."""
    if not user:
        return format_html('<span class="former">{}</span>', FORMER_MEMBER)
    return bdi(user)
