# A character's current HP moved to the Pool system's app (rolls/systems/pool/migrations/
# 0002_pool_sheet.py), which carried every Pool character's HP over first: the column goes.
# Unapplied, it comes back at 0, and pool 0002, unapplied next, writes the HP back into it.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0002_pool_sheet'),
        ('sheets', '0004_traits_move_to_mana'),
    ]

    operations = [
        migrations.RemoveField(model_name='character', name='hp_current'),
    ]
