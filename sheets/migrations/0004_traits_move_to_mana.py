# A character's traits moved to the Mana system's app (rolls/systems/mana/migrations/
# 0003_mana_sheet.py), which carried every Mana character's traits over first: the column goes.
# Unapplied, it comes back empty, and mana 0003, unapplied next, writes the traits back into it.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('mana', '0003_mana_sheet'),
        ('sheets', '0003_manapool_moves_to_mana'),
    ]

    operations = [
        migrations.RemoveField(model_name='character', name='traits'),
    ]
