"""``python manage.py reset_link USERNAME [--site http://ADDRESS:PORT]``: print a one-time link
for USERNAME to choose a new password (campaigns/accounts.py), for the host to hand over when
the server sends no mail, or the user's account has no address.

The link is whole under ``--site`` or else ROLLROOM_PUBLIC_URL (campaigns/links.py). Without
either, the command cannot know the address players use (it runs beside the server, not in it):
it prints the path and says so, with this computer's network address as the example."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaigns.accounts import LINK_DAYS, reset_path
from campaigns.links import network_address


class Command(BaseCommand):
    help = (
        "Print a one-time link for USERNAME to choose a new password (it works once, within "
        f"{LINK_DAYS} days). Hand it to them yourself: nothing is mailed."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--site",
            default="",
            help="the address your table opens, e.g. http://192.168.1.23:8000, to print the "
            "link whole (default: ROLLROOM_PUBLIC_URL)",
        )

    def handle(self, *args, username, site, **options):
        users = get_user_model()
        try:
            user = users.objects.get(**{users.USERNAME_FIELD: username})
        except users.DoesNotExist:
            raise CommandError(f"There is no user {username!r}.") from None
        if not user.is_active:
            raise CommandError(f"{username!r} is not active: make them active in the admin first.")
        path = reset_path(user)
        self.stdout.write(
            f"A link for {username} to choose a new password; it works once, within "
            f"{LINK_DAYS} days:"
        )
        site = site.rstrip("/") or settings.ROLLROOM_PUBLIC_URL
        if site:
            self.stdout.write(f"    {site}{path}")
            return
        self.stdout.write(f"    {path}")
        example = f"http://{network_address() or '192.168.1.23'}:PORT"
        self.stdout.write(
            "This is only the end of the link: put the address your players open the table by "
            f"in front of it, e.g. {example}{path} (PORT: the one `manage.py host` serves on). "
            "--site ADDRESS, or ROLLROOM_PUBLIC_URL set, prints it whole."
        )
