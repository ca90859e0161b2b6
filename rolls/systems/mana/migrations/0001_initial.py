# Mana's own models, moved here from campaigns (ManaSkill) and sheets (ManaPool) with their
# tables (campaigns_manaskill, sheets_manapool): the models are only declared, the database keeps
# its rows as they are. Their content types move along, so that admin history and permissions
# stay attached.

import django.db.models.deletion
from django.db import migrations, models


def move_content_types(apps, schema_editor, new='mana', back=False):
    ContentType = apps.get_model('contenttypes', 'ContentType')
    db = schema_editor.connection.alias
    for old, model in (('campaigns', 'manaskill'), ('sheets', 'manapool')):
        source, target = (new, old) if back else (old, new)
        if not ContentType.objects.using(db).filter(app_label=target, model=model).exists():
            ContentType.objects.using(db).filter(app_label=source, model=model).update(
                app_label=target
            )


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, back=True)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('campaigns', '0004_alter_campaign_system'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('sheets', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ManaSkill',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=60)),
                        ('color_a', models.CharField(max_length=30)),
                        ('color_b', models.CharField(max_length=30)),
                        ('trait', models.CharField(blank=True, max_length=60)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='mana_skills', to='campaigns.campaign')),
                    ],
                    options={
                        'db_table': 'campaigns_manaskill',
                        'ordering': ['name'],
                        'constraints': [models.UniqueConstraint(fields=('campaign', 'name'), name='unique_mana_skill_name')],
                    },
                ),
                migrations.CreateModel(
                    name='ManaPool',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('color', models.CharField(max_length=30)),
                        ('current', models.PositiveIntegerField(default=0)),
                        ('maximum', models.PositiveIntegerField(default=0)),
                        ('character', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='mana', to='sheets.character')),
                    ],
                    options={
                        'db_table': 'sheets_manapool',
                        'ordering': ['id'],
                        'constraints': [models.UniqueConstraint(fields=('character', 'color'), name='unique_pool_color'), models.CheckConstraint(condition=models.Q(('current__lte', models.F('maximum'))), name='mana_current_within_max')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
