"""The ids a browser sends: in a URL (the ``<id:...>`` path converter, for every id a route names)
or in a form (``parse_id``, ``IdsChoiceField``). An id is a whole number 1..MAX_ID; anything else
names nothing, and is answered as an id of nothing: a URL with it matches no route (404, before
any login or access check, as for any path that is not there), a form field with it is refused
as an unknown choice. So no query is ever asked with a number its column cannot hold, which
would fail (SQLite's integers stop at 2**63 - 1) instead of finding nothing.
"""

from django import forms
from django.urls import register_converter

#: The biggest id: what the smallest column an id goes to holds. contrib.auth's User has a
#: 32-bit AutoField (a member's id in a URL), a session's number is a PositiveIntegerField (32-bit
#: on PostgreSQL); every other id column is 64-bit (DEFAULT_AUTO_FIELD, a log entry's seq).
#: tests/core/test_ids.py checks it against every column a URL's id goes to.
MAX_ID = 2**31 - 1


def parse_id(value):
    """``value`` (a string of ASCII digits, spaces around it allowed) as an id, or None."""
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if 0 < number <= MAX_ID else None


class IdConverter:
    """``<id:name>``: an id, 1..MAX_ID. A bigger number, 0, a sign or a letter matches no
    route. Reversing writes any number (a test may build the URL of an id that cannot be)."""

    regex = "[0-9]+"

    def to_python(self, value):
        number = parse_id(value)
        if number is None:
            raise ValueError(f"{value} is not an id")  # the resolver tries the next route
        return number

    def to_url(self, value):
        return str(value)


def register():
    """Called once, when the apps are ready (``CampaignsConfig.ready``), before any URLconf or
    websocket route is read."""
    register_converter(IdConverter, "id")


class IdsChoiceField(forms.ModelMultipleChoiceField):
    """Rows by the ids a browser sent. An id that is not one is refused as an unknown choice
    before any query: Django's ``pk__in`` query would not refuse a number its column cannot
    hold, but fail."""

    def _check_values(self, value):
        for pk in value:
            if parse_id(pk) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": pk},
                )
        return super()._check_values(value)
