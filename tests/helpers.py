"""Helpers shared by every test package (fixtures are in tests/conftest.py and each package's
conftest.py)."""

import ipaddress
import json
import random
import socket
import subprocess
import sys
import threading
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.apps import apps
from django.conf import settings
from django.db import connection, transaction

from core.writes import Refused
from tests.workers import worker_count, worker_number

#: Extra headers that make the test client's request an htmx request.
HTMX = {"HTTP_HX_REQUEST": "true"}

#: The statement reading a request's session: none when the process's memory caches it (one
#: process), one with several processes (REDIS_URL), which keep it in the database alone
#: (config/settings.py, docs/scaling.md "When Redis is down").
SESSION_READ = 1 if settings.SESSION_ENGINE == "django.contrib.sessions.backends.db" else 0

#: The apps whose rows a refused write must leave as they were.
OUR_APPS = ("campaigns", "sheets", "sparetime", "rolls", "scene")


def db_snapshot():
    """Every row of the project's own tables, to compare before and after a write."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for app in OUR_APPS
        for model in apps.get_app_config(app).get_models()
    }


@contextmanager
def unchanged():
    """``with unchanged(): ...`` fails if the block changed any row of the project's tables."""
    before = db_snapshot()
    yield
    assert db_snapshot() == before


@contextmanager
def raises_refused(match=None):
    """``with raises_refused(): service(...)`` expects the write to be refused (``match``: as in
    ``pytest.raises``; the block yields its excinfo), and undoes what the refused write did, as a
    view's ``attempt`` does. (A service's transaction is part of its caller's, without a
    savepoint: the test's own transaction would otherwise be left unusable.)"""
    with pytest.raises(Refused, match=match) as caught, transaction.atomic():
        yield caught


#: Where ``free_port`` takes its ports: below Linux's ephemeral range (32768-60999), from which
#: the system picks ports for connections and for servers binding port 0 (such as the browser
#: tests' live server), so that only another explicit choice could take one.
PORTS = range(20000, 32768)
#: The ports ``free_port`` has handed out in this process.
_handed_out = set()
_handing_out = threading.Lock()


def free_port():
    """A TCP port free on 127.0.0.1 (for a server a test starts there): never one it handed out
    before in this process (two asked for at once, before either is listened on, would
    otherwise be the same), and under pytest-xdist only one whose remainder by the number of
    workers is this worker's number, so that two workers are never handed the same port."""
    number, count = worker_number() or 0, worker_count()
    first = PORTS.start + (number - PORTS.start) % count  # the first port that is this worker's
    with _handing_out:
        while True:
            port = random.randrange(first, PORTS.stop, count)
            if port in _handed_out:
                continue
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue  # in use
            _handed_out.add(port)
            return port


def race(*calls):
    """Run ``calls`` in threads released together; return what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as error:  # noqa: BLE001 - the outcome is what the test checks
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def is_number(value):
    """Whether a JSON value (a benchmark's figure) is a number: an int or a float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def stop(process):
    """Stop a server process a test started: politely, then for good."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def fresh_python(code, env):
    """What ``code`` prints in a fresh Python process (not under pytest) of the project, with the
    environment ``env``; fails the test if it fails."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def in_threads(*works):
    """Run each of ``works`` in a thread of its own (its own database connection), started
    together; re-raise the first error."""
    barrier = threading.Barrier(len(works))
    errors = []

    def run(work):
        try:
            barrier.wait(timeout=30)
            work()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(work,)) for work in works]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    if errors:
        raise errors[0]


#: The names a test server's certificate is for.
SERVER_NAMES = ("localhost", "127.0.0.1")


def make_certificate(folder, name="cert", *, names=SERVER_NAMES, valid_from=None, valid_until=None):
    """A self-signed certificate for ``names`` (host names and IP addresses), written to
    ``folder`` as ``NAME.pem`` with its new private key as ``NAME.key`` (both PEM): (certificate
    path, key path). ``valid_from`` and ``valid_until``: the validity, a day either side of now
    by default. A client trusts it with ``ssl.create_default_context(cafile=certificate
    path)``."""
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = _signed(
        "Rollroom test", key, ca=True, names=names, valid_from=valid_from, valid_until=valid_until
    )
    return _written(folder, name, [certificate], key)


def make_chain(folder):
    """A certificate for 127.0.0.1 and localhost issued by an intermediate authority that a
    root authority issued, as a public one's are: (the root's certificate path, to trust; the
    full chain file ``fullchain.pem``, the certificate then the intermediate's; its key
    ``fullchain.key``)."""
    root_key, middle_key, key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    root = _signed("Rollroom test root", root_key, ca=True)
    middle = _signed("Rollroom test intermediate", middle_key, ca=True, issuer=(root, root_key))
    leaf = _signed("Rollroom test", key, names=SERVER_NAMES, issuer=(middle, middle_key))
    root_path, _ = _written(folder, "root", [root], root_key)
    return (root_path, *_written(folder, "fullchain", [leaf, middle], key))


def _signed(name, key, *, ca=False, names=(), issuer=None, valid_from=None, valid_until=None):
    """A certificate of ``key`` for ``name``, signed by ``issuer`` (its certificate and key; by
    ``key`` itself without): an authority's with ``ca``, a server's for ``names`` (a
    self-signed one is both)."""
    now = datetime.now(UTC)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    issuer_certificate, issuer_key = issuer or (None, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_certificate.subject if issuer_certificate else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid_from or now - timedelta(days=1))
        .not_valid_after(valid_until or now + timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([_general_name(n) for n in names]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


def _general_name(name):
    """A certificate's name for ``name``: an IP address or a host name."""
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def _written(folder, name, certificates, key):
    """``certificates`` written to ``folder``/NAME.pem, ``key`` to NAME.key: their paths."""
    cert_path, key_path = Path(folder) / f"{name}.pem", Path(folder) / f"{name}.key"
    pem = serialization.Encoding.PEM
    cert_path.write_bytes(b"".join(c.public_bytes(pem) for c in certificates))
    key_path.write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def all_rows():
    """Every row of every installed model, all its fields, by model label, as JSON text (to
    compare a database with another, read by another process): a many-to-many table's rows
    without their own ids, which a copy need not keep (nothing refers to them)."""
    rows = {}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.proxy or not model._meta.managed:
            continue
        fields = [field.attname for field in model._meta.concrete_fields]
        if model._meta.auto_created:
            fields.remove(model._meta.pk.attname)
        found = model._base_manager.order_by().values_list(*fields)
        rows[model._meta.label] = sorted(
            json.dumps(row, default=lambda o: o.isoformat(), sort_keys=True) for row in found
        )
    return json.dumps(rows, sort_keys=True)
