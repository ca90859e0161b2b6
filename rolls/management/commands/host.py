"""``python manage.py host [--cert FILE --key FILE] [[ADDRESS:]PORT]``: serve Rollroom as a GM
hosts it for friends.

Brings the database up to date (``migrate``), gathers the static files that whitenoise serves
(``collectstatic``), then replaces itself with daphne listening on ADDRESS:PORT (every network
interface, port 8000, by default) with the settings' websocket limits (``daphne_limits``).
Everything else comes from the settings' defaults: DEBUG off unless DJANGO_DEBUG=1, the secret
key made on first run, the host names of DJANGO_ALLOWED_HOSTS.

It serves plain HTTP, as a table at home reaches the host by its network address; behind a
proxy that terminates HTTPS, DJANGO_SECURE=1 turns the HTTPS hardening on. With ``--cert`` and
``--key`` daphne serves HTTPS and wss itself (twisted's TLS endpoint; plain HTTP sent to the
port is answered with a 400 that says to use https://: rolls/https_port.py), once the certificate is
checked (``check_certificate``), and the server runs with DJANGO_SECURE=1 and no HSTS unless
DJANGO_HSTS_SECONDS asks for it (``served_environment``).

Backups (``ROLLROOM_BACKUP_HOURS``, 24 by default; 0: none): one as it starts, before
``migrate`` (a database that was never migrated has nothing to keep), then one every that many
hours by ``manage.py backup --every`` (the backups app's), a process of its own started beside
daphne, which ends with it (``backups_beside``). Only this one process takes them, however many
requests daphne serves; several daphne processes started otherwise (systemd, README's scale-out)
take none: cron or a timer runs ``manage.py backup`` once for them.
"""

import os
import shlex
import subprocess
import sys
from datetime import UTC, datetime

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, connections
from django.http.request import validate_host

from campaigns.links import network_address
from rolls.https_port import PREFIX

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


def daphne_limits():
    """Daphne's command-line options for the settings' websocket limits
    (``DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE`` and ``_FRAME_SIZE``, config/settings.py): without
    them daphne reads frames of up to its own default, 1 MiB; and for its pings
    (``DAPHNE_PING_INTERVAL``): at its default, every 20 s, 10,000 idle sockets' pings cost a
    third of the process's idle CPU."""
    return [
        "--websocket-max-message-size",
        str(settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE),
        "--websocket-max-frame-size",
        str(settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE),
        "--ping-interval",
        str(settings.DAPHNE_PING_INTERVAL),
    ]


def read_file(path, what):
    """The bytes of the file ``path`` (``what``: "certificate" or "private key", for the
    message); a CommandError that says why it cannot be read."""
    try:
        with open(path, "rb") as file:
            return file.read()
    except FileNotFoundError:
        raise CommandError(f"The {what} file {path} does not exist.") from None
    except OSError as error:
        raise CommandError(f"The {what} file {path} cannot be read: {error.strerror}.") from None


def check_certificate(cert_path, key_path, now=None):
    """Refuse, with a CommandError of one sentence, what would make the TLS endpoint fail to
    start or browsers refuse it: a file missing or unreadable, one that holds no PEM
    certificate or no PEM private key, an encrypted key (the server cannot ask for its
    passphrase), a key that does not belong to the certificate, a certificate expired or not
    yet valid at ``now`` (the current time). Without these checks daphne would exit with a
    twisted traceback, or serve a certificate that every browser refuses. Returns the
    certificates of the file: the server's, then its issuers in a full chain file."""
    cert_pem, key_pem = read_file(cert_path, "certificate"), read_file(key_path, "private key")
    try:
        certificates = x509.load_pem_x509_certificates(cert_pem)
        certificate = certificates[0]
    except ValueError:
        raise CommandError(f"{cert_path} holds no PEM certificate.") from None
    try:
        key = serialization.load_pem_private_key(key_pem, password=None)
    except TypeError:  # cryptography: the key is encrypted and no password was given
        raise CommandError(
            f"The private key {key_path} is encrypted and the server cannot ask for its "
            f"passphrase: give it decrypted (openssl pkey -in {key_path} -out key.pem)."
        ) from None
    except (ValueError, UnsupportedAlgorithm):
        raise CommandError(f"{key_path} holds no PEM private key.") from None
    spki = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if key.public_key().public_bytes(*spki) != certificate.public_key().public_bytes(*spki):
        raise CommandError(
            f"The private key {key_path} does not belong to the certificate {cert_path}."
        )
    now = now or datetime.now(UTC)
    if now > certificate.not_valid_after_utc:
        raise CommandError(
            f"The certificate {cert_path} expired on "
            f"{certificate.not_valid_after_utc:%Y-%m-%d %H:%M} UTC."
        )
    if now < certificate.not_valid_before_utc:
        raise CommandError(
            f"The certificate {cert_path} is not valid before "
            f"{certificate.not_valid_before_utc:%Y-%m-%d %H:%M} UTC."
        )
    return certificates


