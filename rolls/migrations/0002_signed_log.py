"""The roll log's entries are signed with the log key and every stored field is under the hash
(rolls.chain); the campaign keeps the log's head.

This migration re-chains every existing entry under that scheme, as the entries stand when it
runs, with the key it finds (ROLLROOM_LOG_KEY, else the one derived from SECRET_KEY): what a log
held before it cannot be proven by it, and verification starts from here."""

import django.utils.timezone
from django.db import migrations, models

from rolls import chain


def rechain(apps, schema_editor):
    Campaign = apps.get_model("campaigns", "Campaign")
    GameSession = apps.get_model("campaigns", "GameSession")
    LogEntry = apps.get_model("rolls", "LogEntry")
    key = chain.log_key()
    for campaign in Campaign.objects.order_by("pk").iterator():
        prev = chain.GENESIS
        for entry in LogEntry.objects.filter(campaign=campaign).order_by("seq").iterator():
            entry.prev_hash = prev
            entry.hash = chain.entry_hash(prev, chain.entry_fields(entry), key)
            LogEntry.objects.filter(pk=entry.pk).update(prev_hash=entry.prev_hash, hash=entry.hash)
            prev = entry.hash
        campaign.head_hash = prev
        campaign.log_session = (
            GameSession.objects.filter(campaign=campaign, ended_at__isnull=True).order_by("pk").first()
        )
        campaign.save(update_fields=["head_hash", "log_session"])


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0003_log_head'),
        ('rolls', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='logentry',
            name='created_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.RunPython(rechain, migrations.RunPython.noop),
    ]
