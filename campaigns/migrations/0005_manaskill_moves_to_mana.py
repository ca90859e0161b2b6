# ManaSkill moves to the Mana system's app (rolls/systems/mana/migrations/0001_initial.py),
# keeping its table: this migration only forgets the model, the database is left as it is. It
# runs once the check's foreign key names the new one (rolls 0006).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0004_alter_campaign_system'),
        ('mana', '0001_initial'),
        ('rolls', '0006_mana_skill_moves_to_mana'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='ManaSkill'),
            ],
            database_operations=[],
        ),
    ]