def certificate_names(certificate):
    """The host names and addresses ``certificate`` is for (its subject alternative names, which
    browsers check), in its order."""
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [
        *names.get_values_for_type(x509.DNSName),
        *map(str, names.get_values_for_type(x509.IPAddress)),
    ]


def endpoint_value(value):
    """``value`` quoted for a twisted endpoint description, whose fields ``:`` separates and
    ``\\`` escapes (an IPv6 address, a path with a colon)."""
    return value.replace("\\", "\\\\").replace(":", "\\:")


def listen_options(address, port, cert=None, key=None, chain=False):
    """Daphne's command-line options to listen on ``address``:``port``: plain HTTP, or HTTPS
    and wss with the certificate ``cert`` and its private key ``key`` (daphne's ``-e``: twisted's
    ``ssl:`` endpoint as ``rollroomtls:``, which answers plain HTTP with a 400 saying to use
    https://, rolls/https_port.py). ``chain``: ``cert`` is a full chain file (the certificate, then
    its issuers, as Let's Encrypt's fullchain.pem), whose issuers are sent too."""
    if cert is None:
        return ["-b", address, "-p", str(port)]
    cert = endpoint_value(os.path.abspath(cert))
    fields = [
        f"port={port}",
        f"interface={endpoint_value(address)}",
        f"privateKey={endpoint_value(os.path.abspath(key))}",
        f"certKey={cert}",
    ]
    if chain:
        # twisted serves only the first certificate of certKey: without the issuers a client
        # that does not already hold them cannot verify it. extraCertChain takes every
        # certificate of its file, the first one again too, which clients pass over.
        fields.append(f"extraCertChain={cert}")
    return ["-e", ":".join([PREFIX, *fields])]


def served_environment(https, environ=None):
    """The environment daphne runs with (``environ``: this process's). Serving HTTPS itself,
    the server gets DJANGO_SECURE's hardening (config/settings.py: secure session and CSRF
    cookies, any plain request redirected to HTTPS) but no HSTS unless DJANGO_HSTS_SECONDS
    asks for it: a browser told to keep to HTTPS for a year could no longer reach a table that
    is served over plain HTTP again next week. DJANGO_SECURE's trust of X-Forwarded-Proto
    stays harmless: every connection is HTTPS, so the header can only make its own sender's
    request look plain (and be redirected), never a plain one look secure."""
    environ = dict(os.environ if environ is None else environ)
    if https:
        environ["DJANGO_SECURE"] = "1"
        if not environ.get("DJANGO_HSTS_SECONDS", "").strip():
            environ["DJANGO_HSTS_SECONDS"] = "0"
    return environ


def backups_beside(hours):
    """Start ``manage.py backup --every`` (the backups app's command, which this floor names
    and does not import), taking a backup every ``hours``, in a process of its own: its
    standard input is a pipe whose other end this process keeps open through the ``execve``
    into daphne, so that the backups stop when daphne ends, by a signal or a crash alike (the
    pipe closes with it)."""
    manage = str(settings.BASE_DIR / "manage.py")
    process = subprocess.Popen(
        [sys.executable, manage, "backup", "--every", str(hours * 3600)],
        stdin=subprocess.PIPE,
    )
    os.set_inheritable(process.stdin.fileno(), True)
    return process


