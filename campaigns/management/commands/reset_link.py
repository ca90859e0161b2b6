"""``python manage.py reset_link USERNAME [--site http://ADDRESS:PORT]``: print a one-time link
for USERNAME to choose a new password (campaigns/accounts.py), for the host to hand over when
the server sends no mail, or the user's account has no address."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaigns.accounts import LINK_DAYS, reset_path


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
            "link whole",
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
        if site:
            self.stdout.write(f"    {site.rstrip('/')}{path}")
        else:
            self.stdout.write(f"    {path}")
            self.stdout.write(
                "after the address your table opens, e.g. http://192.168.1.23:8000"
                + path
                + " (--site prints it whole)."
            )
