"""``python manage.py host [[ADDRESS:]PORT]``: serve Rollroom as a GM hosts it for friends.

Brings the database up to date (``migrate``), gathers the static files that whitenoise serves
(``collectstatic``), then replaces itself with daphne listening on ADDRESS:PORT (every network
interface, port 8000, by default) with the settings' websocket limits (``daphne_limits``).
Everything else comes from the settings' defaults: DEBUG off unless DJANGO_DEBUG=1, the secret
key made on first run, the host names of DJANGO_ALLOWED_HOSTS.

It serves plain HTTP, as a table at home reaches the host by its network address; behind a
proxy that terminates HTTPS, DJANGO_SECURE=1 turns the HTTPS hardening on.
"""

import os
import shlex
import socket
import sys

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.http.request import validate_host

DEFAULT_ADDRESS = "0.0.0.0"
DEFAULT_PORT = 8000
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def parse_addrport(addrport):
    """``"8000"``, ``"127.0.0.1:8000"`` or ``"[::1]:8000"`` -> (address, port)."""
    address, _, port = addrport.rpartition(":")
    address = address.strip("[]") or DEFAULT_ADDRESS
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise CommandError(f"{addrport!r} is not a port or an address:port.")
    return address, int(port)


def network_address():
    """This computer's address on its network, as friends reach it (nothing is sent: a UDP
    socket only picks the interface of its route); None without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered
            return probe.getsockname()[0]
        except OSError:
            return None


def daphne_limits():
    """Daphne's command-line options for the settings' websocket limits
    (``DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE`` and ``_FRAME_SIZE``, config/settings.py): without
    them daphne reads frames of up to its own default, 1 MiB."""
    return [
        "--websocket-max-message-size",
        str(settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE),
        "--websocket-max-frame-size",
        str(settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE),
    ]


def command_line(argv=None):
    """The command that is running (``argv``: ``sys.argv``), as a line to paste into a shell:
    the Python that runs it (``sys.executable``: a bare ``python`` may be another one, without
    Django), the script and every argument as given (the address and port), each quoted where
    the shell needs it. ``python -m django`` shows as itself."""
    script, *arguments = sys.argv if argv is None else argv
    if os.path.basename(script) == "__main__.py":
        script = ["-m", "django"]
    else:
        script = [script]
    return shlex.join([sys.executable, *script, *arguments])


class Command(BaseCommand):
    help = (
        "Serve Rollroom for a table: migrate, collect the static files, then daphne on "
        f"{DEFAULT_ADDRESS}:{DEFAULT_PORT} (or [ADDRESS:]PORT), plain HTTP, DEBUG off."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "addrport",
            nargs="?",
            default=f"{DEFAULT_ADDRESS}:{DEFAULT_PORT}",
            help="[ADDRESS:]PORT",
        )

    def handle(self, *args, addrport, **options):
        address, port = parse_addrport(addrport)
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        self.greet(address, port, command_line())
        argv = [sys.executable, "-m", "daphne", "-b", address, "-p", str(port), *daphne_limits()]
        argv.append("config.asgi:application")
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, argv)

    def greet(self, address, port, command):
        """What the host is told: where Rollroom serves and, when friends on the network could
        not reach it, ``command`` (the command that was run, as a shell line) again with the
        network address added to DJANGO_ALLOWED_HOSTS."""
        write = self.stdout.write
        if settings.DEBUG:
            write(
                self.style.WARNING(
                    "DEBUG is on (DJANGO_DEBUG): error pages show the code and the settings. "
                    "Never let anyone else reach this server."
                )
            )
        everywhere = address in ("0.0.0.0", "::")
        here = "127.0.0.1" if everywhere or address in LOOPBACK else address
        write(self.style.SUCCESS(f"Rollroom serves http://{here}:{port}/"))
        if address in LOOPBACK:
            write("Only this computer reaches it (give 0.0.0.0:PORT to let your network in).")
        elif everywhere:
            lan = network_address()
            if lan and validate_host(lan, settings.ALLOWED_HOSTS):
                write(f"Friends on your network: http://{lan}:{port}/")
            elif lan:
                hosts = shlex.quote(",".join([*settings.ALLOWED_HOSTS, lan]))
                write(
                    f"Friends on your network would open http://{lan}:{port}/, but the server "
                    f"answers only to {', '.join(settings.ALLOWED_HOSTS)}. Let it answer to that "
                    f"address (or a name of yours) and start again:\n"
                    f"    DJANGO_ALLOWED_HOSTS={hosts} {command}"
                )
        if not settings.SECURE:
            write("Plain HTTP; for HTTPS put a proxy in front and set DJANGO_SECURE=1 (README).")
        write("Ctrl-C stops it.")
