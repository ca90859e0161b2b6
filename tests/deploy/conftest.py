"""The production layout with real parts (deploy/Caddyfile), for tests/deploy's tests that run
it: Debian's Caddy with `tls internal` in front of two daphne processes on PostgreSQL and Redis,
all on 127.0.0.1, the site's name (``DOMAIN``) mapped to loopback. Such a test needs PostgreSQL
and Redis (``SCALEOUT``: skipped on SQLite); under CI=true a missing Caddy fails it."""

import os
import re
import signal
import ssl
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from tests.conftest import make_campaign
from tests.faults import Caddy, start_daphne
from tests.helpers import free_port, stop

DOMAIN = "rollroom.test"
PASSWORD = "a long enough password 1"

#: The mark of a test that runs the layout: it needs PostgreSQL and Redis.
SCALEOUT = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres")
    or not os.environ.get("REDIS_URL"),
    reason="needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and REDIS_URL=redis://...",
)


class Deployment(SimpleNamespace):
    """What the ``deployment`` fixture runs: ``caddy`` in front of the daphne processes of
    ``processes``, one on each port of ``ports``, started with ``env``."""

    def upstream(self, index):
        return f"127.0.0.1:{self.ports[index]}"

    def start(self, index):
        """Start the process of ``ports[index]`` (again), with an access log in which the
        proxy's health checks show (``healthy_behind_proxy``)."""
        port = self.ports[index]
        self.processes[index] = start_daphne(port, access_log=self.access_path(index), **self.env)
        return self.processes[index]

    def access_path(self, index):
        return self.caddy.directory / f"access-{self.ports[index]}.log"

    def healthy_behind_proxy(self, index):
        """Whether Caddy's health checks see the process of ``ports[index]`` healthy: one of
        them was answered 200 by the process now running there (its access log; only Caddy asks
        /healthz), and none failed after the last that passed (Caddy's log)."""
        path = self.access_path(index)
        answered = path.exists() and '"GET /healthz" 200' in path.read_text()
        return answered and self.caddy.health_seen(self.upstream(index))

    def health_story(self, index):
        """What the process of ``ports[index]`` answered to the health checks, and what Caddy
        logged of them: for a failure's message."""
        path = self.access_path(index)
        answers = [line for line in path.read_text().splitlines() if "/healthz" in line][-5:]
        said = [line for line in self.caddy.log().splitlines() if self.upstream(index) in line]
        return "\n" + "\n".join(["answered:", *answers, "Caddy logged:", *said[-5:]])

    def terminate(self, index, timeout=10):
        """SIGTERM to a process (as systemctl restart sends), and its exit, within ``timeout``
        seconds (config/shutdown.py's promise): its return code."""
        process = self.processes[index]
        process.send_signal(signal.SIGTERM)
        return process.wait(timeout=timeout)

    def kill(self, index):
        """SIGKILL to a process: gone at once, as after a crash."""
        process = self.processes[index]
        process.kill()
        return process.wait(timeout=10)

    def ssl_context(self):
        """A TLS context that trusts Caddy's local authority alone."""
        return ssl.create_default_context(cafile=str(self.caddy.root_certificate))


def env_example(name):
    """The value deploy/env.example gives ``name``."""
    text = (settings.BASE_DIR / "deploy" / "env.example").read_text()
    return re.search(rf"^{name}=(.*)$", text, re.M).group(1)


@pytest.fixture
def deployment_env():
    """What a module's processes have in their environment besides /etc/rollroom/env's (a
    module overrides it)."""
    return {}


@pytest.fixture
def deployment(tmp_path, django_user_model, deployment_env):
    """Caddy on a free HTTPS port of 127.0.0.1 in front of two daphne processes configured as
    /etc/rollroom/env would (DJANGO_SECURE, the domain in ALLOWED_HOSTS and the CSRF origins,
    Caddy trusted for the visitor's address), with ``deployment_env``; a Pool campaign of a GM
    and a player."""
    # Hashed as the servers hash (the tests' own MD5 is not among their hashers).
    password = PBKDF2PasswordHasher().encode(PASSWORD, PBKDF2PasswordHasher().salt())
    gm = django_user_model.objects.create_user(username="gm", password=None)
    ana = django_user_model.objects.create_user(username="ana", password=None)
    django_user_model.objects.update(password=password)
    gm.refresh_from_db()
    ana.refresh_from_db()
    campaign = make_campaign(gm, system="pool", players=[ana])
    ports = [free_port(), free_port()]
    caddy = Caddy(tmp_path, DOMAIN, [f"127.0.0.1:{port}" for port in ports])
    env = {
        "DJANGO_SECURE": "1",
        "DJANGO_ALLOWED_HOSTS": DOMAIN,
        "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{DOMAIN}:{caddy.https_port}",
        "DJANGO_TRUSTED_PROXIES": env_example("DJANGO_TRUSTED_PROXIES"),
        "REDIS_URL": os.environ["REDIS_URL"],
        **deployment_env,
    }
    layout = Deployment(
        caddy=caddy, ports=ports, processes=[None, None], env=env, campaign=campaign, gm=gm, ana=ana
    )
    try:
        for index in range(len(ports)):
            layout.start(index)
        caddy.start()
        yield layout
    finally:
        caddy.stop()
        for process in layout.processes:
            if process is not None:
                stop(process)
