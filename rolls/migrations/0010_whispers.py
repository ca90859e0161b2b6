import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rolls", "0009_logentry_outcome_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # A whisper takes no number of its own: it is the sub 1, 2, ... after the entry before it.
        migrations.AlterModelOptions(
            name="logentry",
            options={"ordering": ["seq", "sub"]},
        ),
        migrations.RemoveConstraint(
            model_name="logentry",
            name="unique_log_seq",
        ),
        migrations.AddField(
            model_name="logentry",
            name="sub",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddConstraint(
            model_name="logentry",
            constraint=models.UniqueConstraint(
                fields=("campaign", "seq", "sub"), name="unique_log_place"
            ),
        ),
        migrations.AddField(
            model_name="logentry",
            name="recipient",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="logentry",
            name="kind",
            field=models.CharField(
                choices=[
                    ("roll", "Roll"),
                    ("session_start", "Session start"),
                    ("session_end", "Session end"),
                    ("reveal", "Reveal"),
                    ("free_roll", "Free roll"),
                    ("message", "Message"),
                ],
                default="roll",
                max_length=13,
            ),
        ),
        migrations.AlterField(
            model_name="logentry",
            name="visibility",
            field=models.CharField(
                choices=[
                    ("public", "Public"),
                    ("private", "Private (roller and GM)"),
                    ("secret", "GM secret"),
                    ("whisper", "Whisper"),
                ],
                default="public",
                max_length=7,
            ),
        ),
    ]