def migrated():
    """Whether the database was migrated before (it has Django's migrations table)."""
    with connection.cursor() as cursor:
        return "django_migrations" in connection.introspection.table_names(cursor)


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
        f"{DEFAULT_ADDRESS}:{DEFAULT_PORT} (or [ADDRESS:]PORT), plain HTTP (HTTPS with --cert "
        "and --key), DEBUG off."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "addrport",
            nargs="?",
            default=f"{DEFAULT_ADDRESS}:{DEFAULT_PORT}",
            help="[ADDRESS:]PORT",
        )
        parser.add_argument(
            "--cert",
            metavar="FILE",
            help="serve HTTPS with this certificate (PEM; a full chain file too), with --key",
        )
        parser.add_argument(
            "--key", metavar="FILE", help="the certificate's private key (PEM, not encrypted)"
        )

    def handle(self, *args, addrport, cert=None, key=None, **options):
        address, port = parse_addrport(addrport)
        if (cert is None) != (key is None):
            raise CommandError("--cert and --key go together: give both for HTTPS, or neither.")
        https = cert is not None
        certificates = check_certificate(cert, key) if https else []
        if settings.BACKUP_HOURS and migrated():
            try:
                call_command("backup", stdout=self.stdout)  # before a migration changes it
            except CommandError as error:
                raise CommandError(
                    f"{error} (ROLLROOM_BACKUP_HOURS=0 serves without backups)"
                ) from None
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        names = certificate_names(certificates[0]) if https else ()
        self.greet(address, port, command_line(), "https" if https else "http", names)
        chain = len(certificates) > 1
        argv = [sys.executable, "-m", "daphne", *listen_options(address, port, cert, key, chain)]
        argv += [*daphne_limits(), "config.asgi:application"]
        # What daphne listens on, for the GM panel to tell a GM on 127.0.0.1 the address
        # players use (settings.ROLLROOM_LISTEN, campaigns/links.py).
        listen = f"[{address}]" if ":" in address else address
        os.environ["ROLLROOM_LISTEN"] = f"{listen}:{port}"
        sys.stdout.flush()
        sys.stderr.flush()
        connections.close_all()
        if settings.BACKUP_HOURS:
            backups_beside(settings.BACKUP_HOURS)
        os.execve(sys.executable, argv, served_environment(https))

    def greet(self, address, port, command, scheme="http", names=()):
        """What the host is told: where Rollroom serves and, when friends on the network could
        not reach it, ``command`` (the command that was run, as a shell line) again with the
        network address added to DJANGO_ALLOWED_HOSTS. Over HTTPS, ``names``: those its
        certificate is for, the only ones browsers trust, each added to DJANGO_ALLOWED_HOSTS
        in that line if missing there."""
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
        write(self.style.SUCCESS(f"Rollroom serves {scheme}://{here}:{port}/"))
        if address in LOOPBACK:
            write("Only this computer reaches it (give 0.0.0.0:PORT to let your network in).")
        elif everywhere:
            lan = network_address()
            if lan and validate_host(lan, settings.ALLOWED_HOSTS):
                write(f"Friends on your network: {scheme}://{lan}:{port}/")
            elif lan:
                hosts = shlex.quote(",".join([*settings.ALLOWED_HOSTS, lan]))
                write(
                    f"Friends on your network would open {scheme}://{lan}:{port}/, but the server "
                    f"answers only to {', '.join(settings.ALLOWED_HOSTS)}. Let it answer to that "
                    f"address (or a name of yours) and start again:\n"
                    f"    DJANGO_ALLOWED_HOSTS={hosts} {command}"
                )
        if names:
            shared = [n for n in names if n not in LOOPBACK and "*" not in n]
            share = f" (share {scheme}://{shared[0]}:{port}/ if it leads here)" if shared else ""
            write(f"Its certificate is for {', '.join(names)}: browsers trust those only{share}.")
            unknown = [
                n for n in names if "*" not in n and not validate_host(n, settings.ALLOWED_HOSTS)
            ]
            if unknown:
                hosts = shlex.quote(",".join([*settings.ALLOWED_HOSTS, *unknown]))
                write(
                    f"The server answers only to {', '.join(settings.ALLOWED_HOSTS)}; to answer "
                    f"to {', '.join(unknown)} too, start again with:\n"
                    f"    DJANGO_ALLOWED_HOSTS={hosts} {command}"
                )
        if settings.BACKUP_HOURS:
            hours = f"{settings.BACKUP_HOURS:g}"
            write(
                f"A backup every {hours} hours into {settings.BACKUP_DIR} (the last "
                f"{settings.BACKUP_KEEP} kept; ROLLROOM_BACKUP_HOURS=0 turns them off)."
            )
        if scheme == "http" and not settings.SECURE:
            write(
                "Plain HTTP; for HTTPS give --cert and --key, or put a proxy in front and set "
                "DJANGO_SECURE=1 (README)."
            )
        write("Ctrl-C stops it.")
