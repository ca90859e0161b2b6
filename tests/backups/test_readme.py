"""README's "Backups", read from the README itself: its two commands run for real (a backup of
the demo table, then its restore into a new SQLite file, each log verified
and its fingerprint printed, the same as the table's), with the README's paths moved into the
test's folder; the defaults it states are the settings'."""

import re
import shlex
from pathlib import Path

from django.conf import settings

from core.backups import backups_in
from tests.backups.conftest import manage

BASE = Path(settings.BASE_DIR)
TITLE = "## Backups"


def section():
    text = (BASE / "README.md").read_text()
    start = text.index(TITLE)
    return text[start : text.index("\n## ", start + len(TITLE))]


def commands():
    lines = section().splitlines()
    return [line[4:] for line in lines if line.startswith("    ") and line.strip()]


def run(line, tmp_path, env):
    """A command of the section, in the test's folder: ``~`` is ``tmp_path``, a relative
    SQLITE_PATH is in it, the backup file it names is the newest in its folder."""
    words = shlex.split(line.replace("~", str(tmp_path)))
    extra = dict(w.split("=", 1) for w in words if "=" in w and w[0].isupper())
    argv = [w for w in words if not ("=" in w and w[0].isupper())]
    assert argv[:2] == [".venv/bin/python", "manage.py"], line
    if "SQLITE_PATH" in extra:
        extra["SQLITE_PATH"] = str(tmp_path / extra["SQLITE_PATH"])
    if argv[2] == "restore":
        named = Path(argv[3])
        assert re.fullmatch(r"rollroom-\d{8}-\d{6}Z\.sqlite3", named.name), named
        argv[3] = str(backups_in(named.parent)[-1])
    done = manage(*argv[2:], env={**env, **extra})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_sections_commands_back_up_and_restore_the_demo_table(tmp_path):
    assert len(commands()) == 2
    env = {
        "DATABASE_URL": "",
        "SQLITE_PATH": str(tmp_path / "table.sqlite3"),
        "DJANGO_SECRET_KEY_FILE": str(tmp_path / "data" / "secret_key"),
        "ROLLROOM_LOG_KEY": "",
    }
    assert manage("seed_demo", env=env).returncode == 0
    verified = manage("verify_rolls", env=env)
    assert verified.returncode == 0

    backup, restore = commands()
    said = run(backup, tmp_path, env)
    [path] = backups_in(tmp_path / "rollroom-backups")
    assert said == f"Backed up to {path}.\n"
    assert oct(path.stat().st_mode & 0o777) == "0o600"

    said = run(restore, tmp_path, env)
    assert (tmp_path / "restored.sqlite3").is_file()
    for name in ("Demo: Blue Harbor", "Demo: The Northern Marches"):
        assert re.search(rf"“{name}”: \d+ entries, fingerprint #\d+ [0-9a-f]{{12}}\.", said), said
    assert said.splitlines()[-1] == verified.stdout.strip()  # the same logs, whole


def test_the_defaults_it_states_are_the_settings():
    text = " ".join(section().split())
    assert f"keeping the last {settings.BACKUP_KEEP} " in text
    assert settings.BACKUP_HOURS == 24 and "once a day" in text
    assert settings.BACKUP_DIR == Path(settings.SECRET_KEY_FILE).parent / "backups"
    assert "`.rollroom/backups/`" in text
