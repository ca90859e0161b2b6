from django.db import migrations, models


def shared_is_last(apps, schema_editor):
    """No whisper was logged before this: every entry so far was shared."""
    Campaign = apps.get_model("campaigns", "Campaign")
    Campaign.objects.update(shared_seq=models.F("last_seq"))


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0007_pool_settings_move_to_pool"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="shared_seq",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.RunPython(shared_is_last, migrations.RunPython.noop),
    ]
