# Rating, a Pool attribute or skill of a character, moves here from sheets with its table
# (sheets_rating): the model is only declared, the database keeps its rows as they are. The
# foreign keys to it (PoolCheck's here, the sparetime ledger's in sparetime 0004) point here in
# the state alone; sheets 0006 forgets the old model. Its content type moves along, so that admin
# history and permissions stay attached.

import django.db.models.deletion
from django.db import migrations, models


def move_content_type(apps, schema_editor, source='sheets', target='pool'):
    ContentType = apps.get_model('contenttypes', 'ContentType')
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label=target, model='rating').exists():
        ContentType.objects.using(db).filter(app_label=source, model='rating').update(
            app_label=target
        )


def move_content_type_back(apps, schema_editor):
    move_content_type(apps, schema_editor, source='pool', target='sheets')


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('pool', '0003_pool_check'),
        ('sheets', '0005_hp_moves_to_pool'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Rating',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('attribute', models.CharField(choices=[('Agility', 'Agility'), ('Combat', 'Combat'), ('Education', 'Education'), ('MagicXP', 'MagicXP'), ('Social', 'Social'), ('Strength', 'Strength'), ('Survival', 'Survival'), ('Trick', 'Trick')], max_length=20)),
                        ('skill', models.CharField(blank=True, max_length=80)),
                        ('value', models.PositiveIntegerField(default=0)),
                        ('status', models.CharField(choices=[('approved', 'Approved'), ('pending', 'Pending'), ('declined', 'Declined')], default='approved', max_length=8)),
                        ('custom', models.BooleanField(default=False)),
                        ('character', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ratings', to='sheets.character')),
                    ],
                    options={
                        'db_table': 'sheets_rating',
                        'ordering': ['attribute', 'skill'],
                        'constraints': [models.UniqueConstraint(fields=('character', 'attribute', 'skill'), name='unique_rating_per_character')],
                    },
                ),
                migrations.AlterField(
                    model_name='poolcheck',
                    name='attribute',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='pool.rating'),
                ),
                migrations.AlterField(
                    model_name='poolcheck',
                    name='skill',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='pool.rating'),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
