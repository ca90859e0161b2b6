# Rating moves to the Pool system's app (rolls/systems/pool/migrations/0004_rating_moves_to_pool.py),
# keeping its table: this migration only forgets the model, once nothing points at it any more
# (rolls 0007 dropped the check's columns, pool 0004 and sparetime 0004 moved the rest).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0004_rating_moves_to_pool'),
        ('rolls', '0007_check_fields_move_to_systems'),
        ('sheets', '0005_hp_moves_to_pool'),
        ('sparetime', '0004_rating_moves_to_pool'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='Rating'),
            ],
            database_operations=[],
        ),
    ]
