# A Mana campaign's palette moves from a column of campaigns.Campaign to Mana's own ManaSettings
# (one row per campaign, its primary key the campaign's): every Mana campaign's palette is
# carried over, and back when unapplied (campaigns 0006, which drops the column, runs after
# this one, and is unapplied before it). A campaign of another system had the column unused: it
# is not carried, and comes back at its default.

import django.db.models.deletion
import rolls.systems.mana.models
from django.db import migrations, models


def palettes_to_settings(apps, schema_editor):
    Campaign = apps.get_model('campaigns', 'Campaign')
    ManaSettings = apps.get_model('mana', 'ManaSettings')
    db = schema_editor.connection.alias
    campaigns = Campaign.objects.using(db).filter(system='mana').values_list('id', 'palette')
    ManaSettings.objects.using(db).bulk_create(
        (ManaSettings(campaign_id=pk, palette=palette) for pk, palette in campaigns.iterator()),
        batch_size=500,
    )


def settings_to_palettes(apps, schema_editor):
    Campaign = apps.get_model('campaigns', 'Campaign')
    ManaSettings = apps.get_model('mana', 'ManaSettings')
    db = schema_editor.connection.alias
    for pk, palette in ManaSettings.objects.using(db).values_list('campaign_id', 'palette'):
        Campaign.objects.using(db).filter(pk=pk).update(palette=palette)


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0005_manaskill_moves_to_mana'),
        ('mana', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='ManaSettings',
            fields=[
                ('campaign', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='mana_settings', serialize=False, to='campaigns.campaign')),
                ('palette', models.JSONField(default=rolls.systems.mana.models.default_palette)),
            ],
            options={
                'verbose_name_plural': 'mana settings',
            },
        ),
        migrations.RunPython(palettes_to_settings, settings_to_palettes),
    ]
