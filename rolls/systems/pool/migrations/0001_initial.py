# A Pool campaign's settings move from columns of campaigns.Campaign (attribute_cost,
# skill_cost, hp_base, hp_per_endurance) to Pool's own PoolSettings (one row per campaign, its
# primary key the campaign's): every Pool campaign's settings are carried over, and back when
# unapplied (campaigns 0007, which drops the columns, runs after this one, and is unapplied
# before it). A campaign of another system had the columns unused: they are not carried, and
# come back at their defaults.

import django.db.models.deletion
from django.db import migrations, models

SETTINGS = ('attribute_cost', 'skill_cost', 'hp_base', 'hp_per_endurance')


def columns_to_settings(apps, schema_editor):
    Campaign = apps.get_model('campaigns', 'Campaign')
    PoolSettings = apps.get_model('pool', 'PoolSettings')
    db = schema_editor.connection.alias
    rows = Campaign.objects.using(db).filter(system='pool').values('id', *SETTINGS)
    PoolSettings.objects.using(db).bulk_create(
        (
            PoolSettings(campaign_id=row['id'], **{f: row[f] for f in SETTINGS})
            for row in rows.iterator()
        ),
        batch_size=500,
    )


def settings_to_columns(apps, schema_editor):
    Campaign = apps.get_model('campaigns', 'Campaign')
    PoolSettings = apps.get_model('pool', 'PoolSettings')
    db = schema_editor.connection.alias
    for row in PoolSettings.objects.using(db).values('campaign_id', *SETTINGS):
        Campaign.objects.using(db).filter(pk=row['campaign_id']).update(
            **{f: row[f] for f in SETTINGS}
        )


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('campaigns', '0006_palette_moves_to_mana'),
    ]

    operations = [
        migrations.CreateModel(
            name='PoolSettings',
            fields=[
                ('campaign', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='pool_settings', serialize=False, to='campaigns.campaign')),
                ('attribute_cost', models.PositiveIntegerField(default=1)),
                ('skill_cost', models.PositiveIntegerField(default=1)),
                ('hp_base', models.PositiveIntegerField(default=10)),
                ('hp_per_endurance', models.PositiveIntegerField(default=2)),
            ],
            options={
                'verbose_name_plural': 'pool settings',
            },
        ),
        migrations.RunPython(columns_to_settings, settings_to_columns),
    ]
