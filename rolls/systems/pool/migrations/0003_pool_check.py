# What a Pool check binds (the attribute and skill its suggestion names) and proposes (a shift
# awaiting the GM, or declined, and why) moves from columns of rolls.Check to Pool's own
# PoolCheck (one row per check, its primary key the check's): every check of a Pool campaign has
# its values carried over, and back when unapplied (rolls 0007, which drops the columns, runs
# after this one, and is unapplied before it). A check of another system had the columns unused:
# it is not carried, and they come back at their defaults.

import django.db.models.deletion
from django.db import migrations, models

FIELDS = (
    'asked_attribute',
    'asked_skill',
    'attribute_id',
    'skill_id',
    'shift_d6',
    'shift_d10',
    'bonus_effect',
    'shift_declined',
    'decline_reason',
)


def checks_to_pool(apps, schema_editor):
    Check = apps.get_model('rolls', 'Check')
    PoolCheck = apps.get_model('pool', 'PoolCheck')
    db = schema_editor.connection.alias
    rows = Check.objects.using(db).filter(campaign__system='pool').values_list('id', *FIELDS)
    PoolCheck.objects.using(db).bulk_create(
        (PoolCheck(check_ref_id=pk, **dict(zip(FIELDS, values))) for pk, *values in rows.iterator()),
        batch_size=500,
    )


def pool_to_checks(apps, schema_editor):
    Check = apps.get_model('rolls', 'Check')
    PoolCheck = apps.get_model('pool', 'PoolCheck')
    db = schema_editor.connection.alias
    for pk, *values in PoolCheck.objects.using(db).values_list('check_ref_id', *FIELDS):
        Check.objects.using(db).filter(pk=pk).update(**dict(zip(FIELDS, values)))


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0002_pool_sheet'),
        ('rolls', '0006_mana_skill_moves_to_mana'),
        ('sheets', '0005_hp_moves_to_pool'),
    ]

    operations = [
        migrations.CreateModel(
            name='PoolCheck',
            fields=[
                ('check_ref', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='pool_check', serialize=False, to='rolls.check')),
                ('asked_attribute', models.CharField(blank=True, max_length=20)),
                ('asked_skill', models.CharField(blank=True, max_length=80)),
                ('shift_d6', models.PositiveIntegerField(default=0)),
                ('shift_d10', models.PositiveIntegerField(default=0)),
                ('bonus_effect', models.CharField(blank=True, max_length=200)),
                ('shift_declined', models.BooleanField(default=False)),
                ('decline_reason', models.CharField(blank=True, max_length=200)),
                ('attribute', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='sheets.rating')),
                ('skill', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='sheets.rating')),
            ],
        ),
        migrations.RunPython(checks_to_pool, pool_to_checks),
    ]
