"""Each log entry keeps what its data says of its outcome (``LogEntry.OUTCOME``), written
with it from now on (``rolls.models.outcome_fields``); the roll entries already logged get
theirs here, from their data, by that same function: each system reads its own rolls' dice
(its ``rolled``), as ``verify_rolls`` checks them."""

from django.db import migrations, models

from rolls.models import outcome_fields

BATCH = 2000


def fill(apps, schema_editor):
    LogEntry = apps.get_model("rolls", "LogEntry")
    names = ["success", "chance", "target", "pool", "shown"]
    batch = []
    rolls = LogEntry.objects.filter(kind="roll").only("pk", "data").order_by("pk")
    for entry in rolls.iterator(chunk_size=BATCH):
        if isinstance(entry.data, dict):
            for name, value in outcome_fields("roll", entry.data).items():
                setattr(entry, name, value)
            batch.append(entry)
        if len(batch) == BATCH:
            LogEntry.objects.bulk_update(batch, names)
            batch = []
    LogEntry.objects.bulk_update(batch, names)

class Migration(migrations.Migration):

    dependencies = [
        ('rolls', '0007_check_fields_move_to_systems'),
    ]

    operations = [
        migrations.AddField(
            model_name='logentry',
            name='chance',
            field=models.TextField(blank=True, default='', editable=False),
        ),
        migrations.AddField(
            model_name='logentry',
            name='pool',
            field=models.CharField(blank=True, default='', editable=False, max_length=40),
        ),
        migrations.AddField(
            model_name='logentry',
            name='shown',
            field=models.IntegerField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='logentry',
            name='success',
            field=models.BooleanField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='logentry',
            name='target',
            field=models.IntegerField(editable=False, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
