"""Saved rolls (#47 item 6): a character's named rolls, a notation or a check's choices."""

import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('sheets', '0007_character_owner_may_leave'),
    ]

    operations = [
        migrations.CreateModel(
            name='SavedRoll',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=40)),
                ('notation', models.CharField(blank=True, max_length=100)),
                ('choices', models.JSONField(blank=True, null=True)),
                ('target', models.PositiveIntegerField(blank=True, null=True)),
                ('position', models.PositiveIntegerField(default=0)),
                ('character', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='saved_rolls', to='sheets.character')),
            ],
            options={
                'ordering': ['position', 'id'],
                'constraints': [models.UniqueConstraint(django.db.models.functions.text.Lower('name'), models.F('character'), name='saved_roll_name_unique_per_character')],
            },
        ),
    ]
