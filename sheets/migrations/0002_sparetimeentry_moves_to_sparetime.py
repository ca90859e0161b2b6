# The sparetime ledger moves to its own app (sparetime/migrations/0001_initial.py), keeping its
# tables: this migration only forgets the model, the database is left as it is.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('sheets', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='SparetimeEntry'),
            ],
            database_operations=[],
        ),
    ]
