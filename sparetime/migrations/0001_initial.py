# The sparetime ledger, moved here from the sheets app with its tables (sheets_sparetimeentry and
# sheets_sparetimeentry_targets): the model is only declared, the database keeps its rows as they
# are. Its content type moves along, so that admin history and permissions stay attached.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def move_content_type(apps, schema_editor, old='sheets', new='sparetime'):
    ContentType = apps.get_model('contenttypes', 'ContentType')
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label=new, model='sparetimeentry').exists():
        ContentType.objects.using(db).filter(app_label=old, model='sparetimeentry').update(
            app_label=new
        )


def move_content_type_back(apps, schema_editor):
    move_content_type(apps, schema_editor, old='sparetime', new='sheets')


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('campaigns', '0001_initial'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('sheets', '0002_sparetimeentry_moves_to_sparetime'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='SparetimeEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('grant', 'Starting grant'), ('award', 'Session award'), ('delegate', 'Delegation'), ('handout', 'Hand-out'), ('spend', 'Spend')], max_length=8)),
                        ('amount', models.IntegerField()),
                        ('from_value', models.PositiveIntegerField(blank=True, null=True)),
                        ('to_value', models.PositiveIntegerField(blank=True, null=True)),
                        ('note', models.CharField(blank=True, max_length=200)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sparetime', to='campaigns.campaign')),
                        ('character', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='sparetime', to='sheets.character')),
                        ('created_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='delegated_sparetime', to=settings.AUTH_USER_MODEL)),
                        ('rating', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='spends', to='sheets.rating')),
                        ('session', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='campaigns.gamesession')),
                        ('source', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='spends', to='sparetime.sparetimeentry')),
                        ('targets', models.ManyToManyField(blank=True, related_name='earmarks', to='sheets.rating')),
                    ],
                    options={
                        'verbose_name_plural': 'sparetime entries',
                        'db_table': 'sheets_sparetimeentry',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
