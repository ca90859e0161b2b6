"""Caddy running the production Caddyfile (deploy/Caddyfile) with ``tls internal`` on loopback:
the deployment ``bench_rolls --through-caddy`` measures, and the one the deployment tests start
(``tests.faults.Caddy`` adds the tests' ports and their skip to this class)."""

import os
import socket
import ssl
import subprocess
import time
from http.client import HTTPConnection
from pathlib import Path

from django.conf import settings

from . import server as procs

#: Caddy as Debian installs it (deploy/Caddyfile is written for it).
CADDY = "/usr/bin/caddy"
#: The site's name in a deployment on loopback: a reserved top-level domain (RFC 2606) that no
#: resolver answers, so clients map it to 127.0.0.1 themselves.
DOMAIN = "rollroom.test"


def installed():
    return os.access(CADDY, os.X_OK)


class Caddy:
    """Caddy running deploy/Caddyfile for ``domain`` with ``tls internal``, in front of
    ``upstreams`` (``host:port`` each): on 127.0.0.1 only, on ``https_port`` and ``http_port``
    (free ports by default), its admin endpoint off, its certificates and state in
    ``directory`` (its local authority's root: ``root_certificate``), pinned to ``cores`` (a
    core or a set of them; None: unpinned), ``env`` over the Caddyfile's settings. ``start()``
    returns once it answers over HTTPS; ``stop()`` ends it."""

    def __init__(
        self, directory, domain, upstreams, *, https_port=None, http_port=None, cores=None, **env
    ):
        if not installed():
            raise RuntimeError(f"{CADDY} is not installed (apt-get install caddy)")
        self.directory = Path(directory)
        self.domain = domain
        self.https_port = https_port or procs.free_port()
        self.http_port = http_port or procs.free_port()
        self.cores = cores
        self.env = {
            **os.environ,
            "HOME": str(self.directory),
            "XDG_DATA_HOME": str(self.directory / "data"),
            "XDG_CONFIG_HOME": str(self.directory / "config"),
            "ROLLROOM_DOMAIN": domain,
            "ROLLROOM_TLS": "internal",
            "ROLLROOM_UPSTREAMS": " ".join(upstreams),
            "ROLLROOM_CADDY_ADMIN": "off",
            "ROLLROOM_HTTP_PORT": str(self.http_port),
            "ROLLROOM_HTTPS_PORT": str(self.https_port),
            "ROLLROOM_BIND": "127.0.0.1",
            **env,
        }
        self.log_path = self.directory / "caddy.log"
        self.process = None

    @property
    def root_certificate(self):
        return self.directory / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"

    @property
    def intermediate_certificate(self):
        """The local authority's intermediate, which signs the site's certificate."""
        return self.root_certificate.with_name("intermediate.crt")

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def url(self, path=""):
        return f"https://{self.domain}:{self.https_port}{path}"

    def upstream_env(self):
        """The environment of a daphne process behind this Caddy, as /etc/rollroom/env sets it
        (deploy/env.example): the HTTPS hardening on, the domain the only host allowed."""
        return {
            "DJANGO_SECURE": "1",
            "DJANGO_ALLOWED_HOSTS": self.domain,
            "DJANGO_CSRF_TRUSTED_ORIGINS": self.url(),
        }

    def log(self):
        return self.log_path.read_text()

    def tail(self, lines=30):
        return procs.tail(self.log_path, lines)

    def start(self):
        self.directory.mkdir(parents=True, exist_ok=True)
        command = [CADDY, "run", "--config", "deploy/Caddyfile", "--adapter", "caddyfile"]
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                procs.pinned(command, self.cores),
                cwd=settings.BASE_DIR,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=log,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C reaches the benchmark only, which stops this
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"caddy exited with {self.process.returncode}: {self.log()}")
            if self.root_certificate.exists() and self._answers():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"caddy did not answer on {self.https_port}: {self.log()}")

    def ssl_context(self):
        """A client's TLS context trusting Caddy's local authority alone."""
        return ssl.create_default_context(cafile=str(self.root_certificate))

    def tls_socket(self, server_hostname=None, source=None):
        """A TLS connection to Caddy for ``server_hostname`` (default: the domain), verified
        against Caddy's root, from the address ``source`` (another of loopback's, 127.0.0.2:
        another visitor) or the system's choice."""
        raw = socket.create_connection(
            ("127.0.0.1", self.https_port), timeout=10, source_address=source and (source, 0)
        )
        return self.ssl_context().wrap_socket(raw, server_hostname=server_hostname or self.domain)

    def request(self, method, path, body=None, headers=None, source=None):
        """(status, headers, body) of one HTTPS request through Caddy, the Host being the
        domain unless ``headers`` says otherwise, from the address ``source`` if given."""
        connection = HTTPConnection(self.domain, self.https_port, timeout=10)
        connection.sock = self.tls_socket(source=source)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def _answers(self):
        """Whether Caddy completes a TLS handshake for the domain with its certificate."""
        try:
            self.tls_socket().close()
            return True
        except (OSError, ssl.SSLError):
            return False

    def stop(self):
        if self.process is not None:
            procs.stop(self.process, timeout=10)
            self.process = None
