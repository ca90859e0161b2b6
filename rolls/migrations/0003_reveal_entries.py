"""A log entry may reveal a GM-secret roll. Secret rolls logged before this have no commitment
and cannot be revealed."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rolls', '0002_signed_log'),
    ]

    operations = [
        migrations.AlterField(
            model_name='logentry',
            name='kind',
            field=models.CharField(choices=[('roll', 'Roll'), ('session_start', 'Session start'), ('session_end', 'Session end'), ('reveal', 'Reveal')], default='roll', max_length=13),
        ),
    ]
