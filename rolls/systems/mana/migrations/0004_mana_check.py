# The skill a Mana check is for moves from a column of rolls.Check to Mana's own ManaCheck (one
# row per check, its primary key the check's): every check of a Mana campaign has its skill
# carried over, and back when unapplied (rolls 0007, which drops the column, runs after this
# one, and is unapplied before it). A check of another system had the column unused: it is not
# carried, and comes back empty.

import django.db.models.deletion
from django.db import migrations, models


def checks_to_mana(apps, schema_editor):
    Check = apps.get_model('rolls', 'Check')
    ManaCheck = apps.get_model('mana', 'ManaCheck')
    db = schema_editor.connection.alias
    rows = Check.objects.using(db).filter(campaign__system='mana').values_list('id', 'mana_skill_id')
    ManaCheck.objects.using(db).bulk_create(
        (ManaCheck(check_ref_id=pk, skill_id=skill) for pk, skill in rows.iterator()),
        batch_size=500,
    )


def mana_to_checks(apps, schema_editor):
    Check = apps.get_model('rolls', 'Check')
    ManaCheck = apps.get_model('mana', 'ManaCheck')
    db = schema_editor.connection.alias
    for pk, skill in ManaCheck.objects.using(db).values_list('check_ref_id', 'skill_id'):
        Check.objects.using(db).filter(pk=pk).update(mana_skill_id=skill)


class Migration(migrations.Migration):

    dependencies = [
        ('mana', '0003_mana_sheet'),
        ('rolls', '0006_mana_skill_moves_to_mana'),
    ]

    operations = [
        migrations.CreateModel(
            name='ManaCheck',
            fields=[
                ('check_ref', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='mana_check', serialize=False, to='rolls.check')),
                ('skill', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='mana.manaskill')),
            ],
        ),
        migrations.RunPython(checks_to_mana, mana_to_checks),
    ]
