"""The CSV export gains a column beside a roll's exact chance, ``chance_decimal``: the chance
as a number a spreadsheet reads (a fraction such as ``36437687/46656000`` it reads as text).
Every entry's kept cells (``LogEntry.cells``) get the new column here, from their data, by the
function that writes them from now on (``rolls.export.cells_text``), as ``verify_rolls``
checks them; without it every entry logged before would read as altered."""

from django.db import migrations

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
        ("rolls", "0013_dice_seed_entry"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
