"""The backups' settings (config/settings.py): where, how many, how often; each read from the
environment, and a value that is not a number, or too small, refused at start-up."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.config.test_settings import settings_of


def test_by_default_backups_go_beside_the_secret_key_ten_kept_one_a_day(tmp_path):
    s = settings_of({"DJANGO_SECRET_KEY_FILE": str(tmp_path / "data" / "secret_key")})
    assert (s.BACKUP_DIR, s.BACKUP_KEEP, s.BACKUP_HOURS) == (tmp_path / "data" / "backups", 10, 24)
    s = settings_of({"DJANGO_SECRET_KEY": "x" * 50})
    assert s.BACKUP_DIR == Path(s.BASE_DIR) / ".rollroom" / "backups"


def test_each_is_read_from_the_environment(tmp_path):
    s = settings_of(
        {
            "DJANGO_SECRET_KEY": "x" * 50,
            "ROLLROOM_BACKUP_DIR": str(tmp_path / "kept"),
            "ROLLROOM_BACKUP_KEEP": "3",
            "ROLLROOM_BACKUP_HOURS": "0.5",
        }
    )
    assert (s.BACKUP_DIR, s.BACKUP_KEEP, s.BACKUP_HOURS) == (tmp_path / "kept", 3, 0.5)
    off = settings_of({"DJANGO_SECRET_KEY": "x" * 50, "ROLLROOM_BACKUP_HOURS": "0"})
    assert off.BACKUP_HOURS == 0


@pytest.mark.parametrize(
    ("name", "value", "least"),
    [
        ("ROLLROOM_BACKUP_KEEP", "0", 1),
        ("ROLLROOM_BACKUP_KEEP", "2.5", 1),
        ("ROLLROOM_BACKUP_KEEP", "many", 1),
        ("ROLLROOM_BACKUP_HOURS", "-1", 0),
        ("ROLLROOM_BACKUP_HOURS", "nan", 0),
        ("ROLLROOM_BACKUP_HOURS", "inf", 0),
        ("ROLLROOM_BACKUP_HOURS", "daily", 0),
    ],
)
def test_a_value_that_is_no_number_or_too_small_is_refused(name, value, least):
    with pytest.raises(ImproperlyConfigured) as refused:
        settings_of({"DJANGO_SECRET_KEY": "x" * 50, name: value})
    assert str(refused.value) == f"{name}={value!r}: a number, at least {least}."
