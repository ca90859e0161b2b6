# ManaSkill moved to the Mana system's app (rolls/systems/mana/migrations/0001_initial.py),
# keeping its table: the check's foreign key names it there. The column and its constraint are
# left as they are.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('mana', '0001_initial'),
        ('rolls', '0005_check_asked_and_declined'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='check',
                    name='mana_skill',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='mana.manaskill'),
                ),
            ],
            database_operations=[],
        ),
    ]
