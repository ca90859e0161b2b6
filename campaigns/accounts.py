"""A one-time link to choose a new password, made for a user: what "Forgot your password?" mails
(Django's PasswordResetView, when settings.SENDS_MAIL) and what the host hands out when the
server sends no mail (``manage.py reset_link USERNAME``, the admin's action on users).

The link is Django's password reset link: the user's id and a token (default_token_generator)
that holds the password's hash and the last login, so it stops working once the password is set
(or the user logs in), and after settings.PASSWORD_RESET_TIMEOUT (three days)."""

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

#: How long a link works, in days (the pages and the command say so).
LINK_DAYS = settings.PASSWORD_RESET_TIMEOUT // (24 * 60 * 60)


def reset_path(user):
    """The path of a one-time link for ``user`` to choose a new password."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
