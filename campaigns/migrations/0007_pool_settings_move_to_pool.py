# Pool's settings moved to the Pool system's app (rolls/systems/pool/migrations/0001_initial.py),
# which carried every Pool campaign's settings over first: the columns go. Unapplied, they come
# back with their defaults, and pool 0001, unapplied next, writes each campaign's back into them.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0006_palette_moves_to_mana'),
        ('pool', '0001_initial'),
    ]

    operations = [
        migrations.RemoveField(model_name='campaign', name='attribute_cost'),
        migrations.RemoveField(model_name='campaign', name='skill_cost'),
        migrations.RemoveField(model_name='campaign', name='hp_base'),
        migrations.RemoveField(model_name='campaign', name='hp_per_endurance'),
    ]
