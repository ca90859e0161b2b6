# The ratings a spend raised and an earmark targets are Pool's own (pool 0004 moved the model,
# keeping its table): the foreign keys point there in the state alone, the database is left as
# it is (the same table, the same columns).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0004_rating_moves_to_pool'),
        ('sparetime', '0003_counter_entries'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='sparetimeentry',
                    name='rating',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='spends', to='pool.rating'),
                ),
                migrations.AlterField(
                    model_name='sparetimeentry',
                    name='targets',
                    field=models.ManyToManyField(blank=True, related_name='earmarks', to='pool.rating'),
                ),
            ],
            database_operations=[],
        ),
    ]
