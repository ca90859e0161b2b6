# The palette moved to the Mana system's app (rolls/systems/mana/migrations/0002_mana_settings.py),
# which carried every Mana campaign's palette over first: the column goes. Unapplied, it comes
# back with the default, and mana 0002, unapplied next, writes each palette back into it.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0005_manaskill_moves_to_mana'),
        ('mana', '0002_mana_settings'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='campaign',
            name='palette',
        ),
    ]
