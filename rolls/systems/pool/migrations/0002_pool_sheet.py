# A Pool character's current HP moves from a column of sheets.Character to Pool's own PoolSheet
# (one row per character, its primary key the character's): every character of a Pool campaign
# has its HP carried over, and back when unapplied (sheets 0005, which drops the column, runs
# after this one, and is unapplied before it). A character of another system had the column
# unused: it is not carried, and comes back at its default (0).

import django.db.models.deletion
from django.db import migrations, models


def hp_to_sheets(apps, schema_editor):
    Character = apps.get_model('sheets', 'Character')
    PoolSheet = apps.get_model('pool', 'PoolSheet')
    db = schema_editor.connection.alias
    rows = Character.objects.using(db).filter(campaign__system='pool').values_list('id', 'hp_current')
    PoolSheet.objects.using(db).bulk_create(
        (PoolSheet(character_id=pk, hp_current=hp) for pk, hp in rows.iterator()),
        batch_size=500,
    )


def sheets_to_hp(apps, schema_editor):
    Character = apps.get_model('sheets', 'Character')
    PoolSheet = apps.get_model('pool', 'PoolSheet')
    db = schema_editor.connection.alias
    for pk, hp in PoolSheet.objects.using(db).values_list('character_id', 'hp_current'):
        Character.objects.using(db).filter(pk=pk).update(hp_current=hp)


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0001_initial'),
        ('sheets', '0004_traits_move_to_mana'),
    ]

    operations = [
        migrations.CreateModel(
            name='PoolSheet',
            fields=[
                ('character', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='pool_sheet', serialize=False, to='sheets.character')),
                ('hp_current', models.IntegerField(default=0)),
            ],
        ),
        migrations.RunPython(hp_to_sheets, sheets_to_hp),
    ]
