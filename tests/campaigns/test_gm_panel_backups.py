"""The GM panel tells the host's staff users when the server last backed the table up
(core/backups.py reads BACKUP_DIR); a GM who is not staff sees nothing of it."""

from datetime import UTC, datetime

import pytest

from core.backups import backup_name
from tests.campaigns.helpers import panel


@pytest.fixture
def backups(tmp_path, settings):
    settings.BACKUP_DIR = tmp_path
    return tmp_path


def test_staff_see_the_time_of_the_last_backup(as_user, pool_campaign, gm, backups):
    gm.is_staff = True
    gm.save(update_fields=["is_staff"])
    for hour in (7, 9):
        (backups / backup_name(datetime(2026, 12, 7, hour, 5, tzinfo=UTC), "sqlite")).touch()
    (backups / "rollroom-notes.txt").touch()  # not a backup
    page = as_user(gm).get(panel(pool_campaign)).content.decode()
    assert (
        '<p class="muted" id="last-backup">Last backup of this server: '
        '<time datetime="2026-12-07T09:05:00+00:00">7 Dec 2026, 09:05 UTC</time>.</p>' in page
    )


def test_staff_are_told_when_there_is_none(as_user, pool_campaign, gm, backups):
    gm.is_staff = True
    gm.save(update_fields=["is_staff"])
    page = as_user(gm).get(panel(pool_campaign)).content.decode()
    assert "No backup of this server yet (<code>manage.py backup</code>)." in page


def test_a_gm_who_is_not_staff_sees_nothing_of_backups(as_user, pool_campaign, gm, backups):
    (backups / backup_name(datetime(2026, 12, 7, 9, 5, tzinfo=UTC), "postgresql")).touch()
    page = as_user(gm).get(panel(pool_campaign)).content.decode()
    assert 'id="last-backup"' not in page and "backup" not in page.lower()


def test_players_and_outsiders_do_not_reach_the_panel_staff_or_not(
    as_user, pool_campaign, player, outsider, backups
):
    for user in (player, outsider):
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    assert as_user(player).get(panel(pool_campaign)).status_code == 403
    assert as_user(outsider).get(panel(pool_campaign)).status_code == 404
