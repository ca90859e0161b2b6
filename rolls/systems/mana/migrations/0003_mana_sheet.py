# A Mana character's traits move from a column of sheets.Character to Mana's own ManaSheet (one
# row per character, its primary key the character's): every character of a Mana campaign has
# its traits carried over, and back when unapplied (sheets 0004, which drops the column, runs
# after this one, and is unapplied before it). A character of another system had the column
# unused: it is not carried, and comes back at its default (no traits).

import django.db.models.deletion
from django.db import migrations, models


def traits_to_sheets(apps, schema_editor):
    Character = apps.get_model('sheets', 'Character')
    ManaSheet = apps.get_model('mana', 'ManaSheet')
    db = schema_editor.connection.alias
    rows = Character.objects.using(db).filter(campaign__system='mana').values_list('id', 'traits')
    ManaSheet.objects.using(db).bulk_create(
        (ManaSheet(character_id=pk, traits=traits) for pk, traits in rows.iterator()),
        batch_size=500,
    )


def sheets_to_traits(apps, schema_editor):
    Character = apps.get_model('sheets', 'Character')
    ManaSheet = apps.get_model('mana', 'ManaSheet')
    db = schema_editor.connection.alias
    for pk, traits in ManaSheet.objects.using(db).values_list('character_id', 'traits'):
        Character.objects.using(db).filter(pk=pk).update(traits=traits)


class Migration(migrations.Migration):

    dependencies = [
        ('mana', '0002_mana_settings'),
        ('sheets', '0003_manapool_moves_to_mana'),
    ]

    operations = [
        migrations.CreateModel(
            name='ManaSheet',
            fields=[
                ('character', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='mana_sheet', serialize=False, to='sheets.character')),
                ('traits', models.JSONField(blank=True, default=list)),
            ],
        ),
        migrations.RunPython(traits_to_sheets, sheets_to_traits),
    ]
