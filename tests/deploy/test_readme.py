"""README's "Host a table on the internet", read from the README itself so that the two cannot
drift: every file it names exists in deploy/, and every command it shows is run here, each the
way this machine allows (``RUNNERS``): what installs into the system (packages, a user, units)
in a form that changes nothing but fails on a wrong name or file, the app's own commands for
real on a database and folders of the test's own. A command of a form no runner knows fails."""

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from tests.browser import in_ci
from tests.faults import CADDY
from tests.helpers import free_port, stop

BASE = Path(settings.BASE_DIR)
TITLE = "## Host a table on the internet"


def section(title=TITLE):
    """The README's section ``title``, up to the next."""
    text = (BASE / "README.md").read_text()
    start = text.index(title)
    end = text.index("\n## ", start + len(title))
    return text[start:end]


def commands():
    """The section's commands, in order: each line of its indented blocks, then the commands
    its sentences quote (`sudo ...`, `journalctl ...`)."""
    lines = section().splitlines()
    blocks = [line[4:] for line in lines if line.startswith("    ") and line.strip()]
    quoted = re.findall(r"`((?:sudo|journalctl) [^`]+)`", " ".join(lines))
    return blocks + quoted


def test_the_section_has_the_three_routes_with_their_costs_and_risks():
    text = section()
    for route in ("A rented server with a domain", "At home", "Friends on the same network"):
        assert f"**{route}" in text
    assert text.count("What can go wrong") == 3
    assert "EUR a month" in text and "free" in text


def test_every_file_it_links_exists():
    linked = re.findall(r"\]\((deploy/[^)]+)\)", section())
    assert set(linked) >= {
        "deploy/Caddyfile",
        "deploy/rollroom@.service",
        "deploy/env.example",
        "deploy/caddy-rollroom.conf",
    }
    for path in linked:
        assert (BASE / path).is_file(), path


# The runners ---------------------------------------------------------------------------------


def apt_install(argv, tmp_path):
    """`apt-get install` simulated: each package must be one Debian has (a fresh machine's list
    needs `apt-get update`, which the test does not run: without a list it skips)."""
    packages = [a for a in argv[2:] if not a.startswith("-")]
    known = subprocess.run(
        ["apt-cache", "policy", *packages], capture_output=True, text=True
    ).stdout
    if "Candidate: (none)" in known or not known:
        pytest.skip("apt has no package list here (apt-get update)")
    done = subprocess.run(["apt-get", "install", "--simulate", *packages], capture_output=True)
    assert done.returncode == 0, done.stderr


def sandboxed(argv, tmp_path):
    """A command that installs a file or folder: run as the current user, with /srv, /etc and
    the owner's group made the test's own (the rollroom user does not exist here)."""
    root = tmp_path / "root"
    words = []
    for word in argv:
        if word.startswith(("/srv/", "/etc/")):
            word = str(root) + word
            folder = Path(word) if word.endswith("/") else Path(word).parent
            folder.mkdir(parents=True, exist_ok=True)
        words.append(word)
    words = [w for i, w in enumerate(words) if w != "-g" and (i == 0 or words[i - 1] != "-g")]
    if words[0] == "cp":  # the checkout itself: its deploy/ folder is what the next lines need
        words = ["cp", "-r", "deploy", words[-1]]
    done = subprocess.run(words, cwd=BASE, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    target = Path(words[-1])
    assert target.exists(), target


def a_user(argv, tmp_path):
    """useradd's options as Debian's useradd reads them (its --help names each)."""
    usage = subprocess.run(["useradd", "--help"], capture_output=True, text=True).stdout
    for option in (a for a in argv if a.startswith("--")):
        assert option in usage, option


def postgres(argv, tmp_path):
    """createuser/createdb: their options as PostgreSQL's programs read them."""
    usage = subprocess.run([argv[0], "--help"], capture_output=True, text=True).stdout
    for option in (a for a in argv if a.startswith("--")):
        assert option in usage, option


def systemctl(argv, tmp_path):
    """systemctl: the units it names are the ones installed (rollroom@PORT, caddy), the verbs
    systemctl's own."""
    verbs = subprocess.run(["systemctl", "--help"], capture_output=True, text=True).stdout
    assert re.search(rf"^\s+{argv[1]}\b", verbs, re.M), argv[1]
    for unit in argv[2:]:
        if not unit.startswith("-"):
            assert re.fullmatch(r"rollroom@\d+|caddy", unit), unit


def venv(argv, tmp_path):
    done = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "v")])
    assert done.returncode == 0


def pip(argv, tmp_path):
    """pip install -r requirements.txt: the file is there, and this venv has it all."""
    assert argv[-1].endswith("/requirements.txt") and (BASE / "requirements.txt").is_file()
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "-q", "-r"]
        + [str(BASE / "requirements.txt")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def env_file(tmp_path):
    """deploy/env.example as /etc/rollroom/env, pointed at the test's own database and
    folders (plain HTTP: no proxy here)."""
    path = tmp_path / "env"
    text = (BASE / "deploy" / "env.example").read_text()
    text = re.sub(r"^(DATABASE_URL|REDIS_URL|DJANGO_SECURE)=.*$", "", text, flags=re.M)
    path.write_text(
        text + f"SQLITE_PATH={tmp_path / 'db.sqlite3'}\nDJANGO_STATIC_ROOT={tmp_path / 'static'}\n"
    )
    return path


def clean_env():
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_"))
    }


