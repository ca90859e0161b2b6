"""The campaign's model: its system's key (``Campaign.system``) holds a readable key, and the
models and their migrations agree."""

from io import StringIO

from django.core.management import call_command

from campaigns.models import Campaign
from tests.conftest import make_campaign

#: A system's key longer than the four letters the column once held (issue #44, item 2).
READABLE_KEY = "fudge-dice"


def test_the_system_column_holds_a_readable_key():
    field = Campaign._meta.get_field("system")
    assert field.max_length >= 20
    field.run_validators(READABLE_KEY)  # the form's and full_clean's length check: no error


def test_a_campaign_of_a_system_with_a_long_key_saves(gm):
    """On PostgreSQL a key longer than the column is a DataError (SQLite keeps any length)."""
    campaign = make_campaign(gm, system=READABLE_KEY, name="Fudge")
    campaign.refresh_from_db()
    assert campaign.system == READABLE_KEY


def test_the_models_need_no_new_migration(db):
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
