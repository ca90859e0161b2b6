# What a check binds and proposes moved to the systems' own rows of it, which carried every
# value over first: Mana's skill to ManaCheck (rolls/systems/mana/migrations/0004_mana_check.py),
# Pool's binding and shift to PoolCheck (rolls/systems/pool/migrations/0003_pool_check.py). The
# columns go. Unapplied, they come back at their defaults, and those migrations, unapplied next,
# write the values back into them.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('mana', '0004_mana_check'),
        ('pool', '0003_pool_check'),
        ('rolls', '0006_mana_skill_moves_to_mana'),
    ]

    operations = [
        migrations.RemoveField(model_name='check', name='mana_skill'),
        migrations.RemoveField(model_name='check', name='attribute'),
        migrations.RemoveField(model_name='check', name='skill'),
        migrations.RemoveField(model_name='check', name='shift_d6'),
        migrations.RemoveField(model_name='check', name='shift_d10'),
        migrations.RemoveField(model_name='check', name='bonus_effect'),
        migrations.RemoveField(model_name='check', name='shift_declined'),
        migrations.RemoveField(model_name='check', name='decline_reason'),
        migrations.RemoveField(model_name='check', name='asked_attribute'),
        migrations.RemoveField(model_name='check', name='asked_skill'),
    ]
