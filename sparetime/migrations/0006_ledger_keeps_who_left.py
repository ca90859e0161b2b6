"""The ledger keeps every row when a member deletes their account (who: None; a balance is the
sum of its rows), and goes whole with its campaign: a row still keeps its rating, its source and
what it reverses from being deleted alone (RESTRICT), but no longer refuses a campaign's deletion,
which takes them all (PROTECT did). On_delete is Django's: the database's tables are the same."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0004_rating_moves_to_pool'),
        ('sparetime', '0005_build_points_and_lines'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='sparetimeentry',
            name='created_by',
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='sparetimeentry',
            name='player',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='delegated_sparetime', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='sparetimeentry',
            name='rating',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='spends', to='pool.rating'),
        ),
        migrations.AlterField(
            model_name='sparetimeentry',
            name='reverses',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='reversal', to='sparetime.sparetimeentry'),
        ),
        migrations.AlterField(
            model_name='sparetimeentry',
            name='source',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='spends', to='sparetime.sparetimeentry'),
        ),
        migrations.AlterField(
            model_name='sparetimeline',
            name='rating',
            field=models.ForeignKey(on_delete=django.db.models.deletion.RESTRICT, related_name='+', to='pool.rating'),
        ),
    ]
