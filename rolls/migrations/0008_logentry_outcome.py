"""Each log entry keeps what its data says of its outcome (``LogEntry.OUTCOME``), written
with it from now on (``rolls.models.outcome_fields``); the roll entries already logged get
theirs here, from their data, as Mana and Pool read their dice when this was written."""

from django.db import migrations, models

BATCH = 2000


def rolled(data):
    """``rolled(data)`` of the Mana and Pool systems when this migration was written."""
    if data.get("system") == "mana":
        dice, shown = data.get("dice"), data.get("successes")
        return (str(dice), shown) if dice and shown is not None else None
    if data.get("system") == "pool" and data.get("highest") is not None:
        d6, d10 = len(data.get("d6") or ()), len(data.get("d10") or ())
        return f"{d6}+{d10}", data["highest"]
    return None


def outcome(data):
    pool, shown = rolled(data) or ("", None)
    success, target = data.get("success"), data.get("target")
    return {
        "success": None if success is None else bool(success),
        "chance": str(data.get("chance", "")),
        "target": target if type(target) is int else None,
        "pool": pool,
        "shown": shown,
    }


def fill(apps, schema_editor):
    LogEntry = apps.get_model("rolls", "LogEntry")
    names = ["success", "chance", "target", "pool", "shown"]
    batch = []
    rolls = LogEntry.objects.filter(kind="roll").only("pk", "data").order_by("pk")
    for entry in rolls.iterator(chunk_size=BATCH):
        if isinstance(entry.data, dict):
            for name, value in outcome(entry.data).items():
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