def manage_as_the_unit(argv, tmp_path):
    """The `sh -c '…'` line: migrate and collectstatic with the environment file, for real."""
    script = argv[-1].replace("/etc/rollroom/env", str(env_file(tmp_path)))
    script = script.replace("cd /srv/rollroom", f"cd {shlex.quote(str(BASE))}")
    script = script.replace(".venv/bin/python", shlex.quote(sys.executable))
    done = subprocess.run(["sh", "-c", script], env=clean_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "db.sqlite3").exists() and (tmp_path / "static").is_dir()


def journal(argv, tmp_path):
    """journalctl: its options as journalctl reads them, for a unit this layout installs."""
    usage = subprocess.run(["journalctl", "--help"], capture_output=True, text=True).stdout
    assert argv[1] == "-u" and "-u --unit" in usage
    assert re.fullmatch(r"rollroom@\d+|caddy", argv[2]), argv[2]


def edit(argv, tmp_path):
    assert argv[1] == "/etc/rollroom/env"


def host(line, tmp_path):
    """`manage.py host`, for real on a port of 127.0.0.1 (tests never listen on the network),
    with the README's DJANGO_ALLOWED_HOSTS; it answers /healthz for that name. With --cert and
    --key, a certificate the test makes."""
    words = shlex.split(line)
    env = {**clean_env(), **dict(w.split("=", 1) for w in words if "=" in w and w[0].isupper())}
    argv = [w for w in words if not ("=" in w and w[0].isupper())]
    port = free_port()
    argv[-1] = f"127.0.0.1:{port}" if ":" in argv[-1] else argv[-1]
    if argv[-1] == "host":
        argv.append(f"127.0.0.1:{port}")
    scheme = "http"
    if "--cert" in argv:
        cert, key = self_signed(tmp_path, env["DJANGO_ALLOWED_HOSTS"].split(",")[0])
        argv[argv.index("--cert") + 1], argv[argv.index("--key") + 1] = cert, key
        scheme = "https"
    argv[0] = sys.executable
    env.update(
        SQLITE_PATH=str(tmp_path / "host.sqlite3"),
        DJANGO_STATIC_ROOT=str(tmp_path / "host-static"),
        DJANGO_SECRET_KEY_FILE=str(tmp_path / "secret_key"),
    )
    log = tmp_path / "host.log"
    with open(log, "w") as out:
        process = subprocess.Popen(argv, cwd=BASE, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        name = env["DJANGO_ALLOWED_HOSTS"].split(",")[0]
        curl = ["curl", "-sk", "--resolve", f"{name}:{port}:127.0.0.1"]
        done = subprocess.run(
            [*curl, f"{scheme}://{name}:{port}/healthz"], capture_output=True, text=True
        )
        assert done.stdout == "ok", (done.stdout, log.read_text())
    finally:
        stop(process)


def self_signed(tmp_path, name):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
        + ["-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)


#: What runs each command: the first whose pattern matches the command (after `sudo` and
#: `sudo -u USER`, which only choose the user).
RUNNERS = [
    (r"apt-get install ", apt_install),
    (r"useradd ", a_user),
    (r"(cp|chown|install) ", sandboxed),
    (r"python3 -m venv ", venv),
    (r"\S+/pip install -r ", pip),
    (r"create(user|db) ", postgres),
    (r"sh -c ", manage_as_the_unit),
    (r"systemctl ", systemctl),
    (r"journalctl ", journal),
]


def without_sudo(argv):
    if argv[0] == "sudoedit":
        return argv
    if argv[0] == "sudo":
        argv = argv[1:]
        if argv[0] == "-u":
            argv = argv[2:]
    return argv


def run(line, tmp_path):
    if "manage.py host" in line:
        return host(line, tmp_path)
    argv = without_sudo(shlex.split(line))
    if argv[0] == "sudoedit":
        return edit(argv, tmp_path)
    if argv[0] == "chown":  # the rollroom user does not exist here
        return
    for pattern, runner in RUNNERS:
        if re.match(pattern, shlex.join(argv)):
            if shutil.which(argv[0]) is None and runner in (a_user, postgres, systemctl, journal):
                if in_ci():
                    pytest.fail(f"{argv[0]} is not installed")
                pytest.skip(f"{argv[0]} is not installed")
            return runner(argv, tmp_path)
    pytest.fail(f"no runner for the README's command: {line}")


@pytest.mark.parametrize("number", range(len(commands())))
def test_each_command_of_the_section_runs(number, tmp_path):
    run(commands()[number], tmp_path)


def test_a_command_without_a_runner_fails(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="no runner"):
        run("sudo rm -rf /srv/rollroom", tmp_path)


def test_caddy_reads_the_installed_caddyfile_with_the_installed_env(tmp_path):
    if not shutil.which(CADDY):
        pytest.skip("caddy is not installed")
    assert "sudo install -m 644 deploy/Caddyfile /etc/caddy/Caddyfile" in commands()
    lines = env_file(tmp_path).read_text().splitlines()
    env = dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    env = {name: value.strip('"') for name, value in env.items()}  # as systemd reads them
    done = subprocess.run(
        [CADDY, "validate", "--config", "deploy/Caddyfile", "--adapter", "caddyfile"],
        cwd=BASE,
        env={**env, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
