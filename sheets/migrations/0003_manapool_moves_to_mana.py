# ManaPool moves to the Mana system's app (rolls/systems/mana/migrations/0001_initial.py),
# keeping its table: this migration only forgets the model, the database is left as it is.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('mana', '0001_initial'),
        ('sheets', '0002_sparetimeentry_moves_to_sparetime'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='ManaPool'),
            ],
            database_operations=[],
        ),
    ]
