"""Each log entry keeps its cells in the CSV export (``LogEntry.cells``), written with it from
now on (``rolls.export.cells_text``); the entries already logged get theirs here, from their
data, by that same function, as ``verify_rolls`` checks them."""

from django.db import migrations, models

from rolls.export import cells_text

BATCH = 2000


def fill(apps, schema_editor):
    LogEntry = apps.get_model("rolls", "LogEntry")
    batch = []
    entries = LogEntry.objects.only("pk", "kind", "visibility", "data").order_by("pk")
    for entry in entries.iterator(chunk_size=BATCH):
        data = entry.data if isinstance(entry.data, dict) else {}
        entry.cells = cells_text(entry.kind, entry.visibility, data)
        batch.append(entry)
        if len(batch) == BATCH:
            LogEntry.objects.bulk_update(batch, ["cells"])
            batch = []
    LogEntry.objects.bulk_update(batch, ["cells"])


class Migration(migrations.Migration):
    dependencies = [
        ("rolls", "0010_whispers"),
    ]

    operations = [
        migrations.AddField(
            model_name="logentry",
            name="cells",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
